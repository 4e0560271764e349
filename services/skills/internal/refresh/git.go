package refresh

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/gitsync"
)

// Timeouts of the synchronisations the refresher starts.
const (
	// initialSyncTimeout bounds the first synchronisation of a repository
	// at start-up when there is no cached checkout; cachedSyncTimeout when
	// there is one (a slow network then delays start-up less: the cached
	// checkout is served and the sync retried in the background).
	initialSyncTimeout = 60 * time.Second
	cachedSyncTimeout  = 10 * time.Second
	// contentSyncTimeout bounds the periodic synchronisation of a content
	// repository that serves no skills.
	contentSyncTimeout = 5 * time.Minute
	// skipCacheFetchTimeout bounds the synchronisation of the git sources
	// that a skip_cache read starts: a remote slower than that, or
	// unreachable, does not hold the read longer; the read is then served
	// from the checkout on disk.
	skipCacheFetchTimeout = 20 * time.Second
	// retryInterval is how soon a git source whose synchronisation failed
	// is tried again, when the refresh interval is longer.
	retryInterval = time.Minute
)

// Repos hands out one syncer per repository: everything that follows the
// same repository at the same ref (a git source of skills, the agents, the
// docs) shares one checkout, synchronised by one scheduler. The zero Repos
// is not usable: make one with NewRepos.
type Repos struct {
	opts    gitsync.Options
	syncers []*gitsync.Syncer
}

// NewRepos returns the Repos whose syncers use opts (their cache folder,
// log).
func NewRepos(opts gitsync.Options) *Repos { return &Repos{opts: opts} }

// Syncer returns the syncer of repo: the one already made for the same
// repository at the same ref with the same credentials and trusted keys,
// else a new one. repo.Path is the user's own: the syncer's SkillsDir is the
// first user's, so users of a shared syncer join CheckoutDir and their path.
func (rs *Repos) Syncer(repo gitsync.Repo) (*gitsync.Syncer, error) {
	s, err := gitsync.New(repo, rs.opts)
	if err != nil {
		return nil, err
	}
	for _, other := range rs.syncers {
		o := other.Repo()
		if other.CheckoutDir() == s.CheckoutDir() && o.Token == repo.Token && o.TrustedKeys == repo.TrustedKeys {
			return other, nil
		}
	}
	rs.syncers = append(rs.syncers, s)
	return s, nil
}

// Folder is the folder of s's checkout at sub ('/' separated; "" or "."
// is the checkout itself): where a user of a shared syncer finds its
// files.
func Folder(s *gitsync.Syncer, sub string) string {
	return filepath.Join(s.CheckoutDir(), filepath.FromSlash(strings.Trim(sub, "/")))
}

// SyncAtStart synchronises each repository once, git sources first, then
// the content repositories they do not share; a repository that cannot be
// reached serves its cached checkout, with a warning, and is retried by the
// periodic refresh.
func (r *Refresher) SyncAtStart(ctx context.Context) {
	done := map[*gitsync.Syncer]bool{}
	for _, g := range r.opts.Git {
		if done[g.Sync] {
			continue
		}
		done[g.Sync] = true
		res, err := syncOnce(ctx, g.Sync)
		if err == nil {
			r.log.Info("git source synchronised", "source", g.Name, "ref", g.ref(), "commit", res.Commit, "cloned", res.Cloned)
			continue
		}
		if commit := g.Sync.Open(); commit != "" {
			r.log.Warn("git source unreachable: serving its cached checkout, retrying later",
				"source", g.Name, "commit", commit, "error", err)
		} else {
			r.log.Warn("git source unreachable and never cloned: it holds no skills until it can be reached",
				"source", g.Name, "error", err)
		}
	}
	for _, c := range r.opts.Content {
		if done[c] {
			continue
		}
		done[c] = true
		if _, err := syncOnce(ctx, c); err != nil {
			r.log.Warn("content repository not synchronised; serving its last checkout, if any",
				"kind", c.Repo().Name, "repo", gitsync.Redact(c.Repo().URL), "branch", c.Repo().Ref, "error", err)
		}
	}
}

// syncOnce is the start-up synchronisation of s, bounded by
// initialSyncTimeout, or cachedSyncTimeout when s has a checkout.
func syncOnce(ctx context.Context, s *gitsync.Syncer) (gitsync.Result, error) {
	timeout := initialSyncTimeout
	if s.Open() != "" {
		timeout = cachedSyncTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return s.Sync(ctx)
}

// FirstClones lists (without credentials) the repositories, of skills and
// of content, that have no checkout yet.
func (r *Refresher) FirstClones() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range r.syncers() {
		if !seen[s.CheckoutDir()] && s.Open() == "" {
			out = append(out, gitsync.Redact(s.Repo().URL))
		}
		seen[s.CheckoutDir()] = true
	}
	return out
}

// syncers are the syncers of the git sources, then those of the content.
func (r *Refresher) syncers() []*gitsync.Syncer {
	out := make([]*gitsync.Syncer, 0, len(r.opts.Git)+len(r.opts.Content))
	for _, g := range r.opts.Git {
		out = append(out, g.Sync)
	}
	return append(out, r.opts.Content...)
}

// Revision is the commit a git source's checkout folder is at now; "" for
// any other source (catalog.Options.Revision).
func (r *Refresher) Revision(name string) string {
	for _, g := range r.opts.Git {
		if g.Name == name {
			return g.Sync.CheckedOut()
		}
	}
	return ""
}

// Report is what a refresh did (seed 000 §8.6).
type Report struct {
	// Busy says another refresh was running: nothing was done.
	Busy bool
	// Git says git sources were synchronised (git mode); false is local mode.
	Git bool
	// Commit is the first git source's commit after the refresh.
	Commit string
	// FilesChanged counts the files the synchronisation changed, all git
	// sources together.
	FilesChanged int
	// LastSync is when the git sources were last synchronised.
	LastSync time.Time
	// Skills is the number of skills in the catalog after the refresh.
	Skills int
	// Generation is the catalog's generation after the refresh.
	Generation uint64
	// Failed lists the git sources that could not be synchronised, with why
	// (they keep serving their last checkout).
	Failed []string
}

// Refresh synchronises every git source and rebuilds the catalog, once at a
// time: a call made while another runs returns Busy at once. A refresh still
// running when the refresher stops is abandoned (its fetch or rebuild
// cancelled; the catalog served does not change): finishing it would only
// hold up the stop. Content repositories that share a git source's
// repository are read again (OnContent) when it changed.
func (r *Refresher) Refresh(ctx context.Context) (Report, error) {
	if !r.flight.begin() {
		return Report{Busy: true}, nil
	}
	defer r.flight.end()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if bg := r.background(); bg != nil {
		defer context.AfterFunc(bg, func() { cancel(errStopping) })()
	}
	rep := Report{Git: len(r.opts.Git) > 0}
	// A repository shared by two git sources is synchronised once.
	synced := map[*gitsync.Syncer]error{}
	contentChanged := false
	for i, g := range r.opts.Git {
		err, done := synced[g.Sync]
		if !done {
			var res gitsync.Result
			res, err = g.Sync.Sync(ctx)
			synced[g.Sync] = err
			if err == nil {
				rep.FilesChanged += res.FilesChanged
				if res.Changed() {
					r.log.Info("git source updated", "source", g.Name, "from", res.Previous, "to", res.Commit, "files_changed", res.FilesChanged)
					contentChanged = contentChanged || r.isContent(g.Sync)
				}
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return rep, abandoned(ctx)
			}
			r.log.Warn("git source not synchronised: it keeps serving its last checkout", "source", g.Name, "error", err)
			rep.Failed = append(rep.Failed, fmt.Sprintf("%s: %v", g.Name, err))
		}
		st := g.Sync.State()
		if i == 0 {
			rep.Commit = st.Commit
		}
		if st.LastSync.After(rep.LastSync) {
			rep.LastSync = st.LastSync
		}
	}
	if contentChanged && r.opts.OnContent != nil {
		r.opts.OnContent()
	}
	r.buildMu.Lock()
	err := r.rebuildLocked(ctx, nil, true)
	r.buildMu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return rep, abandoned(ctx)
		}
		return rep, err
	}
	snap := r.opts.Store.Current()
	rep.Skills, rep.Generation = snap.Len(), snap.Generation()
	return rep, nil
}

// isContent reports whether s is the syncer of a content repository too.
func (r *Refresher) isContent(s *gitsync.Syncer) bool {
	for _, c := range r.opts.Content {
		if c == s {
			return true
		}
	}
	return false
}

// abandoned is the error of a refresh whose ctx ended: Unavailable when the
// refresher is stopping, else the caller's own cancellation or deadline.
func abandoned(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), errStopping) {
		return failure.New(failure.Unavailable, "",
			"the server is stopping: this refresh was abandoned and the catalog it serves did not change; refresh again once it is back")
	}
	return ctx.Err()
}

// Reload is what a read with skip_cache does before it is served. Local
// sources only: the catalog is rebuilt from disk. With git sources: they
// are synchronised and the catalog rebuilt (Refresh); when a refresh is
// already running the read waits for it and is served what it built. A git
// source that cannot be synchronised (unreachable, slower than
// skipCacheFetchTimeout) does not fail the read: it is logged and the read
// is served the checkout on disk. Only the read's own context ending fails
// it.
func (r *Refresher) Reload(ctx context.Context) error {
	if len(r.opts.Git) == 0 {
		return r.Rebuild(ctx)
	}
	fctx, cancel := context.WithTimeout(ctx, skipCacheFetchTimeout)
	rep, err := r.Refresh(fctx)
	cancel()
	switch {
	case err == nil && rep.Busy:
		return r.flight.wait(ctx)
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	// The refresh gave up (its time limit) or its rebuild failed: serve
	// what is on disk.
	if errors.Is(err, context.DeadlineExceeded) {
		r.log.Warn("skip_cache: the git sources were not synchronised in time; serving their last checkout",
			"timeout", skipCacheFetchTimeout)
	} else {
		r.log.Warn("skip_cache: refreshing the git sources failed; serving their last checkout", "error", err)
	}
	return r.Rebuild(ctx)
}

// loop is the one scheduler of the git repositories: every interval
// (sooner after a git source failed) it refreshes the git sources, then
// synchronises the content repositories they do not share and has the
// content read again, until ctx ends.
func (r *Refresher) loop(ctx context.Context) {
	interval := r.opts.Interval
	next := interval
	if r.gitFailing() {
		next = min(interval, retryInterval)
	}
	for {
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		next = interval
		if len(r.opts.Git) > 0 {
			rep, err := r.Refresh(ctx)
			switch {
			case err != nil:
				if ctx.Err() != nil {
					return
				}
				r.log.Warn("periodic refresh failed", "error", err)
				next = min(interval, retryInterval)
			case rep.Busy, len(rep.Failed) > 0:
				next = min(interval, retryInterval)
			}
		}
		if !r.syncContent(ctx) {
			return
		}
	}
}

// syncContent synchronises the content repositories that no git source
// shares (those were synchronised with it), then has the content read
// again; false when ctx ended.
func (r *Refresher) syncContent(ctx context.Context) bool {
	shared := map[*gitsync.Syncer]bool{}
	for _, g := range r.opts.Git {
		shared[g.Sync] = true
	}
	any := false
	for _, c := range r.opts.Content {
		if shared[c] {
			continue
		}
		any = true
		sctx, cancel := context.WithTimeout(ctx, contentSyncTimeout)
		_, err := c.Sync(sctx)
		cancel()
		if ctx.Err() != nil {
			return false
		}
		if err != nil {
			r.log.Warn("content repository not synchronised", "repo", gitsync.Redact(c.Repo().URL), "error", err)
		}
	}
	if any && r.opts.OnContent != nil {
		r.opts.OnContent()
	}
	return true
}

// gitFailing reports whether a git source's last synchronisation failed.
func (r *Refresher) gitFailing() bool {
	for _, g := range r.opts.Git {
		if g.Sync.State().Err != nil {
			return true
		}
	}
	return false
}
