package server

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/timestamppb"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/accesslog"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/usage"
)

// This file is the UsageService (feedback, aggregates, ingest from other
// servers) and the helpers the other services call to record their events.

// Limits of the UsageService requests.
const (
	maxCommentBytes  = 4 << 10
	defaultTopN      = 20
	maxTopN          = 1000
	defaultWindow    = 30 * 24 * time.Hour
	maxIngestedBatch = 5000
)

// analyticsOff is the error of the usage RPCs on a server that records nothing.
func analyticsOff() error {
	return failure.New(failure.FailedPrecondition, "NOT_SUPPORTED",
		"analytics is off on this server (analytics.enabled: false in its config.yaml, or no writable folder for its local store): "+
			"remove that setting, or set SKILLSD_HOME to a writable folder, to record usage")
}

// record records a usage event; failures are logged by the recorder (or
// here, at debug level) and never fail the call that caused the event. The
// event's id comes from the call's request id: a call retried on another
// replica (or on this one) records one event, not two.
func (s *Service) record(ctx context.Context, p usage.Payload) {
	if !s.opts.Usage.Enabled() {
		return
	}
	if _, err := s.opts.Usage.RecordFor(accesslog.RequestID(ctx), p); err != nil {
		s.log.DebugContext(ctx, "usage event not recorded", "type", p.Type, "err", err)
	}
}

// recordRefresh records a refresh event (seed 000 §10.2): RefreshSkills
// calls it once per refresh it ran.
func (s *Service) recordRefresh(ctx context.Context, mode string, success bool, commitHash string, filesChanged, skillsReindexed int) {
	s.record(ctx, usage.Refreshed(mode, success, commitHash, filesChanged, skillsReindexed))
}

// ReportUsage records feedback on a skill (seed 000 §8.5).
func (s *Service) ReportUsage(ctx context.Context, req *skillsv1.ReportUsageRequest) (*skillsv1.ReportUsageResponse, error) {
	comment := strings.TrimSpace(req.GetComment())
	switch {
	case len(comment) > maxCommentBytes:
		return nil, toStatus(ctx, s.log, failure.New(failure.InvalidArgument, "", "comment is longer than %d bytes (got %d): keep it to a few sentences", maxCommentBytes, len(comment)))
	case !utf8.ValidString(comment):
		return nil, toStatus(ctx, s.log, failure.New(failure.InvalidArgument, "", "comment is not valid UTF-8"))
	}
	sk, err := s.lookup(s.snapshot(), req.GetSkillPath())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	s.log.InfoContext(ctx, "skill feedback", "skill_path", sk.Path, "useful", req.GetUseful(), "comment", comment)
	if !s.opts.Usage.Enabled() {
		return &skillsv1.ReportUsageResponse{
			Recorded: false,
			Message:  "Feedback for " + sk.Path + " was logged, but analytics is off on this server, so it was not recorded.",
		}, nil
	}
	if _, err := s.opts.Usage.Record(usage.Feedback(sk.Path, req.GetUseful(), comment)); err != nil {
		msg := "Feedback for " + sk.Path + " was logged but not recorded: the server could not store it."
		if errors.Is(err, usage.ErrSpoolFull) {
			msg = "Feedback for " + sk.Path + " was logged but not recorded: the server's usage spool is full."
		}
		return &skillsv1.ReportUsageResponse{Recorded: false, Message: msg}, nil
	}
	return &skillsv1.ReportUsageResponse{Recorded: true, Message: "Feedback recorded for " + sk.Path}, nil
}

// GetUsageStats aggregates the stored events of a time window.
func (s *Service) GetUsageStats(ctx context.Context, req *skillsv1.GetUsageStatsRequest) (*skillsv1.GetUsageStatsResponse, error) {
	if !s.opts.Usage.Enabled() {
		return nil, toStatus(ctx, s.log, analyticsOff())
	}
	end := time.Now().UTC()
	if req.GetEndTime() != nil {
		if err := req.GetEndTime().CheckValid(); err != nil {
			return nil, toStatus(ctx, s.log, failure.New(failure.InvalidArgument, "", "end_time is not a valid time: %v", err))
		}
		end = req.GetEndTime().AsTime()
	}
	start := end.Add(-defaultWindow)
	if req.GetStartTime() != nil {
		if err := req.GetStartTime().CheckValid(); err != nil {
			return nil, toStatus(ctx, s.log, failure.New(failure.InvalidArgument, "", "start_time is not a valid time: %v", err))
		}
		start = req.GetStartTime().AsTime()
	}
	if !start.Before(end) {
		return nil, toStatus(ctx, s.log, failure.New(failure.InvalidArgument, "",
			"start_time (%s) must be before end_time (%s)", start.Format(time.RFC3339), end.Format(time.RFC3339)))
	}
	topN, err := count("top_n", req.GetTopN(), defaultTopN, maxTopN)
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	st, err := s.opts.Usage.Stats(ctx, usage.Window{Start: start, End: end, SkillPath: strings.TrimSpace(req.GetSkillPath()), TopN: topN})
	if err != nil {
		if !s.opts.Usage.Enabled() { // its local store, opened late, did not open
			err = analyticsOff()
		}
		return nil, toStatus(ctx, s.log, err)
	}
	return statsToProto(start, end, st), nil
}

// IngestEvents stores a batch from another server's publisher, once per id.
func (s *Service) IngestEvents(ctx context.Context, req *skillsv1.IngestEventsRequest) (*skillsv1.IngestEventsResponse, error) {
	if !s.opts.Usage.Enabled() {
		return nil, toStatus(ctx, s.log, analyticsOff())
	}
	if n := len(req.GetEvents()); n > maxIngestedBatch {
		return nil, toStatus(ctx, s.log, failure.New(failure.InvalidArgument, "", "a batch holds at most %d events (got %d): send it in parts", maxIngestedBatch, n))
	}
	events, err := eventsFromProto(req.GetEvents())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	accepted, dups, err := s.opts.Usage.Ingest(ctx, events)
	if err != nil {
		if !s.opts.Usage.Enabled() { // its local store, opened late, did not open
			err = analyticsOff()
		}
		return nil, toStatus(ctx, s.log, err)
	}
	s.log.DebugContext(ctx, "usage events ingested", "accepted", accepted, "duplicates", dups)
	return &skillsv1.IngestEventsResponse{Accepted: int32(accepted), Duplicates: int32(dups)}, nil
}

// eventsFromProto converts and validates a batch.
func eventsFromProto(in []*skillsv1.UsageEvent) ([]usage.Event, error) {
	out := make([]usage.Event, 0, len(in))
	for i, pe := range in {
		e := usage.Event{ID: strings.TrimSpace(pe.GetId()), Type: pe.GetType(), ServerID: pe.GetServerId(), Data: map[string]any{}}
		if ts := pe.GetTimestamp(); ts != nil {
			if err := ts.CheckValid(); err != nil {
				return nil, failure.New(failure.InvalidArgument, "", "events[%d]: timestamp is not a valid time: %v", i, err)
			}
			e.Timestamp = ts.AsTime()
		}
		if d := pe.GetData(); d != nil {
			e.Data = d.AsMap()
		}
		if err := e.Validate(); err != nil {
			return nil, failure.New(failure.InvalidArgument, "", "events[%d]: %v", i, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// statsToProto converts the aggregates.
func statsToProto(start, end time.Time, st *usage.Stats) *skillsv1.GetUsageStatsResponse {
	return &skillsv1.GetUsageStatsResponse{
		StartTime: timestamppb.New(start),
		EndTime:   timestamppb.New(end),
		Skills: mapAll(st.Skills, func(sk usage.SkillStats) *skillsv1.SkillUsage {
			u := &skillsv1.SkillUsage{
				SkillPath: sk.SkillPath, Served: sk.Served, AmbiguousAppearances: sk.AmbiguousAppearances,
				Useful: sk.Useful, NotUseful: sk.NotUseful, RecentComments: nonNil(sk.RecentComments),
			}
			if !sk.LastServed.IsZero() {
				u.LastServed = timestamppb.New(sk.LastServed)
			}
			return u
		}),
		TopNoMatch:   contextsToProto(st.TopNoMatch),
		TopAmbiguous: contextsToProto(st.TopAmbiguous),
		ByDay: mapAll(st.ByDay, func(d usage.DayCount) *skillsv1.DayCount {
			return &skillsv1.DayCount{Day: d.Day, Served: d.Served, NoMatch: d.NoMatch, Ambiguous: d.Ambiguous, Searches: d.Searches, Feedback: d.Feedback}
		}),
		TotalEvents: st.TotalEvents,
	}
}

func contextsToProto(in []usage.ContextCount) []*skillsv1.ContextCount {
	return mapAll(in, func(c usage.ContextCount) *skillsv1.ContextCount {
		return &skillsv1.ContextCount{Context: c.Context, Count: c.Count}
	})
}

// argNames lists the names of the given script arguments, sorted (values are
// never recorded).
func argNames(args map[string]string) []string {
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// candidatePaths lists the paths of a match's candidates.
func candidatePaths(cands []*skillsv1.MatchCandidate) []string {
	return mapAll(cands, (*skillsv1.MatchCandidate).GetSkillPath)
}

// recordLoad records a load (GetSkill) as skill_served with via "load": with
// search-then-load clients, loads are how skills get served.
func (s *Service) recordLoad(ctx context.Context, skillPath string) {
	s.record(ctx, usage.Served("", skillPath, 0, nil, false, "load"))
}
