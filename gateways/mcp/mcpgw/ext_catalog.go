package mcpgw

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/errgroup"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// surfaces serves what the MCP server offers beyond tools: the skills
// extension, one resource per skill file, one prompt per skill, and argument
// completion. They all read one index of the catalog, rebuilt whenever the
// catalog's snapshot changes: checked on every request that needs it (so
// answers are always fresh, whatever transport or mode), and pushed by
// CatalogChanged. A snapshot is known by its generation and build time (a
// remote skillsd that restarts counts generations anew), and a resync of the
// watch drops the index. Resources and prompts are registered with the SDK,
// which pages their lists; the catalog watch, not the SDK, tells sessions
// when they change (watch_catalog.go, watch_notify.go).
type surfaces struct {
	g      *gateway
	server *mcp.Server

	// buildMu serializes rebuilds and registration changes.
	buildMu sync.Mutex
	// mu guards idx, epoch and pending.
	mu  sync.Mutex
	idx *skillIndex
	// epoch counts the watch's resyncs: an index built in an earlier epoch
	// may describe another catalog (a remote skillsd that restarted, or
	// changes missed) and is neither served nor reused.
	epoch uint64
	// pending are the catalog changes heard and not applied yet, merged;
	// kick wakes the goroutine that applies them (started once).
	pending     *CatalogChange
	kick        chan struct{}
	startWorker sync.Once
	// asked says a client asked for resources, prompts or skills, even if
	// the index could not be built then (a skillsd whose first catalog was
	// still loading): the next change builds it, so that sessions hear of
	// it.
	asked atomic.Bool
}

// skillIndex is the catalog as the surfaces need it, at one generation.
type skillIndex struct {
	generation int64
	// builtAt is the service's build time of the snapshot at generation
	// (GetCatalogStatus's built_at); generations start over when a remote
	// skillsd restarts, build times do not come back. Zero when the index
	// was built after a watched change, which does not carry it: the first
	// status read at the same generation fills it in. Guarded by
	// surfaces.mu once the index is current.
	builtAt time.Time
	// epoch is the surfaces' epoch when the build started.
	epoch uint64
	// all are the skills by path.
	all map[string]*indexedSkill
	// folder are the SKILL.md skills the extension serves, sorted by path.
	folder []*indexedSkill
	byURI  map[string]*indexedSkill
	// prompts are the skills offered as prompts, by prompt name.
	prompts map[string]*indexedSkill
	// promptNames are the keys of prompts, sorted.
	promptNames []string
	// files are every file resource, sorted by rel, without duplicates.
	files []*indexedFile
	// fileByURI finds a file resource by URI.
	fileByURI map[string]*indexedFile
}

// indexedSkill is one skill of the index.
type indexedSkill struct {
	path         string
	name         string
	description  string
	argumentHint string
	uri          string // of its SKILL.md; "" for a tree skill
	frontmatter  map[string]any
	resources    []*SkillResource
	files        []*indexedFile
}

// indexedFile is one file resource: a file of a SKILL.md skill.
type indexedFile struct {
	rel       string // skill path + "/" + file path
	uri       string
	skillPath string
	file      string // relative to the skill's folder
	size      int64
	digest    string
	mime      string
}

// entry is the skill as skills/list and skills/get give it.
func (sk *indexedSkill) entry() *SkillEntry {
	return &SkillEntry{URI: sk.uri, Frontmatter: sk.frontmatter, Resources: sk.resources}
}

// resource is the file as resources/list gives it.
func (f *indexedFile) resource() *mcp.Resource {
	name := f.file
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	// No title or description: the URI says which skill and file it is, and
	// skills/list gives the digests; at thousands of files every byte of a
	// resources/list entry counts.
	return &mcp.Resource{URI: f.uri, Name: name, MIMEType: f.mime, Size: f.size}
}

// skillFileName is the file that makes a folder a skill.
const skillFileName = "SKILL.md"

// buildConcurrency bounds the calls to the service in flight during a rebuild.
const buildConcurrency = 8

// listPageSize is the page size of the ListSkills calls of a rebuild (the
// service's maximum).
const listPageSize = 1000

// current returns the index of the catalog's current generation, rebuilding
// it (and the registered resources and prompts) when the generation moved.
func (s *surfaces) current(ctx context.Context) (*skillIndex, error) {
	s.asked.Store(true)
	ctx, cancel := context.WithTimeout(ctx, s.g.Timeout)
	defer cancel()
	st, err := s.g.Catalog.GetCatalogStatus(ctx, &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		return nil, s.protocolError(err)
	}
	var builtAt time.Time
	if st.GetBuiltAt() != nil {
		builtAt = st.GetBuiltAt().AsTime()
	}
	if idx := s.serving(st.GetGeneration(), builtAt); idx != nil {
		return idx, nil
	}
	s.buildMu.Lock()
	defer s.buildMu.Unlock()
	if idx := s.serving(st.GetGeneration(), builtAt); idx != nil {
		return idx, nil
	}
	idx, err := s.rebuild(ctx, st.GetGeneration(), builtAt, nil)
	if err != nil {
		return nil, s.protocolError(err)
	}
	return idx, nil
}

// serving returns the current index if it describes the snapshot at
// generation gen built at builtAt, nil if it must be rebuilt: none yet, one
// from before a resync, another generation, or the same generation of
// another snapshot (a remote skillsd that restarted).
func (s *surfaces) serving(gen int64, builtAt time.Time) *skillIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := s.idx
	if idx == nil || idx.epoch != s.epoch || idx.generation != gen {
		return nil
	}
	if idx.builtAt.IsZero() {
		idx.builtAt = builtAt // built after a watched change to this generation
	} else if !idx.builtAt.Equal(builtAt) {
		return nil
	}
	return idx
}

// rebuild builds the index at generation gen (built at builtAt; zero:
// unknown), reusing the skills of the current one for which fresh answers
// false (nil: reuse none; nor after a resync), registers the difference with
// the SDK and makes it current. The caller holds buildMu.
func (s *surfaces) rebuild(ctx context.Context, gen int64, builtAt time.Time, fresh func(path string) bool) (*skillIndex, error) {
	s.mu.Lock()
	old, epoch := s.idx, s.epoch
	s.mu.Unlock()
	var reuse map[string]*indexedSkill
	if old != nil && fresh != nil && old.epoch == epoch {
		reuse = old.all
	}
	idx, err := s.build(ctx, gen, func(path string) *indexedSkill {
		if reuse == nil || fresh(path) {
			return nil
		}
		return reuse[path]
	})
	if err != nil {
		return nil, err
	}
	idx.builtAt, idx.epoch = builtAt, epoch
	s.register(old, idx)
	s.mu.Lock()
	s.idx = idx
	s.mu.Unlock()
	return idx, nil
}

// catalogChanged is the listener of the catalog watch (watch_catalog.go): it queues
// the change for the goroutine that applies changes in order, merging those
// that arrive while one is applied, and returns at once.
func (s *surfaces) catalogChanged(ctx context.Context, c CatalogChange) {
	if c.Empty() {
		return
	}
	s.mu.Lock()
	if s.pending == nil {
		s.pending = &CatalogChange{}
	}
	if c.Resync {
		// The index may describe another catalog: the next request
		// rebuilds it, even before the change below is applied.
		s.epoch++
	}
	p := s.pending
	if c.Resync {
		p.Generation = c.Generation // generations may start over after a resync
	} else {
		p.Generation = max(p.Generation, c.Generation)
	}
	p.Resync = p.Resync || c.Resync
	p.Added = append(p.Added, c.Added...)
	p.Changed = append(p.Changed, c.Changed...)
	p.Removed = append(p.Removed, c.Removed...)
	s.mu.Unlock()
	s.startWorker.Do(func() {
		s.kick = make(chan struct{}, 1)
		go s.applyChanges(ctx)
	})
	select {
	case s.kick <- struct{}{}:
	default: // already woken
	}
}

// applyChanges applies the queued changes until ctx (the watch's) ends.
func (s *surfaces) applyChanges(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		}
		s.mu.Lock()
		c := s.pending
		s.pending = nil
		s.mu.Unlock()
		if c != nil {
			s.apply(ctx, *c)
		}
	}
}

// apply brings the index, and the registered resources and prompts, up to
// date after a change, so that the next lists are quick: only the skills the
// change names are read again (and the skills holding them, whose files
// include a nested skill's). Nothing is done before some client asked for
// resources, prompts or skills: the first request builds the index. Errors
// are logged: the next request tries again.
func (s *surfaces) apply(ctx context.Context, c CatalogChange) {
	if s.loaded() == nil && !s.asked.Load() {
		return
	}
	var fresh func(string) bool
	if !c.Resync {
		touched := slices.Concat(c.Added, c.Changed, c.Removed)
		fresh = func(path string) bool {
			for _, p := range touched {
				if p == path || strings.HasPrefix(p, path+"/") {
					return true
				}
			}
			return false
		}
	}
	s.buildMu.Lock()
	defer s.buildMu.Unlock()
	// A resync may come from another server (a remote skillsd restarted)
	// whose generations count anew: it always rebuilds, and so does any
	// change while the index is from before a resync.
	s.mu.Lock()
	idx, epoch := s.idx, s.epoch
	s.mu.Unlock()
	if !c.Resync && idx != nil && idx.epoch == epoch && idx.generation >= c.Generation {
		return
	}
	if _, err := s.rebuild(ctx, c.Generation, time.Time{}, fresh); err != nil && ctx.Err() == nil {
		s.g.Log.Warn("updating MCP resources and prompts after a catalog change", "error", err)
	}
}

func (s *surfaces) loaded() *skillIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.idx
}

// protocolError maps an error of the service to the error of a non-tool
// method, with the message a tool error would carry; the cause is logged.
func (s *surfaces) protocolError(err error) error {
	s.g.Log.Warn("reading the catalog for MCP resources, prompts or skills", "error", err)
	return errors.New(core.ErrorMessage(err, "", s.g.Has))
}

// build reads the catalog at generation gen: the list of skills, and each
// skill's frontmatter and files, except for those reuse returns.
func (s *surfaces) build(ctx context.Context, gen int64, reuse func(path string) *indexedSkill) (*skillIndex, error) {
	var listed []*skillsv1.Skill
	token := ""
	for {
		resp, err := s.g.Catalog.ListSkills(ctx, &skillsv1.ListSkillsRequest{PageSize: listPageSize, PageToken: token})
		if err != nil {
			return nil, err
		}
		listed = append(listed, resp.GetSkills()...)
		if token = resp.GetNextPageToken(); token == "" {
			break
		}
	}
	skills := make([]*indexedSkill, len(listed))
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(buildConcurrency)
	for i, l := range listed {
		if old := reuse(l.GetSkillPath()); old != nil {
			skills[i] = old
			continue
		}
		eg.Go(func() error {
			sk, err := s.readSkill(ectx, l)
			if err != nil {
				return err
			}
			skills[i] = sk
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	idx := &skillIndex{
		generation: gen,
		all:        map[string]*indexedSkill{},
		byURI:      map[string]*indexedSkill{},
		prompts:    map[string]*indexedSkill{},
		fileByURI:  map[string]*indexedFile{},
	}
	for i, sk := range skills {
		if sk == nil {
			continue // gone since it was listed
		}
		l := listed[i]
		idx.all[sk.path] = sk
		if sk.uri != "" {
			idx.folder = append(idx.folder, sk)
			idx.byURI[sk.uri] = sk
		}
		// Prompts: skills the model may use (disable-model-invocation
		// skills, and skills without a description, are left out); on a
		// name clash the first skill in path order keeps the name.
		if l.GetRoutable() && sk.name != "" && idx.prompts[sk.name] == nil {
			idx.prompts[sk.name] = sk
			idx.promptNames = append(idx.promptNames, sk.name)
		}
		for _, f := range sk.files {
			if idx.fileByURI[f.uri] == nil { // a nested skill's files are its parent's too
				idx.fileByURI[f.uri] = f
				idx.files = append(idx.files, f)
			}
		}
	}
	sort.Slice(idx.folder, func(i, j int) bool { return idx.folder[i].path < idx.folder[j].path })
	sort.Slice(idx.files, func(i, j int) bool { return idx.files[i].rel < idx.files[j].rel })
	sort.Strings(idx.promptNames)
	return idx, nil
}

// readSkill loads one listed skill: its frontmatter and files, and for a
// SKILL.md skill the digest of its SKILL.md. A skill gone since it was listed
// gives nil.
func (s *surfaces) readSkill(ctx context.Context, l *skillsv1.Skill) (*indexedSkill, error) {
	resp, err := s.g.Catalog.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: l.GetSkillPath()})
	if core.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sk := &indexedSkill{
		path:         l.GetSkillPath(),
		name:         l.GetName(),
		description:  l.GetDescription(),
		argumentHint: l.GetArgumentHint(),
	}
	if l.GetLayout() != skillsv1.Layout_LAYOUT_FOLDER {
		return sk, nil // the extension serves SKILL.md folders only
	}
	if _, err := parseSkillURI(skillURI(sk.path + "/" + skillFileName)); err != nil || !validURIPath(sk.path) {
		s.g.Log.Warn("skill left out of the MCP skills extension: its path cannot be a skill:// URI", "skill", sk.path)
		return sk, nil
	}
	// The SKILL.md itself is not among the skill's files: the answer
	// carries its size and digest apart (skill_file).
	head := resp.GetSkillFile()
	if head.GetDigest() == "" {
		// A skillsd that did not hash it (or older than the field): a
		// one-byte read tells, as the service hashes the whole file.
		r, err := s.g.Files.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{SkillPath: sk.path, File: skillFileName, MaxBytes: 1})
		if core.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		head = &skillsv1.SkillFile{SizeBytes: r.GetSizeBytes(), Digest: r.GetDigest()}
	}
	sk.uri = skillURI(sk.path + "/" + skillFileName)
	sk.frontmatter = resp.GetFrontmatter().AsMap()
	files := []*indexedFile{{
		rel: sk.path + "/" + skillFileName, uri: sk.uri, skillPath: sk.path, file: skillFileName,
		size: head.GetSizeBytes(), digest: head.GetDigest(), mime: "text/markdown",
	}}
	for _, f := range resp.GetFiles() {
		if f.GetPath() == skillFileName {
			continue
		}
		rel := sk.path + "/" + f.GetPath()
		files = append(files, &indexedFile{
			rel: rel, uri: skillURI(rel), skillPath: sk.path, file: f.GetPath(),
			size: f.GetSizeBytes(), digest: f.GetDigest(), mime: f.GetMimeType(),
		})
	}
	sk.resources = make([]*SkillResource, 0, len(files))
	for _, f := range files {
		sk.resources = append(sk.resources, &SkillResource{URI: f.uri, Digest: f.digest, Size: f.size})
	}
	sk.files = files
	return sk, nil
}

// validURIPath reports whether every segment of a skill path can stand in a
// skill:// URI and come back unchanged.
func validURIPath(p string) bool {
	rel, err := parseSkillURI(skillURI(p))
	return err == nil && rel == p
}

// register brings the SDK's resources and prompts from old (nil at first)
// to idx. The SDK's own list-changed notifications are dropped (watch_notify.go):
// sessions hear of catalog changes from the watch, once per change, and a
// first list changes nothing they could have known.
func (s *surfaces) register(old, idx *skillIndex) {
	if old == nil {
		old = &skillIndex{fileByURI: map[string]*indexedFile{}, prompts: map[string]*indexedSkill{}}
	}
	if gone := missing(old.fileByURI, idx.fileByURI); len(gone) > 0 {
		s.server.RemoveResources(gone...)
	}
	for _, f := range idx.files {
		if o := old.fileByURI[f.uri]; o == nil || *o != *f {
			s.server.AddResource(f.resource(), s.readResource)
		}
	}
	if gone := missing(old.prompts, idx.prompts); len(gone) > 0 {
		s.server.RemovePrompts(gone...)
	}
	for _, name := range idx.promptNames {
		sk := idx.prompts[name]
		if o := old.prompts[name]; o == nil || o.path != sk.path || o.description != sk.description || o.argumentHint != sk.argumentHint {
			s.server.AddPrompt(skillPrompt(sk), s.getPrompt)
		}
	}
}

// locateURI finds the skill and file of a skill:// URI in the current
// catalog.
func (s *surfaces) locateURI(ctx context.Context, uri string) (skillPath, file string, ok bool) {
	idx, err := s.current(ctx)
	if err != nil {
		return "", "", false
	}
	return idx.locate(uri)
}

// gatedMethods are the methods whose answer depends on the registered
// resources and prompts: the index is brought up to date before each.
var gatedMethods = []string{
	"prompts/list", "prompts/get", "resources/list", "resources/read",
	"resources/templates/list", "completion/complete",
}

// middleware brings the index up to date before the gated methods, so that
// the SDK answers them from the current catalog.
func (s *surfaces) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if slices.Contains(gatedMethods, method) {
			if _, err := s.current(ctx); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}

// configure sets what the surfaces add to the server's options: the
// capabilities (resources and prompts are registered lazily, so the SDK
// cannot infer them) and the completion handler. listChanged is declared
// only with a catalog watch: without one, nothing tells the server that the
// catalog changed (each request still reads the current catalog).
func (s *surfaces) configure(opts *mcp.ServerOptions) {
	if opts.Capabilities == nil {
		opts.Capabilities = &mcp.ServerCapabilities{}
	}
	watched := s.g.watch != nil
	opts.Capabilities.Prompts = &mcp.PromptCapabilities{ListChanged: watched}
	opts.Capabilities.Resources = &mcp.ResourceCapabilities{ListChanged: watched}
	opts.Capabilities.Completions = &mcp.CompletionCapabilities{}
	// logging/setLevel is answered (hosts and the conformance suite send
	// it); the server logs to stderr, not to the client.
	//lint:ignore SA1019 deprecated from 2026-07-28 on, still sent by hosts and the conformance suite on earlier versions
	opts.Capabilities.Logging = cmp.Or(opts.Capabilities.Logging, &mcp.LoggingCapabilities{})
	opts.Capabilities.AddExtension(SkillsExtension, extensionSettings())
	opts.CompletionHandler = s.complete
}

// install adds the surfaces to a server built with options that went
// through configure.
func (s *surfaces) install(server *mcp.Server) error {
	s.server = server
	// Catalog changes: applied in order on a goroutine of their own, since
	// listeners must return quickly.
	s.g.OnCatalogChange(s.catalogChanged)
	server.AddReceivingMiddleware(s.middleware)
	server.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: skillTemplate,
		Name:        "skill-file",
		Title:       "A file of a skill",
		Description: "Any file of a skill's folder: skill://<skill_path>/<file>, like skill://pdf/SKILL.md or skill://pdf/scripts/fill.py.",
	}, s.readResource)
	return s.addSkillsExtension(server)
}

// missing returns the keys of old that cur does not have, in no order.
func missing[V any](old, cur map[string]V) []string {
	var out []string
	for k := range old {
		if _, ok := cur[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}
