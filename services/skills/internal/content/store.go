package content

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/defaults"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// DefaultMaxAge is how long a listing is reused before the folders are read
// again when Options.MaxAge is zero.
const DefaultMaxAge = 2 * time.Second

// Options configures a Store.
type Options struct {
	// Agents is the agents folder; a zero Folder means none is configured.
	Agents Folder
	// Docs is the documentation folder; a zero Folder means none.
	Docs Folder
	// MaxAge is how long an index is reused before the folder is read again
	// (so that edits show without a watcher); zero means DefaultMaxAge.
	MaxAge time.Duration
	// Now returns the time; nil means time.Now.
	Now func() time.Time
	// Logger receives the log; nil discards it.
	Logger *slog.Logger
}

// Store serves agents and docs from their folders. Listings come from an
// index read at most every MaxAge; gets read the file itself, so content and
// sha are always current. It is safe for concurrent use.
type Store struct {
	opts Options
	log  *slog.Logger

	mu         sync.Mutex
	agents     []Agent
	agentDiags []Diagnostic
	agentsAt   time.Time
	pages      []DocPage
	tree       DocTree
	docDiags   []Diagnostic
	docsAt     time.Time
}

// New returns a Store over opts's folders. It reads nothing yet.
func New(opts Options) *Store {
	defaults.Set(&opts.MaxAge, DefaultMaxAge)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Agents.Kind == "" {
		opts.Agents.Kind = "agents"
	}
	if opts.Docs.Kind == "" {
		opts.Docs.Kind = "docs"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Store{opts: opts, log: log}
}

// Reload forgets the indexes: the next listing reads the folders again.
func (s *Store) Reload() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.agentsAt, s.docsAt = time.Time{}, time.Time{}
}

// ListAgents returns the agent profiles, sorted by name (never nil), and the
// files left out of the list because they cannot be read as profiles (a FIFO
// named x.md, a link leading outside the folder, …). Listing never blocks
// on such a file.
func (s *Store) ListAgents(ctx context.Context) ([]Agent, []Diagnostic, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	agents, err := s.agentsLocked(false)
	return agents, s.agentDiags, err
}

func (s *Store) agentsLocked(fresh bool) ([]Agent, error) {
	now := s.opts.Now()
	if !fresh && s.agents != nil && now.Sub(s.agentsAt) < s.opts.MaxAge {
		return s.agents, nil
	}
	agents, shadowed, diags, err := scanAgents(s.opts.Agents)
	if err != nil {
		return nil, failure.New(failure.Internal, "", "reading the agents folder").Wrap(err)
	}
	for _, p := range shadowed {
		s.log.Warn("agent profile left out: another profile has the same name", "path", p)
	}
	for _, d := range diags {
		s.log.Warn("agent profile left out", "path", d.Path, "why", d.Message)
	}
	s.agents, s.agentDiags, s.agentsAt = agents, diags, now
	return agents, nil
}

// GetAgent reads one profile: the file <name>.md of the agents folder, else
// the profile whose frontmatter name is name (case-insensitive). fresh reads
// the folder again first.
func (s *Store) GetAgent(ctx context.Context, name string, fresh bool) (AgentFile, error) {
	if err := CheckSegment("name", name); err != nil {
		return AgentFile{}, err
	}
	folder := s.opts.Agents
	if err := s.refresh(ctx, folder, fresh); err != nil {
		return AgentFile{}, err
	}
	if folder.Dir == "" {
		return AgentFile{}, failure.New(failure.NotFound, "AGENT_NOT_FOUND",
			"agent %q not found: this server has no agents folder (set AGENTS_DIR or content.agents_dir)", name).With("name", name)
	}
	root, err := folder.rule()
	if err != nil {
		return AgentFile{}, failure.New(failure.Internal, "", "opening the agents folder").Wrap(err)
	}
	if root == nil {
		return AgentFile{}, s.agentNotFound(name, nil)
	}

	file := name
	if !strings.EqualFold(path.Ext(file), ".md") {
		file += ".md"
	}
	var data []byte
	err = fs.ErrNotExist
	if !strings.Contains(name, "/") { // profiles are the folder's own files
		data, err = readWhole(root, file)
	}
	if errors.Is(err, fs.ErrNotExist) {
		// Not a file name: look the name up among the profiles.
		s.mu.Lock()
		agents, lerr := s.agentsLocked(fresh)
		s.mu.Unlock()
		if lerr != nil {
			return AgentFile{}, lerr
		}
		var found *Agent
		for i := range agents {
			if strings.EqualFold(agents[i].Name, name) {
				found = &agents[i]
				break
			}
		}
		if found == nil {
			return AgentFile{}, s.agentNotFound(name, agents)
		}
		file = found.File
		data, err = readWhole(root, file)
	}
	if err != nil {
		return AgentFile{}, readError(folder, name, file, err)
	}
	a := agentFromFile(folder, file, data)
	return AgentFile{Name: a.Name, Content: string(data), Path: a.Path, SHA: BlobSHA(data)}, nil
}

// agentNotFound is the not-found error of GetAgent, listing what exists.
func (s *Store) agentNotFound(name string, agents []Agent) error {
	names := make([]string, 0, 10)
	for i, a := range agents {
		if i == 10 {
			names = append(names, "…")
			break
		}
		names = append(names, a.Name)
	}
	msg := "agent %q not found"
	if len(names) > 0 {
		msg += "; agents: " + strings.Join(names, ", ")
	}
	return failure.New(failure.NotFound, "AGENT_NOT_FOUND", msg, name).With("name", name).With("path", s.opts.Agents.display(name+".md"))
}

// DocIndex is the documentation as listed.
type DocIndex struct {
	// Pages are sorted by path (never nil).
	Pages []DocPage
	// Tree is the hierarchy; it is shared: callers must not change it.
	Tree DocTree
	// Diagnostics are the files left out because they cannot be read as
	// pages (a FIFO named x.md, a link leading outside the folder, …).
	Diagnostics []Diagnostic
}

// ListDocs returns the pages and the hierarchy. Listing never blocks on a
// FIFO or device named like a page.
func (s *Store) ListDocs(ctx context.Context) (DocIndex, error) {
	if err := ctx.Err(); err != nil {
		return DocIndex{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Now()
	if s.pages != nil && now.Sub(s.docsAt) < s.opts.MaxAge {
		return DocIndex{Pages: s.pages, Tree: s.tree, Diagnostics: s.docDiags}, nil
	}
	pages, tree, diags, err := scanDocs(s.opts.Docs)
	if err != nil {
		return DocIndex{}, failure.New(failure.Internal, "", "reading the docs folder").Wrap(err)
	}
	for _, d := range diags {
		s.log.Warn("documentation page left out", "path", d.Path, "why", d.Message)
	}
	s.pages, s.tree, s.docDiags, s.docsAt = pages, tree, diags, now
	return DocIndex{Pages: pages, Tree: tree, Diagnostics: diags}, nil
}

// GetDoc reads the page at segments with the index.md convention
// (DocCandidates). The page is read from disk on every call; fresh first
// refreshes a folder that has an origin (Folder.Refresh).
func (s *Store) GetDoc(ctx context.Context, segments []string, fresh bool) (DocFile, error) {
	candidates, joined, err := DocCandidates(segments)
	if err != nil {
		return DocFile{}, err
	}
	folder := s.opts.Docs
	if err := s.refresh(ctx, folder, fresh); err != nil {
		return DocFile{}, err
	}
	notFound := func() error {
		msg := "documentation page %q not found (tried %s)"
		if folder.Dir == "" {
			msg = "documentation page %q not found: this server has no docs folder (set DOCS_DIR or content.docs_dir); tried %s"
		}
		shown := make([]string, len(candidates))
		for i, c := range candidates {
			shown[i] = folder.display(c)
		}
		return failure.New(failure.NotFound, "DOC_NOT_FOUND", msg, joined, strings.Join(shown, ", ")).With("path", folder.display(joined))
	}
	root, err := folder.rule()
	if err != nil {
		return DocFile{}, failure.New(failure.Internal, "", "opening the docs folder").Wrap(err)
	}
	if root == nil {
		return DocFile{}, notFound()
	}
	for _, c := range candidates {
		data, err := readWhole(root, c)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return DocFile{}, readError(folder, joined, c, err)
		}
		return DocFile{Path: joined, Content: string(data), FilePath: folder.display(c), SHA: BlobSHA(data)}, nil
	}
	return DocFile{}, notFound()
}

// refresh is ctx's error when it has ended; else it brings folder up to
// date when fresh is set and it has an origin, and the listings are read
// again afterwards.
func (s *Store) refresh(ctx context.Context, folder Folder, fresh bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !fresh || folder.Refresh == nil {
		return nil
	}
	if err := folder.Refresh(ctx); err != nil {
		return err
	}
	s.Reload()
	return nil
}

// readError maps a failed read of file (relative to folder) to the caller's
// error.
func readError(folder Folder, name, file string, err error) error {
	var big errTooLarge
	switch {
	case errors.As(err, &big):
		return failure.New(failure.ResourceExhausted, "FILE_TOO_LARGE", "%s is %d bytes; at most %d are served", folder.display(file), big.size, MaxFileBytes).
			With("path", folder.display(file))
	case errors.Is(err, fs.ErrNotExist):
		return failure.New(failure.NotFound, "", "%s %q not found", strings.TrimSuffix(folder.Kind, "s"), name).With("path", folder.display(file))
	default:
		// A symlink leading out of the folder or in a loop, a FIFO or device.
		return failure.New(failure.InvalidArgument, "INVALID_PATH", "%s %s: it is not served from the %s folder", folder.display(file), describeReadError(err), folder.Kind).
			With("path", folder.display(file)).Wrap(err)
	}
}
