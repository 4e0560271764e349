package server

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
)

// This file leaves the server's absolute paths out of answers that cross a
// network listener (network.hide_paths): the last step of the conversion to
// wire messages, in one place for every RPC and every surface behind it.
//
// A hidden path keeps its shape: the folder of a source becomes the source's
// label (its name, or the base name of its folder when the name is the
// folder itself), the home folder "~", the state folder "$SKILLSD_HOME". A
// skill's directory "/home/ann/.agents/skills/pdf" becomes "skills/pdf" and
// its file "skills/pdf/SKILL.md", so a client can still tell the file's
// place inside the folder. Every string of the answer is rewritten, except
// the texts of files (a file's text, a skill's instructions, body and
// content), which are served as written.

// hiddenKey marks a context whose answer hides paths.
type hiddenKey struct{}

// WithHiddenPaths marks ctx: the answer to this call leaves the server's
// absolute paths out.
func WithHiddenPaths(ctx context.Context) context.Context {
	return context.WithValue(ctx, hiddenKey{}, true)
}

// pathsHidden reports whether ctx was marked by WithHiddenPaths.
func pathsHidden(ctx context.Context) bool {
	v, _ := ctx.Value(hiddenKey{}).(bool)
	return v
}

// textFields are the fields holding file texts: never rewritten.
var textFields = map[protoreflect.Name]bool{"text": true, "content": true, "instructions": true, "body": true}

// pathMask rewrites absolute paths to their hidden form.
type pathMask struct {
	from, to []string // longest first
	labels   map[string]string
}

// mask builds the mask of a snapshot: its sources' folders, and the private
// folders of Options.PrivateDirs.
func (s *Service) mask(snap *catalog.Snapshot) *pathMask {
	m := &pathMask{labels: map[string]string{}}
	type pair struct{ from, to string }
	var pairs []pair
	used := map[string]int{}
	for _, src := range snap.Sources() {
		label := src.Name
		if filepath.IsAbs(label) || label == "" {
			base := filepath.Base(src.Dir)
			used[base]++
			label = base
			if n := used[base]; n > 1 {
				label += "-" + strconv.Itoa(n)
			}
		}
		m.labels[src.Name] = label
		for _, p := range []string{src.Dir, src.Name} {
			if filepath.IsAbs(p) && len(p) > 1 {
				pairs = append(pairs, pair{filepath.Clean(p), label})
			}
		}
	}
	for dir, label := range s.opts.PrivateDirs {
		if filepath.IsAbs(dir) && len(dir) > 1 {
			pairs = append(pairs, pair{filepath.Clean(dir), label})
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.from) - len(a.from) })
	for _, p := range pairs {
		m.from, m.to = append(m.from, p.from), append(m.to, p.to)
	}
	return m
}

// label is the hidden name of a source.
func (m *pathMask) label(source string) string {
	if l, ok := m.labels[source]; ok {
		return l
	}
	return m.text(source)
}

// text rewrites every absolute path of s that starts with a masked folder.
func (m *pathMask) text(s string) string {
	for i, from := range m.from {
		if !strings.Contains(s, from) {
			continue
		}
		var b strings.Builder
		rest := s
		for {
			j := strings.Index(rest, from)
			if j < 0 {
				b.WriteString(rest)
				break
			}
			end := j + len(from)
			if end < len(rest) && pathByte(rest[end]) || j > 0 && pathByte(rest[j-1]) {
				// Part of a longer name ("/srv/skills-old"): not this folder.
				b.WriteString(rest[:end])
				rest = rest[end:]
				continue
			}
			b.WriteString(rest[:j])
			b.WriteString(m.to[i])
			rest = rest[end:]
		}
		s = b.String()
	}
	return s
}

// pathByte reports whether c may continue a file name.
func pathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c >= 0x80
}

// message rewrites every string of msg (but file texts), in place.
func (m *pathMask) message(msg protoreflect.Message) {
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			list := v.List()
			for i := range list.Len() {
				switch {
				case fd.Kind() == protoreflect.StringKind:
					list.Set(i, protoreflect.ValueOfString(m.text(list.Get(i).String())))
				case fd.Message() != nil:
					m.message(list.Get(i).Message())
				}
			}
		case fd.IsMap():
			mp := v.Map()
			mp.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				switch {
				case fd.MapValue().Kind() == protoreflect.StringKind:
					mp.Set(k, protoreflect.ValueOfString(m.text(mv.String())))
				case fd.MapValue().Message() != nil:
					m.message(mv.Message())
				}
				return true
			})
		case fd.Message() != nil:
			m.message(v.Message())
		case fd.Kind() == protoreflect.StringKind && !textFields[fd.Name()]:
			msg.Set(fd, protoreflect.ValueOfString(m.text(v.String())))
		}
		return true
	})
}

// hide rewrites a copy of an answer, and its error, for a call whose paths
// are hidden (answers may be shared: the original is left as it is).
func (s *Service) hide(resp any, err error) (any, error) {
	m := s.mask(s.snapshot())
	if p, ok := resp.(proto.Message); ok && p != nil && p.ProtoReflect().IsValid() {
		c := proto.Clone(p)
		m.message(c.ProtoReflect())
		resp = c
	}
	if err != nil {
		if st, ok := status.FromError(err); ok && st.Message() != m.text(st.Message()) {
			pb := st.Proto()
			pb.Message = m.text(pb.Message)
			err = status.FromProto(pb).Err()
		}
	}
	return resp, err
}

// HidePathsUnary and HidePathsStream rewrite the answers of calls marked by
// WithHiddenPaths; they go inside the interceptor that marks them.
func (s *Service) HidePathsUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if !pathsHidden(ctx) {
		return resp, err
	}
	return s.hide(resp, err)
}

// HidePathsStream is HidePathsUnary for streams: each message sent is rewritten.
func (s *Service) HidePathsStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if !pathsHidden(ss.Context()) {
		return handler(srv, ss)
	}
	_, err := s.hide(nil, handler(srv, &hidingStream{ServerStream: ss, s: s}))
	return err
}

// hidingStream rewrites every message sent.
type hidingStream struct {
	grpc.ServerStream
	s *Service
}

func (h *hidingStream) SendMsg(m any) error {
	m, _ = h.s.hide(m, nil)
	return h.ServerStream.SendMsg(m)
}

// sourceMatches reports whether a request's source filter names source: by
// its name, or, for a caller that sees hidden paths, by its label.
func (s *Service) sourceMatches(ctx context.Context, filter, source string) bool {
	if filter == source {
		return true
	}
	return pathsHidden(ctx) && s.mask(s.snapshot()).label(source) == filter
}
