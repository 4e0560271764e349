package server

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/refresh"
)

// RefreshSkills synchronises the git sources and rebuilds the catalog, one
// refresh at a time (seed 000 §9.5): a call made while one runs answers
// success false at once.
func (s *Service) RefreshSkills(ctx context.Context, _ *skillsv1.RefreshSkillsRequest) (*skillsv1.RefreshSkillsResponse, error) {
	var (
		rep refresh.Report
		err error
	)
	if s.opts.Refresher != nil {
		rep, err = s.opts.Refresher.Refresh(ctx)
	} else {
		rep, err = s.localRefresh(ctx)
	}
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	snap := s.snapshot()
	resp := &skillsv1.RefreshSkillsResponse{Mode: "local", Sources: []*skillsv1.SourceStatus{}}
	if rep.Busy {
		resp.Message = "A refresh is already running; this call did nothing. Try again in a moment."
		resp.Generation = int64(snap.Generation())
		return resp, nil
	}
	resp.Success = len(rep.Failed) == 0
	resp.SkillsReindexed = int32(rep.Skills)
	resp.Generation = int64(rep.Generation)
	if rep.Git {
		resp.Mode = "git"
		resp.CommitHash = rep.Commit
		resp.FilesChanged = int32(rep.FilesChanged)
		if !rep.LastSync.IsZero() {
			resp.LastSync = timestamp(rep.LastSync)
		}
		if resp.Success {
			resp.Message = fmt.Sprintf("Synchronised the git sources (%d files changed) and reindexed %d skills.", rep.FilesChanged, rep.Skills)
		} else {
			resp.Message = fmt.Sprintf("Could not synchronise %d git source(s), which keep serving their last checkout: %s. Reindexed %d skills.",
				len(rep.Failed), joinFailed(rep.Failed), rep.Skills)
		}
	} else {
		resp.Message = "Reindexed from local directory (no git sync configured)."
	}
	s.recordRefresh(ctx, resp.Mode, resp.Success, resp.CommitHash, int(resp.FilesChanged), int(resp.SkillsReindexed))
	resp.Sources = s.sourceStatuses(snap)
	return resp, nil
}

// localRefresh is RefreshSkills without a Refresher: the catalog as it is.
func (s *Service) localRefresh(context.Context) (refresh.Report, error) {
	if !s.refreshing.CompareAndSwap(false, true) {
		return refresh.Report{Busy: true}, nil
	}
	defer s.refreshing.Store(false)
	snap := s.snapshot()
	return refresh.Report{Skills: snap.Len(), Generation: snap.Generation()}, nil
}

func joinFailed(f []string) string {
	out := ""
	for i, s := range f {
		if i > 0 {
			out += "; "
		}
		out += s
	}
	return out
}

// sourceStatuses describes the sources of snap, with what SourceStates adds.
func (s *Service) sourceStatuses(snap *catalog.Snapshot) []*skillsv1.SourceStatus {
	counts := map[*catalog.Source]int32{}
	for _, sk := range snap.Skills() {
		if s.opts.Filter.Serves(sk) {
			counts[sk.Source]++
		}
	}
	out := []*skillsv1.SourceStatus{}
	for _, src := range snap.Sources() {
		out = append(out, s.sourceStatus(src, counts[src], snap.BuiltAt()))
	}
	return out
}

// sourceStatus is toSourceStatus with the source's state (git repository,
// commit, last synchronisation, error) when the service knows it.
func (s *Service) sourceStatus(src *catalog.Source, count int32, loaded time.Time) *skillsv1.SourceStatus {
	st := toSourceStatus(src, count, loaded)
	if s.opts.Refresher == nil {
		return st
	}
	if state, ok := s.opts.Refresher.SourceState(src.Name); ok {
		if state.Location != "" {
			st.Location = state.Location
			st.Ref = state.Ref
			st.Commit = state.Commit
			st.Error = state.Error
			if state.LastSync.IsZero() {
				st.LastSync = nil
			} else {
				st.LastSync = timestamp(state.LastSync)
			}
		}
		st.Watch = toWatchStatus(src.Name, state.Watch)
	}
	return st
}

// maxWatchDiagnostics bounds the folders a WatchStatus names.
const maxWatchDiagnostics = 20

// toWatchStatus is the wire form of a source's watch state; nil when unknown.
func toWatchStatus(source string, w *refresh.WatchState) *skillsv1.WatchStatus {
	if w == nil {
		return nil
	}
	out := &skillsv1.WatchStatus{Mode: w.Mode, Message: w.Message, UnwatchedCount: int32(w.Count), Diagnostics: []*skillsv1.Diagnostic{}}
	for i, u := range w.Unwatched {
		if i == maxWatchDiagnostics {
			break
		}
		out.Diagnostics = append(out.Diagnostics, &skillsv1.Diagnostic{
			Source:   source,
			File:     u.Path,
			Severity: skillsv1.Severity_SEVERITY_WARNING,
			Code:     "unwatchable",
			Message:  fmt.Sprintf("folder %s cannot be watched (%s): changes below it are not noticed until it can be; the other folders are watched, and it is tried again", u.Path, u.Reason),
		})
	}
	if !w.NextRetry.IsZero() {
		out.NextRetry = timestamp(w.NextRetry)
	}
	return out
}

// WatchCatalog streams the catalog's changes: first the current generation
// (initial), then one message per swap, until the client leaves or the
// server stops. A client that falls too far behind (64 changes: one that
// stopped reading) is cut off with Unavailable, after the changes it was
// already sent, and should watch again (and re-read what it caches); a
// stopping server ends every stream with Unavailable too, with another
// message.
func (s *Service) WatchCatalog(_ *skillsv1.WatchCatalogRequest, stream grpc.ServerStreamingServer[skillsv1.WatchCatalogResponse]) error {
	ctx := stream.Context()
	changes, cancel := s.opts.Store.Subscribe()
	defer cancel()
	snap := s.snapshot()
	var gen uint64
	if snap != nil {
		gen = snap.Generation()
	}
	first := &skillsv1.WatchCatalogResponse{
		Generation: int64(gen), Initial: true, ChangedAt: timestamp(time.Now()),
		Added: []string{}, Changed: []string{}, Removed: []string{},
	}
	if snap != nil {
		first.ChangedAt = timestamp(snap.BuiltAt())
	}
	if err := stream.Send(first); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case c, ok := <-changes:
			if !ok {
				if s.opts.Store.Closed() {
					return status.Error(codes.Unavailable, "the server is stopping: watch again (once it is back, or on another replica) and re-read the catalog")
				}
				return status.Error(codes.Unavailable, "this watch fell behind: the catalog changed faster than the stream was read, and the changes it had not read were dropped: watch again and re-read the catalog")
			}
			if c.Generation <= gen {
				continue // already described by the first message
			}
			if err := stream.Send(s.toChange(c)); err != nil {
				return err
			}
		}
	}
}

// toChange converts a catalog change, leaving out the skills outside the
// enabled subset.
func (s *Service) toChange(c catalog.Change) *skillsv1.WatchCatalogResponse {
	enabled := func(snap *catalog.Snapshot, p string) bool {
		if snap == nil {
			return false
		}
		sk := snap.Get(p)
		return sk != nil && s.opts.Filter.Serves(sk)
	}
	out := &skillsv1.WatchCatalogResponse{
		Generation: int64(c.Generation), ChangedAt: timestamp(c.At),
		Added: []string{}, Changed: []string{}, Removed: []string{},
	}
	for _, p := range c.Added {
		if enabled(c.Current, p) {
			out.Added = append(out.Added, p)
		}
	}
	for _, p := range c.Changed {
		switch now, before := enabled(c.Current, p), enabled(c.Previous, p); {
		case now && before:
			out.Changed = append(out.Changed, p)
		case now:
			out.Added = append(out.Added, p)
		case before:
			out.Removed = append(out.Removed, p)
		}
	}
	for _, p := range c.Removed {
		if enabled(c.Previous, p) {
			out.Removed = append(out.Removed, p)
		}
	}
	return out
}
