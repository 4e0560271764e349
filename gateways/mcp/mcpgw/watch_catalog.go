package mcpgw

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// CatalogWatch follows the service's catalog changes (the WatchCatalog
// stream) for the server New builds, and turns each change into MCP
// notifications, in this order:
//   - its listeners run first (the resources and prompts code registers one
//     that brings the SDK's registered resources and prompts up to date, in
//     the background);
//   - then every session is sent notifications/resources/list_changed and
//     notifications/prompts/list_changed, once per change, whether or not it
//     has listed resources or prompts yet (watch_notify.go);
//   - then notifications/resources/updated goes to the sessions subscribed to
//     a skill:// resource whose content changed (its digest differs from the
//     one the watch last saw), or that appeared or went away.
//
// The native tools' schemas do not depend on the catalog, so no
// notifications/tools/list_changed is sent for a change (and tools.listChanged
// is not declared); the universal-skills profile, whose one tool lists the
// skills in its description, adds its tool again when that description
// changes, and the SDK sends that notification.
//
// Make one with NewCatalogWatch, pass it in Options.CatalogWatch, and Run it
// for as long as the server serves. The zero value is not usable.
type CatalogWatch struct {
	ready chan struct{} // closed by bind
	g     *gateway
	srv   *mcp.Server
	note  *notifier
	// locate finds the skill and file of a skill:// URI in the current
	// catalog (set by bind).
	locate func(ctx context.Context, uri string) (skillPath, file string, ok bool)

	mu        sync.Mutex
	listeners []CatalogListener
	// subs are the skill:// resources sessions subscribed to.
	subs map[string]*subscription
}

// subscription is one subscribed resource: how many subscriptions it has,
// and what the watch last saw of it.
type subscription struct {
	count int
	// skillPath and file locate it, once known (located).
	skillPath, file string
	located         bool
	// digest is the file's digest when last seen; "" when it did not exist
	// (then or since); known is false until it was read once.
	digest string
	known  bool
}

// NewCatalogWatch returns a watch to pass to New.
func NewCatalogWatch() *CatalogWatch {
	return &CatalogWatch{ready: make(chan struct{}), subs: map[string]*subscription{}}
}

// OnChange registers a listener of catalog changes (see CatalogListener).
// It may be called before or after New and Run.
func (w *CatalogWatch) OnChange(l CatalogListener) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.listeners = append(w.listeners, l)
}

// configure adds resource subscriptions to the server's options (keeping
// any subscribe handlers already there), so that the watch knows which
// resources to send updates for.
func (w *CatalogWatch) configure(opts *mcp.ServerOptions) {
	prevSub, prevUnsub := opts.SubscribeHandler, opts.UnsubscribeHandler
	opts.SubscribeHandler = func(ctx context.Context, req *mcp.SubscribeRequest) error {
		if prevSub != nil {
			if err := prevSub(ctx, req); err != nil {
				return err
			}
		}
		uri := req.Params.URI
		w.mu.Lock()
		sub := w.subs[uri]
		first := sub == nil
		if first {
			sub = &subscription{}
			w.subs[uri] = sub
		}
		sub.count++
		w.mu.Unlock()
		if first {
			// What the resource is now, so that only a change of its
			// content is announced.
			w.look(ctx, uri, "", "")
		}
		return nil
	}
	opts.UnsubscribeHandler = func(ctx context.Context, req *mcp.UnsubscribeRequest) error {
		if prevUnsub != nil {
			if err := prevUnsub(ctx, req); err != nil {
				return err
			}
		}
		w.mu.Lock()
		if sub := w.subs[req.Params.URI]; sub != nil {
			if sub.count--; sub.count <= 0 {
				delete(w.subs, req.Params.URI)
			}
		}
		w.mu.Unlock()
		return nil
	}
}

// bind ties the watch to the gateway and server New made; locate finds
// the skill and file of a skill:// URI.
func (w *CatalogWatch) bind(g *gateway, srv *mcp.Server, locate func(ctx context.Context, uri string) (string, string, bool)) error {
	select {
	case <-w.ready:
		return errors.New("this CatalogWatch is already used by another server")
	default:
	}
	w.g, w.srv, w.locate = g, srv, locate
	w.note = newNotifier(g.Log)
	w.note.install(srv)
	close(w.ready)
	return nil
}

// Watch backoff after the stream breaks.
const (
	watchRetryMin = 100 * time.Millisecond
	watchRetryMax = 5 * time.Second
)

// Run follows the catalog until ctx ends, opening the stream again (with a
// backoff up to 5 s) whenever it breaks: a remote skillsd that restarts, a
// network that drops. It returns nil when ctx ends, and an error at once if
// the watch was never passed to New; a service that does not stream changes
// (Unimplemented) is logged and Run waits for ctx.
func (w *CatalogWatch) Run(ctx context.Context) error {
	select {
	case <-w.ready:
	default:
		return errors.New("mcpgw: CatalogWatch.Run before New: pass the watch in Options.CatalogWatch first")
	}
	log := w.g.Log
	var gen int64 // last generation heard; 0 before the first stream
	delay := watchRetryMin
	for ctx.Err() == nil {
		stream, err := w.g.Catalog.WatchCatalog(ctx, &skillsv1.WatchCatalogRequest{})
		var heard bool
		if err == nil {
			heard, err = w.consume(ctx, stream, &gen)
		}
		if ctx.Err() != nil {
			return nil
		}
		if err != nil && core.Classify(err).Kind == core.KindUnsupported {
			log.Info("the skills service does not stream catalog changes: MCP clients will not be told of them")
			<-ctx.Done()
			return nil
		}
		if heard {
			delay = watchRetryMin
		}
		level := slog.LevelDebug
		if delay >= watchRetryMax {
			level = slog.LevelWarn
		}
		log.Log(ctx, level, "catalog change stream broke; opening it again", "in", delay, "error", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(delay*2, watchRetryMax)
	}
	return nil
}

// consume reads one stream until it breaks. It reports whether it heard
// anything, and keeps *gen at the last generation heard.
func (w *CatalogWatch) consume(ctx context.Context, stream skillsv1.CatalogService_WatchCatalogClient, gen *int64) (bool, error) {
	heard := false
	for {
		m, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the service ended the stream")
			}
			return heard, err
		}
		heard = true
		if m.GetInitial() {
			// A first stream describes what the sessions already see; a
			// stream opened again after a break may have missed changes (and
			// the service may be another one, whose generations start anew).
			if *gen != 0 {
				w.dispatch(ctx, CatalogChange{Generation: m.GetGeneration(), Resync: true})
			}
			*gen = m.GetGeneration()
			continue
		}
		*gen = m.GetGeneration()
		w.dispatch(ctx, CatalogChange{
			Generation: m.GetGeneration(),
			Added:      nonNilStrings(m.GetAdded()),
			Changed:    nonNilStrings(m.GetChanged()),
			Removed:    nonNilStrings(m.GetRemoved()),
		})
	}
}

// dispatch tells the listeners, then every session that the lists changed,
// then the subscribers of resources whose content changed. A change that
// names no skill (one that only touched skills outside the enabled subset)
// is nobody's news.
func (w *CatalogWatch) dispatch(ctx context.Context, c CatalogChange) {
	w.mu.Lock()
	listeners := append([]CatalogListener(nil), w.listeners...)
	w.mu.Unlock()
	for _, l := range listeners {
		l(ctx, c)
	}
	if c.Empty() {
		return
	}
	w.note.listChanged(ctx, w.srv)
	for _, uri := range w.updated(ctx, c) {
		if err := w.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			w.g.Log.Debug("sending resources/updated", "uri", uri, "error", err)
		}
	}
}

// updated returns the subscribed URIs whose content c changed: those of the
// skills it names (every one on a resync) whose file's digest is no longer
// the one last seen, including files that appeared or went away.
func (w *CatalogWatch) updated(ctx context.Context, c CatalogChange) []string {
	type candidate struct{ uri, skillPath, file string }
	var cands []candidate
	w.mu.Lock()
	for uri := range w.subs {
		if c.Resync {
			cands = append(cands, candidate{uri: uri})
			continue
		}
		if p, file, ok := touched(uri, c); ok {
			cands = append(cands, candidate{uri, p, file})
		}
	}
	w.mu.Unlock()
	sort.Slice(cands, func(i, j int) bool { return cands[i].uri < cands[j].uri })
	var out []string
	for _, cd := range cands {
		if w.look(ctx, cd.uri, cd.skillPath, cd.file) {
			out = append(out, cd.uri)
		}
	}
	return out
}

// look reads the digest of a subscribed resource (located by skillPath and
// file when given, else as the subscription was, else in the current
// catalog) and records it. It reports whether it differs from the digest
// seen before (always true when none was: a failed read counts as a change).
func (w *CatalogWatch) look(ctx context.Context, uri, skillPath, file string) bool {
	select {
	case <-w.ready:
	default:
		return true // not bound to a server yet: nothing to read with
	}
	w.mu.Lock()
	sub := w.subs[uri]
	if sub == nil {
		w.mu.Unlock()
		return false // unsubscribed meanwhile
	}
	if skillPath == "" && sub.located {
		skillPath, file = sub.skillPath, sub.file
	}
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, min(w.g.Timeout, 10*time.Second))
	defer cancel()
	if skillPath == "" && w.locate != nil {
		skillPath, file, _ = w.locate(ctx, uri)
	}
	digest, known := "", false
	if skillPath != "" {
		resp, err := w.g.Files.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{SkillPath: skillPath, File: file, MaxBytes: 1})
		switch {
		case err == nil:
			digest, known = resp.GetDigest(), true
		case core.IsNotFound(err):
			known = true
		default:
			w.g.Log.Debug("reading a subscribed resource's digest", "uri", uri, "error", err)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if sub = w.subs[uri]; sub == nil {
		return false
	}
	changed := !known || !sub.known || sub.digest != digest
	if skillPath != "" {
		sub.skillPath, sub.file, sub.located = skillPath, file, true
	}
	sub.digest, sub.known = digest, known
	return changed
}

// touched finds the skill of c that holds the skill:// resource uri (the
// deepest one, for nested skills) and the file's path in it.
func touched(uri string, c CatalogChange) (skillPath, file string, ok bool) {
	rel, err := parseSkillURI(uri)
	if err != nil {
		return "", "", false
	}
	for _, list := range [][]string{c.Added, c.Changed, c.Removed} {
		for _, p := range list {
			if rest, found := strings.CutPrefix(rel, p+"/"); found && rest != "" && len(p) > len(skillPath) {
				skillPath, file, ok = p, rest, true
			}
		}
	}
	return skillPath, file, ok
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
