// Package gitsync keeps a local checkout of a git repository that serves
// skills (seed 000 §9): it clones the repository into a cache folder under the
// state folder (SKILLSD_HOME), or opens the clone made by an earlier run,
// fetches, and checks out the configured ref (a branch, a tag or a commit).
// It uses go-git only: no git binary is needed.
//
// A checkout is atomic, for readers and across crashes. The clone is bare
// (<name>.git); each commit is written into a fresh folder
// (<name>.trees/<commit>, files that did not change hard-linked from the
// previous tree, so they keep their modification time and the catalog does
// not read them again), and only once it is complete is the checkout folder
// <name>, a symbolic link, switched to it by an atomic rename. A process
// killed mid-checkout leaves the previous tree served and an unfinished
// folder that the next synchronisation removes; a reader resolving the link
// sees the old commit or the new one, never a mix. The previous tree is kept
// one synchronisation longer for readers still inside it.
//
// Credentials stay in memory: a token is sent as HTTP basic auth on each
// fetch and never written anywhere (the remote URL in the clone's config
// carries no credentials). When the remote cannot be reached, the last
// checkout keeps serving; a cache that cannot be opened or read is wiped and
// cloned again. Processes sharing the state folder serialise their work on a
// repository with a lock file beside its cache.
//
// It does not decide when to synchronise (the caller schedules), build the
// catalog (package catalog), or watch local folders (package watch).
package gitsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/skillsd/skillsd/services/skills/internal/defaults"
)

// Repo describes one repository to follow.
type Repo struct {
	// Name labels the repository in logs and errors.
	Name string
	// URL is the remote (https://, http://, ssh://, file://, git@host:path);
	// it must not embed credentials.
	URL string
	// Ref is a branch, a tag or a commit (7 to 40 hex digits); empty means
	// "main".
	Ref string
	// Path is the sub-folder of the checkout that holds the skills, '/'
	// separated; empty means the repository root.
	Path string
	// Token, when set, is sent as HTTP basic auth (user x-access-token) to
	// http(s) remotes. It is kept in memory only.
	Token string
	// TrustedKeys, when set, is an armored OpenPGP key ring: only a commit
	// signed by one of its keys is checked out (an unsigned or otherwise
	// signed commit is refused and the last good checkout stays), and a
	// cached checkout that is not so signed is discarded.
	TrustedKeys string
}

// Options configures a Syncer.
type Options struct {
	// CacheDir is the folder holding the clones (one sub-folder per
	// repository), normally <state folder>/git. Required.
	CacheDir string
	// Logger receives the log; nil discards it.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnCheckoutFile, when set, is called after each file a checkout writes,
	// with how many it has written so far: a fault-injection point for tests
	// (one kills the process there). Nil does nothing.
	OnCheckoutFile func(written int)
	// ProgressInterval is how often a synchronisation that takes long (a
	// first clone of a large repository) says at info level that it is
	// still at work, with the remote's last progress message; 0 means
	// DefaultProgressInterval.
	ProgressInterval time.Duration
}

// DefaultProgressInterval is Options.ProgressInterval's default.
const DefaultProgressInterval = 10 * time.Second

// Result describes one synchronisation.
type Result struct {
	// Commit is the commit checked out (full hex hash).
	Commit string
	// Previous is the commit checked out before ("" on a first clone).
	Previous string
	// FilesChanged counts the files that differ between Previous and Commit
	// (all the files of the tree on a first clone).
	FilesChanged int
	// Cloned says the cache was (re)created.
	Cloned bool
	// SyncedAt is when the synchronisation finished.
	SyncedAt time.Time
}

// Changed reports whether the checkout moved to another commit.
func (r Result) Changed() bool { return r.Commit != r.Previous }

// State is what the Syncer knows about its checkout.
type State struct {
	// Commit is the commit checked out; "" when there is no checkout yet.
	Commit string
	// LastSync is when the last successful synchronisation finished (zero
	// when none did in this process).
	LastSync time.Time
	// Err is the last synchronisation's error; nil when it succeeded.
	Err error
}

// Syncer keeps the checkout of one repository. Its methods are safe for
// concurrent use; synchronisations are serialised.
type Syncer struct {
	repo Repo
	opts Options
	log  *slog.Logger
	// dir is the checkout folder: a symbolic link to the tree of the commit
	// checked out, <dir>.trees/<commit>; the bare clone is <dir>.git.
	dir string

	mu    sync.Mutex // serialises Sync
	smu   sync.Mutex // guards state
	state State
}

// New returns the Syncer of repo. It touches nothing on disk.
func New(repo Repo, opts Options) (*Syncer, error) {
	if opts.CacheDir == "" {
		return nil, errors.New("gitsync: no cache folder (state folder unknown: set SKILLSD_HOME)")
	}
	if repo.URL == "" {
		return nil, errors.New("gitsync: repository URL is empty")
	}
	if u, err := url.Parse(repo.URL); err == nil && u.User != nil {
		if _, hasPassword := u.User.Password(); hasPassword {
			return nil, fmt.Errorf("gitsync: repository %s: the URL must not embed credentials; use a token environment variable", Redact(repo.URL))
		}
	}
	if repo.Ref == "" {
		repo.Ref = "main"
	}
	if repo.TrustedKeys != "" {
		keys, err := openpgp.ReadArmoredKeyRing(strings.NewReader(repo.TrustedKeys))
		if err != nil || len(keys) == 0 {
			return nil, fmt.Errorf("gitsync: repository %s: the trusted keys are not an armored OpenPGP public key ring: %v", Redact(repo.URL), err)
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	defaults.Set(&opts.ProgressInterval, DefaultProgressInterval)
	return &Syncer{repo: repo, opts: opts, log: opts.Logger, dir: filepath.Join(opts.CacheDir, cacheName(repo.URL, repo.Ref))}, nil
}

// Repo returns the repository followed (the token included: do not log it).
func (s *Syncer) Repo() Repo { return s.repo }

// CheckoutDir is the checkout folder: its path stays the same from commit to
// commit (a symbolic link switched atomically to each new commit's tree).
func (s *Syncer) CheckoutDir() string { return s.dir }

// storeDir is the bare clone.
func (s *Syncer) storeDir() string { return s.dir + ".git" }

// treesDir holds one folder per commit checked out.
func (s *Syncer) treesDir() string { return s.dir + ".trees" }

// SkillsDir is the folder of the checkout that holds the skills (the
// worktree, or its Path sub-folder).
func (s *Syncer) SkillsDir() string {
	if s.repo.Path == "" {
		return s.dir
	}
	return filepath.Join(s.dir, filepath.FromSlash(strings.Trim(s.repo.Path, "/")))
}

// CheckedOut is the commit the checkout folder links to now, read from the
// folder itself ("" when there is none, or a checkout made by an earlier
// version): unlike State, it changes the moment a synchronisation switches
// the folder.
func (s *Syncer) CheckedOut() string { return s.current() }

// State returns what the Syncer knows about its checkout.
func (s *Syncer) State() State {
	s.smu.Lock()
	defer s.smu.Unlock()
	return s.state
}

// Open reads the checkout left by an earlier run, without touching the
// network, and reports its commit ("" when there is none or the cache is
// unusable). A checkout is only ever a complete tree: one that a killed
// process left half-written is not reported.
func (s *Syncer) Open() string {
	commit := s.current()
	if commit == "" {
		commit = s.legacyHead()
	}
	if commit == "" {
		return ""
	}
	if err := s.verifyCached(commit); err != nil {
		// Checked out before signatures were required, or tampered with:
		// never serve it. The next Sync checks out a verified commit.
		s.log.Warn("cached checkout is not signed by a trusted key: not serving it", "source", s.repo.Name, "error", err)
		_ = os.RemoveAll(s.dir) // the link to the tree (or an old-style checkout)
		return ""
	}
	s.smu.Lock()
	s.state.Commit = commit
	s.smu.Unlock()
	return commit
}

var fullHash = regexp.MustCompile(`^[0-9a-f]{40}$`)

// current is the commit the checkout folder links to, when its tree exists;
// "" otherwise.
func (s *Syncer) current() string {
	target, err := os.Readlink(s.dir)
	if err != nil {
		return ""
	}
	commit := filepath.Base(target)
	if !fullHash.MatchString(commit) {
		return ""
	}
	if info, err := os.Stat(filepath.Join(s.treesDir(), commit)); err != nil || !info.IsDir() {
		return ""
	}
	return commit
}

// legacyHead is the commit of a checkout made by an earlier version (a clone
// with its worktree in the checkout folder), which the next synchronisation
// converts; "" when there is none.
func (s *Syncer) legacyHead() string {
	if info, err := os.Lstat(s.dir); err != nil || !info.IsDir() {
		return ""
	}
	r, err := git.PlainOpen(s.dir)
	if err != nil {
		return ""
	}
	head, err := r.Head()
	if err != nil {
		return ""
	}
	if _, err := r.CommitObject(head.Hash()); err != nil {
		return ""
	}
	return head.Hash().String()
}

// Sync fetches the repository and checks out its ref, cloning it first when
// the cache holds no usable clone. On failure the previous checkout, if any,
// is left as it was and the error says why (it never contains the token).
func (s *Syncer) Sync(ctx context.Context) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.sync(ctx)
	s.smu.Lock()
	defer s.smu.Unlock()
	s.state.Err = err
	if err == nil {
		s.state.Commit, s.state.LastSync = res.Commit, res.SyncedAt
	}
	return res, err
}

func (s *Syncer) sync(ctx context.Context) (Result, error) {
	if err := os.MkdirAll(s.opts.CacheDir, 0o700); err != nil {
		return Result{}, fmt.Errorf("git source %s: creating the cache folder: %w", s.repo.Name, err)
	}
	unlock, err := lockFile(ctx, s.dir+".lock")
	if err != nil {
		return Result{}, fmt.Errorf("git source %s: locking the cache: %w", s.repo.Name, err)
	}
	defer unlock()

	if err := s.convertLegacy(); err != nil {
		return Result{}, err
	}
	var res Result
	prev := s.current()
	r, err := s.openCache()
	if err != nil {
		if !errors.Is(err, git.ErrRepositoryNotExists) {
			s.log.Warn("git cache unusable; cloning again", "source", s.repo.Name, "dir", s.storeDir(), "error", err)
		}
		if r, err = s.initCache(); err != nil {
			return Result{}, err
		}
		res.Cloned = true
	}
	res.Previous = prev

	verb := "fetching"
	if res.Cloned {
		verb = "cloning"
		s.log.Info("git source: cloning", "source", s.repo.Name, "url", Redact(s.repo.URL), "ref", s.repo.Ref)
	}
	prog := s.progress(verb)
	defer prog.stop()
	if err := s.fetch(ctx, r, prog); err != nil {
		if res.Cloned {
			// Leave no half-made clone behind: the next run clones again.
			_ = os.RemoveAll(s.storeDir())
		}
		return Result{}, err
	}
	hash, err := s.resolve(r)
	if err != nil {
		return Result{}, err
	}
	if err := s.verify(r, hash); err != nil {
		return Result{}, err
	}
	if prev != hash.String() {
		prog.phase("checking out")
		if err := s.checkout(ctx, r, hash, prev); err != nil {
			return Result{}, fmt.Errorf("git source %s: checking out %s: %w", s.repo.Name, s.repo.Ref, err)
		}
	}
	s.collect(hash.String(), prev)
	res.Commit = hash.String()
	res.FilesChanged = s.countChanges(r, prev, hash)
	res.SyncedAt = s.opts.Now()
	return res, nil
}

// openCache opens the bare clone. An error means it must be (re)created:
// missing (git.ErrRepositoryNotExists), or corrupted.
func (s *Syncer) openCache() (*git.Repository, error) {
	r, err := git.PlainOpen(s.storeDir())
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			if _, statErr := os.Stat(s.storeDir()); statErr == nil {
				return nil, fmt.Errorf("%s is not a git clone", s.storeDir())
			}
		}
		return nil, err
	}
	rem, err := r.Remote(git.DefaultRemoteName)
	if err != nil {
		return nil, fmt.Errorf("no origin remote: %w", err)
	}
	if urls := rem.Config().URLs; len(urls) != 1 || urls[0] != s.repo.URL {
		return nil, fmt.Errorf("the clone follows another URL")
	}
	// The commit checked out must still be readable (its objects intact).
	if prev := s.current(); prev != "" {
		c, err := r.CommitObject(plumbing.NewHash(prev))
		if err != nil {
			return nil, fmt.Errorf("reading the checked-out commit: %w", err)
		}
		if _, err := c.Tree(); err != nil {
			return nil, fmt.Errorf("reading the checked-out commit's tree: %w", err)
		}
	}
	return r, nil
}

// initCache wipes the bare clone and makes an empty one with an origin.
func (s *Syncer) initCache() (*git.Repository, error) {
	if err := os.RemoveAll(s.storeDir()); err != nil {
		return nil, fmt.Errorf("git source %s: clearing the cache: %w", s.repo.Name, err)
	}
	r, err := git.PlainInit(s.storeDir(), true)
	if err != nil {
		return nil, fmt.Errorf("git source %s: creating the cache: %w", s.repo.Name, err)
	}
	if _, err := r.CreateRemote(&gitconfig.RemoteConfig{Name: git.DefaultRemoteName, URLs: []string{s.repo.URL}}); err != nil {
		return nil, fmt.Errorf("git source %s: %w", s.repo.Name, err)
	}
	return r, nil
}

// fetch brings the branches and tags of the remote.
func (s *Syncer) fetch(ctx context.Context, r *git.Repository, prog *progress) error {
	err := r.FetchContext(ctx, &git.FetchOptions{
		Progress:   prog,
		RemoteName: git.DefaultRemoteName,
		RefSpecs: []gitconfig.RefSpec{
			"+refs/heads/*:refs/remotes/origin/*",
			"+refs/tags/*:refs/tags/*",
		},
		Auth:  s.auth(),
		Force: true,
		Prune: true,
	})
	if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
		return fmt.Errorf("git source %s: fetching %s: access denied (check the token): %w", s.repo.Name, Redact(s.repo.URL), err)
	}
	return fmt.Errorf("git source %s: fetching %s: %s", s.repo.Name, Redact(s.repo.URL), scrub(err.Error(), s.repo.Token))
}

// verifyCached is verify for the commit of a checkout left by an earlier run.
func (s *Syncer) verifyCached(commit string) error {
	if s.repo.TrustedKeys == "" {
		return nil
	}
	r, err := git.PlainOpen(s.storeDir())
	if err != nil {
		if r, err = git.PlainOpen(s.dir); err != nil { // a checkout of an earlier version
			return fmt.Errorf("git source %s: reading the cache: %w", s.repo.Name, err)
		}
	}
	return s.verify(r, plumbing.NewHash(commit))
}

// verify checks that a commit is signed by one of the trusted keys, when
// the repository has any (Repo.TrustedKeys).
func (s *Syncer) verify(r *git.Repository, hash plumbing.Hash) error {
	if s.repo.TrustedKeys == "" {
		return nil
	}
	c, err := r.CommitObject(hash)
	if err != nil {
		return fmt.Errorf("git source %s: reading commit %s: %w", s.repo.Name, hash, err)
	}
	short := hash.String()[:12]
	if strings.TrimSpace(c.PGPSignature) == "" {
		return fmt.Errorf("git source %s: commit %s is not signed, and this source serves only commits signed by a trusted key (require_signed): the last good commit keeps serving", s.repo.Name, short)
	}
	if !strings.Contains(c.PGPSignature, "BEGIN PGP SIGNATURE") {
		return fmt.Errorf("git source %s: commit %s is signed with something other than OpenPGP (SSH or X.509 signatures are not supported for require_signed): the last good commit keeps serving", s.repo.Name, short)
	}
	entity, err := c.Verify(s.repo.TrustedKeys)
	if err != nil {
		return fmt.Errorf("git source %s: commit %s is not signed by a trusted key (%v): the last good commit keeps serving", s.repo.Name, short, err)
	}
	for name := range entity.Identities {
		s.log.Debug("commit signature verified", "source", s.repo.Name, "commit", short, "key", name)
		break
	}
	return nil
}

// auth is the in-memory credential for the remote, if any.
func (s *Syncer) auth() transport.AuthMethod {
	if s.repo.Token == "" {
		return nil
	}
	if strings.HasPrefix(s.repo.URL, "http://") || strings.HasPrefix(s.repo.URL, "https://") {
		return &githttp.BasicAuth{Username: "x-access-token", Password: s.repo.Token}
	}
	return nil
}

var hexRef = regexp.MustCompile(`^[0-9a-fA-F]{7,40}$`)

// resolve turns the configured ref into a commit: a remote branch, a tag, or
// a commit hash (full or abbreviated).
func (s *Syncer) resolve(r *git.Repository) (plumbing.Hash, error) {
	ref := s.repo.Ref
	for _, name := range []string{"refs/remotes/origin/" + ref, "refs/tags/" + ref} {
		if h, err := r.ResolveRevision(plumbing.Revision(name)); err == nil {
			if c, err := r.CommitObject(*h); err == nil {
				return c.Hash, nil
			}
			// An annotated tag: peel it.
			if t, err := r.TagObject(*h); err == nil {
				if c, err := t.Commit(); err == nil {
					return c.Hash, nil
				}
			}
		}
	}
	if hexRef.MatchString(ref) {
		if h, err := r.ResolveRevision(plumbing.Revision(ref)); err == nil {
			if _, err := r.CommitObject(*h); err == nil {
				return *h, nil
			}
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("git source %s: ref %q is not a branch, tag or commit of %s", s.repo.Name, ref, Redact(s.repo.URL))
}

// countChanges counts the files that differ between two commits; all files
// of to when from is unknown.
func (s *Syncer) countChanges(r *git.Repository, from string, to plumbing.Hash) int {
	if from == to.String() {
		return 0
	}
	toCommit, err := r.CommitObject(to)
	if err != nil {
		return 0
	}
	toTree, err := toCommit.Tree()
	if err != nil {
		return 0
	}
	var fromTree *object.Tree
	if from != "" {
		if c, err := r.CommitObject(plumbing.NewHash(from)); err == nil {
			fromTree, _ = c.Tree()
		}
	}
	if fromTree == nil {
		n := 0
		_ = toTree.Files().ForEach(func(*object.File) error { n++; return nil })
		return n
	}
	changes, err := object.DiffTree(fromTree, toTree)
	if err != nil {
		return 0
	}
	return len(changes)
}

// cacheName is the cache sub-folder of a repository at a ref: a readable tail
// of the URL and a digest of URL and ref. Each ref gets its own clone, so
// that two sources following two branches of one repository (skills and
// docs, say) never fight over one worktree.
func cacheName(raw, ref string) string {
	sum := sha256.Sum256([]byte(raw + "\x00" + ref))
	tail := raw
	if i := strings.LastIndexAny(tail, "/:"); i >= 0 {
		tail = tail[i+1:]
	}
	tail = strings.TrimSuffix(tail, ".git")
	tail = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, tail)
	if len(tail) > 40 {
		tail = tail[:40]
	}
	if tail == "" {
		tail = "repo"
	}
	return tail + "-" + hex.EncodeToString(sum[:6])
}

// Redact returns a URL fit for logs and answers: without user information.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// scrub removes the token from a message, in case a library quotes it.
func scrub(msg, token string) string {
	if token == "" {
		return msg
	}
	return strings.ReplaceAll(msg, token, "***")
}
