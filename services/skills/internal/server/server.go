// Package server is the gRPC adapter of the service: it turns skills.v1 requests
// into calls on the domain packages (catalog, …), converts domain values to wire
// messages, and maps domain errors to gRPC statuses in one place (toStatus). It
// holds no behaviour of its own beyond request validation.
package server

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/assets"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/content"
	"github.com/skillsd/skillsd/services/skills/internal/embed"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/refresh"
	"github.com/skillsd/skillsd/services/skills/internal/sandbox"
	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/internal/search"
	"github.com/skillsd/skillsd/services/skills/internal/usage"
)

// Options configures the service adapter.
type Options struct {
	// Store holds the catalog snapshot being served. Required.
	Store *catalog.Store
	// Refresher keeps the catalog current: skip_cache reads reload through
	// it, RefreshSkills refreshes through it, and source statuses come with
	// what it knows of each source. Nil means the catalog cannot be reloaded
	// (skip_cache is then a no-op, RefreshSkills reports the catalog as it
	// is).
	Refresher *refresh.Refresher
	// Filter decides which skills this server exposes; the zero Filter exposes all.
	Filter catalog.Filter
	// Version is the server's version, reported by GetCatalogStatus.
	Version string
	// MatchingStrategy is the configured strategy: "auto", "keyword" or "ranked".
	MatchingStrategy string
	// Routing configures search and match; the zero value means DefaultRouting().
	Routing Routing
	// Files reads skill files (FileService); nil means a reader with the
	// defaults of package assets.
	Files *assets.Reader
	// Scripts runs declared server scripts (ScriptService); nil means script
	// execution is switched off.
	Scripts *sandbox.Sandbox
	// Commands runs seed 004's allow-listed commands (ScriptService.RunCommand);
	// nil means running commands is switched off.
	Commands *sandbox.Commands
	// Content serves agent profiles and documentation (ContentService); nil
	// means no agents or docs folder (empty lists, gets answer not found).
	Content *content.Store
	// Usage records usage events and answers the UsageService; nil means
	// analytics is off (nothing recorded, the usage RPCs say so).
	Usage *usage.Recorder
	// Logger receives the log; nil discards it.
	Logger *slog.Logger
	// PrivateDirs are folders of the machine that hidden answers name by a
	// label instead (the home folder as "~", the state folder as
	// "$SKILLSD_HOME"), beside the sources' folders; see WithHiddenPaths.
	PrivateDirs map[string]string
	// Scanner is the security scanner the catalog builds use (its policy
	// explains quarantines and status); nil means skills are not scanned.
	Scanner *scan.Scanner
	// Semantic fuses the lexical ranking with an embedding model's in
	// SearchSkills (ranked mode) and the ranked match strategy; nil means
	// lexical search only (embedding.provider none).
	Semantic *embed.Engine
	// SearchCache keeps the skills' text analysis for the search index
	// between builds and processes (search.RouterOptions.Cache); nil
	// analyses every skill at each build.
	SearchCache *search.AnalysisCache
	// Config reports the state of the configuration file the server loaded
	// (GetCatalogStatus.config, and ListDiagnostics while a change to it is
	// refused or waits for a restart); nil means the server runs without
	// one.
	Config func() ConfigState
}

// ConfigState is what the server knows of its configuration file since it
// started: the file, why the file as it is on disk cannot be used, and what
// its valid changes did.
type ConfigState struct {
	// File is the configuration file's path.
	File string
	// Error says why the file on disk is not valid; empty when it is. Line
	// is the file line of the error, 0 when unknown.
	Error string
	Line  int
	// RestartNeeded are the dotted keys whose values on disk take effect at
	// the next start.
	RestartNeeded []string
	// Applied are the keys a change applied while serving, since the start.
	Applied []string
	// CheckedAt is when the file was last read after a change; zero when it
	// has not changed.
	CheckedAt time.Time
}

// Service implements the skills.v1 services. Services whose issues have not
// landed yet answer Unimplemented through the embedded Unimplemented*Server.
type Service struct {
	skillsv1.UnimplementedCatalogServiceServer
	skillsv1.UnimplementedRoutingServiceServer
	skillsv1.UnimplementedFileServiceServer
	skillsv1.UnimplementedScriptServiceServer
	skillsv1.UnimplementedUsageServiceServer
	skillsv1.UnimplementedContentServiceServer

	opts Options
	log  *slog.Logger
	// refreshing makes RefreshSkills single-flight when Options.Refresher is nil.
	refreshing atomic.Bool
	// router keeps the search index and matcher of the snapshot served.
	router *search.Router
}

// New returns the service adapter.
func New(opts Options) *Service {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Files == nil {
		opts.Files = assets.New(assets.Options{})
	}
	if opts.Scripts == nil {
		opts.Scripts = sandbox.New(sandbox.Options{Enabled: false})
	}
	s := &Service{opts: opts, log: log}
	cfg := s.routing()
	ropts := search.RouterOptions{
		Store:      opts.Store,
		Filter:     opts.Filter,
		Strategy:   opts.MatchingStrategy,
		Thresholds: cfg.Match,
		StopWords:  cfg.StopWords,
		CutRatio:   cfg.SearchThreshold,
		Cache:      opts.SearchCache,
		Logger:     log,
	}
	if sem := opts.Semantic; sem != nil {
		ropts.Fuse = func(skills []*catalog.Skill) search.Fusion { return sem.Sync(skills) } // embeds in the background
	}
	s.router = search.NewRouter(ropts)
	return s
}

// snapshot returns the catalog being served.
func (s *Service) snapshot() *catalog.Snapshot { return s.opts.Store.Current() }

// reload brings the catalog up to date (skip_cache) through the Refresher.
func (s *Service) reload(ctx context.Context) error {
	if s.opts.Refresher == nil {
		return nil
	}
	return s.opts.Refresher.Reload(ctx)
}

// current resolves a skill reference against the snapshot being served,
// brought up to date first when skipCache is set.
func (s *Service) current(ctx context.Context, skipCache bool, ref string) (*catalog.Snapshot, *catalog.Skill, error) {
	if skipCache {
		if err := s.reload(ctx); err != nil {
			return nil, nil, err
		}
	}
	snap := s.snapshot()
	sk, err := s.lookup(snap, ref)
	return snap, sk, err
}

// count validates a request's count field (page_size, limit, top_n): not
// negative; 0 is def; above most is most.
func count(field string, n int32, def, most int) (int, error) {
	switch {
	case n < 0:
		return 0, failure.New(failure.InvalidArgument, "", "%s must not be negative (got %d)", field, n)
	case n == 0:
		return min(def, most), nil
	}
	return min(int(n), most), nil
}

// lookup resolves a skill reference (path or name) against the snapshot and the
// enabled subset.
func (s *Service) lookup(snap *catalog.Snapshot, ref string) (*catalog.Skill, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, failure.New(failure.InvalidArgument, "", "skill_path is required: give a skill path or name")
	}
	if len(ref) > 1024 {
		return nil, failure.New(failure.InvalidArgument, "INVALID_PATH", "skill_path is longer than 1024 characters")
	}
	sk, err := snap.Lookup(ref)
	if err != nil {
		return nil, err
	}
	if !s.opts.Filter.Enabled(sk) {
		return nil, failure.New(failure.PermissionDenied, "SKILL_DISABLED",
			"skill %q is disabled on this server (outside the enabled skills or categories)", sk.Path).With("skill_path", sk.Path)
	}
	if sk.Quarantined() {
		return nil, s.quarantined(sk)
	}
	return sk, nil
}
