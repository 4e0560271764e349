package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// The fleet test's figures: how long the mixed traffic runs by default
// (FLEET_SECONDS overrides it), how long one call may take, and how long
// the fleet may take to catch up with a push and to store every event.
const (
	fleetDefaultSeconds = 30
	fleetCallTimeout    = 20 * time.Second
	fleetCatchUpWithin  = 30 * time.Second
	fleetStoredWithin   = 60 * time.Second
	// fleetMinShare is the least share of the handled RPCs each replica
	// must have served (the restarted one counted from its restart): round
	// robin over three gives each about a third.
	fleetMinShare = 0.10
)

// The skills of the pinned ref: the ones the workers load, and the one the
// second commit adds, found by a word no other skill has.
var (
	fleetSkills   = []string{"pdf", "docx", "xlsx", "pptx"}
	fleetQueries  = []string{"fill PDF forms", "edit Word documents", "spreadsheet formulas", "slide decks"}
	fleetNewSkill = "zebra"
	fleetNewWord  = "zebracrossing"
)

// fleetReplica is one skillsd of the fleet: its addresses, picked once so
// that a restart comes back on the same ones, its own state folder, and the
// process serving now.
type fleetReplica struct {
	name        string
	grpcAddr    string
	metricsAddr string
	config      string
	home        string
	proc        *process
	direct      *skillsclient.Client // this replica alone, for status and refresh
}

// start starts the replica and waits until it is ready (its catalog
// loaded from the ref).
func (r *fleetReplica) start(t *testing.T, bin string) error {
	r.proc = startEnv(t, []string{"SKILLSD_HOME=" + r.home, "USER=e2e"}, bin,
		"--grpc", r.grpcAddr, "--metrics", r.metricsAddr, "--config", r.config)
	if err := r.proc.waitReady(t, func(ctx context.Context) error { return grpcReady(ctx, r.grpcAddr) }); err != nil {
		return fmt.Errorf("replica %s: %w", r.name, err)
	}
	return nil
}

// fleetTally counts the calls of the traffic: per surface and operation
// those answered and those that failed, the usage events the answered ones
// made (by type), and the query of every answered search (each unique, so
// that its event can be found in the database).
type fleetTally struct {
	mu       sync.Mutex
	ok       map[string]int
	failed   map[string]int
	failures []string
	events   map[string]int
	queries  map[string]bool
}

func newFleetTally() *fleetTally {
	return &fleetTally{ok: map[string]int{}, failed: map[string]int{}, events: map[string]int{}, queries: map[string]bool{}}
}

// done records one call of op (such as "rest search"): err nil means it was
// answered, and then it made the events of eventType (none when empty)
// and, for a search, one event whose query is query.
func (f *fleetTally) done(op, eventType, query string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.failed[op]++
		if len(f.failures) < 20 {
			f.failures = append(f.failures, fmt.Sprintf("%s %s: %v", time.Now().UTC().Format("15:04:05.000"), op, err))
		}
		return
	}
	f.ok[op]++
	if eventType != "" {
		f.events[eventType]++
	}
	if query != "" {
		f.queries[query] = true
	}
}

func (f *fleetTally) sums() (ok, failed, events int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.ok {
		ok += n
	}
	for _, n := range f.failed {
		failed += n
	}
	for _, n := range f.events {
		events += n
	}
	return ok, failed, events
}

// fleetSeconds is FLEET_SECONDS, else the default.
func fleetSeconds(t *testing.T) time.Duration {
	t.Helper()
	s := os.Getenv("FLEET_SECONDS")
	if s == "" {
		return fleetDefaultSeconds * time.Second
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 6 {
		t.Fatalf("FLEET_SECONDS=%q: want a whole number of seconds, 6 or more", s)
	}
	return time.Duration(n) * time.Second
}

// TestFleet is issue 22's proof on one machine: three skillsd replicas
// serving one bare git repository at a pinned ref (branch release), sharing
// a PostgreSQL usage store, behind skills-rest --server and skills-mcp
// --server over all three, and the Go client dialing all three. Mixed
// traffic runs on the three surfaces (FLEET_SECONDS, 30 by default) while
// one replica is killed (SIGKILL) at a third of the run and restarted on
// the same address, and a commit is pushed to the ref at two thirds and
// refreshed on every replica. No call may fail; every replica ends on the
// same new catalog identity; the database holds one event per
// event-making call, each once; and each replica served its share.
func TestFleet(t *testing.T) {
	skipShort(t)
	gitBin, err := exec.LookPath("git")
	if err != nil {
		missingTool(t, "TestFleet needs the git command (to make the bare repository and push to it)")
	}
	dbURL := skillstest.PostgresDatabase(t)
	db := skillstest.OpenPostgres(t, dbURL)
	run := fleetSeconds(t)

	// The repository: commits made in a work tree, pushed to a bare
	// repository at refs/heads/release, the ref every replica serves.
	work := skillstest.NewGitRepo(t)
	first := map[string]string{}
	for i, name := range fleetSkills {
		first["skills/"+name+"/SKILL.md"] = skillstest.SkillMD(name, fleetQueries[i]+" for the fleet")
	}
	c1 := work.Commit("four skills", first)
	bare := filepath.Join(t.TempDir(), "skills.git")
	gitRun(t, gitBin, "", "init", "--bare", "--quiet", bare)
	gitRun(t, gitBin, work.Dir(), "push", "--quiet", bare, "HEAD:refs/heads/release")

	replicas := make([]*fleetReplica, 3)
	for i := range replicas {
		r := &fleetReplica{name: string(rune('a' + i)), home: t.TempDir()}
		r.config = filepath.Join(t.TempDir(), "config.yaml")
		yaml := fmt.Sprintf("sources:\n  - git: {url: %q, ref: release, path: skills}\n"+
			"analytics:\n  enabled: true\n  store: %q\n  flush_interval_seconds: 1\n  server_id: fleet-%s\n",
			"file://"+filepath.ToSlash(bare), dbURL, r.name)
		if err := os.WriteFile(r.config, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		replicas[i] = r
	}
	skillsd := binary(t, "skillsd")
	var wg sync.WaitGroup
	fleetStart(t, &wg, replicas, skillsd)
	var addrs []string
	for _, r := range replicas {
		addrs = append(addrs, r.grpcAddr)
	}
	for _, r := range replicas {
		r.direct = skillsclient.New(dialGRPC(t, r.grpcAddr))
	}
	oldID := fleetCatalogIDs(t, replicas, c1)

	fleet := strings.Join(addrs, ",")
	_, restAddr := startOnFreePort(t, binary(t, "skills-rest"),
		func(addr string) []string { return []string{"--server", fleet, "--http", addr} }, httpReady("/readyz"))
	_, mcpAddr := startOnFreePort(t, binary(t, "skills-mcp"),
		func(addr string) []string { return []string{"--server", fleet, "--http", addr} }, httpReady("/readyz"))
	conn, err := skillsclient.Dial(fleet, skillsclient.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	surfaces := &fleetSurfaces{
		grpc: skillsclient.New(conn),
		rest: "http://" + restAddr,
		http: &http.Client{Timeout: fleetCallTimeout},
	}
	for range 2 {
		surfaces.mcp = append(surfaces.mcp, fleetMCPSession(t, "http://"+mcpAddr+"/mcp"))
	}

	// The traffic: two workers per surface, each call followed by a short
	// pause (the CI machine has two cores, shared with five servers).
	tally := newFleetTally()
	stop := make(chan struct{})
	var seq atomic.Int64
	workers := []func(session, n int){
		func(_, n int) { surfaces.grpcCall(t, tally, n) },
		func(_, n int) { surfaces.restCall(t, tally, n) },
		func(session, n int) { surfaces.mcpCall(t, tally, session, n) },
	}
	began := time.Now()
	for w := range 2 * len(workers) {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(15 * time.Millisecond):
				}
				workers[w%len(workers)](w/len(workers), int(seq.Add(1)))
			}
		})
	}
	sleepUntil(t, began.Add(run/3))

	// A third of the way: SIGKILL one replica; it comes back on the same
	// addresses and the same state folder (its spool) a moment later.
	victim := replicas[1]
	before := fleetHandled(t, victim)
	if before == 0 {
		t.Errorf("replica %s handled no skills.v1 RPC in the first third of the traffic", victim.name)
	}
	if err := victim.proc.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-victim.proc.exited
	killedAt := time.Now()
	time.Sleep(time.Second)
	if err := victim.start(t, skillsd); err != nil {
		t.Fatalf("restart after SIGKILL: %v", err)
	}
	t.Logf("replica %s: SIGKILL at %v into the traffic, after handling %.0f RPCs; serving again %v later", victim.name,
		killedAt.Sub(began).Round(time.Millisecond), before, time.Since(killedAt).Round(time.Millisecond))
	sleepUntil(t, began.Add(2*run/3))

	// Two thirds of the way: a commit that changes one skill and adds one
	// is pushed to the ref, and every replica is asked to refresh.
	c2 := work.Commit("a new skill, a changed one", map[string]string{
		"skills/" + fleetNewSkill + "/SKILL.md": skillstest.SkillMD(fleetNewSkill, fleetNewWord+" safety for the fleet"),
		"skills/pdf/SKILL.md":                   skillstest.SkillMD("pdf", fleetQueries[0]+" and sign them"),
	})
	gitRun(t, gitBin, work.Dir(), "push", "--quiet", bare, "HEAD:refs/heads/release")
	pushed := time.Now()
	for _, r := range replicas {
		wg.Go(func() { fleetRefresh(t, tally, r) })
	}
	waitFor(t, fleetCatchUpWithin, "every replica serves the pushed commit", func() error {
		for _, r := range replicas {
			ctx, cancel := context.WithTimeout(t.Context(), fleetCallTimeout)
			st, err := r.direct.Status(ctx)
			cancel()
			if err != nil {
				return fmt.Errorf("replica %s: %v", r.name, err)
			}
			if st.GetCatalogId() == oldID || fleetCommit(st) != c2 {
				return fmt.Errorf("replica %s: catalog %s at commit %s", r.name, st.GetCatalogId(), fleetCommit(st))
			}
		}
		return nil
	})
	caughtUp := time.Since(pushed)
	waitFor(t, fleetCatchUpWithin, "a search on every surface finds the new skill", func() error {
		return surfaces.findNew(t, tally, int(seq.Add(1)))
	})
	seen := time.Since(pushed)
	sleepUntil(t, began.Add(run))
	close(stop)
	wg.Wait()
	ran := time.Since(began)

	// Every replica ends on the same catalog, the new one.
	newID := fleetCatalogIDs(t, replicas, c2)
	if newID == oldID {
		t.Errorf("the catalog identity did not change with the push: %s", newID)
	}

	// The calls: none failed.
	ok, failed, made := tally.sums()
	for _, op := range slices.Sorted(maps.Keys(tally.ok)) {
		t.Logf("calls: %-16s %6d answered, %d failed", op, tally.ok[op], tally.failed[op])
	}
	t.Logf("calls: %d answered, %d failed, in %v; events made: %v", ok, failed, ran.Round(time.Millisecond), tally.events)
	t.Logf("push to every replica on the new commit: %v; to a search on every surface finding the new skill: %v",
		caughtUp.Round(time.Millisecond), seen.Round(time.Millisecond))
	for _, f := range tally.failures {
		t.Errorf("a call failed: %s", f)
	}
	if failed > 0 {
		t.Errorf("%d of %d calls failed, want none", failed, ok+failed)
	}
	for _, op := range []string{"grpc search", "grpc get", "grpc list", "rest search", "rest get", "rest list", "mcp search_skills", "mcp load_skill"} {
		if tally.ok[op] == 0 {
			t.Errorf("no %s call was answered", op)
		}
	}

	// The database: one event per event-making call, each once.
	fleetCheckEvents(t, db, replicas, tally, made)

	// The metrics: each replica served its share of the RPCs.
	fleetCheckShares(t, replicas, victim)
}

// fleetSurfaces are the three ways in: the Go client over the three
// replicas, skills-rest and skills-mcp (one session per MCP worker).
type fleetSurfaces struct {
	grpc *skillsclient.Client
	rest string
	http *http.Client
	mcp  []*mcp.ClientSession
}

// grpcCall makes the n-th call of a gRPC worker: a search, a get or a list.
func (s *fleetSurfaces) grpcCall(t *testing.T, tally *fleetTally, n int) {
	ctx, cancel := context.WithTimeout(t.Context(), fleetCallTimeout)
	defer cancel()
	switch n % 3 {
	case 0:
		q := fleetQuery(n)
		_, err := s.grpc.Search(ctx, q, skillsclient.SearchOptions{})
		tally.done("grpc search", "search", q, err)
	case 1:
		_, err := s.grpc.Skill(ctx, fleetSkills[n%len(fleetSkills)])
		tally.done("grpc get", "skill_served", "", err)
	default:
		resp, err := s.grpc.SkillsPage(ctx, skillsclient.ListOptions{}, "")
		if err == nil && resp.GetTotalSize() < int32(len(fleetSkills)) {
			err = fmt.Errorf("%d skills listed, want %d or more", resp.GetTotalSize(), len(fleetSkills))
		}
		tally.done("grpc list", "", "", err)
	}
}

// restCall makes the n-th call of a REST worker.
func (s *fleetSurfaces) restCall(t *testing.T, tally *fleetTally, n int) {
	switch n % 3 {
	case 0:
		q := fleetQuery(n)
		_, err := s.restSearch(t, q)
		tally.done("rest search", "search", q, err)
	case 1:
		_, err := s.restDo(t, http.MethodGet, "/v1/skills/"+fleetSkills[n%len(fleetSkills)], "")
		tally.done("rest get", "skill_served", "", err)
	default:
		_, err := s.restDo(t, http.MethodGet, "/v1/skills", "")
		tally.done("rest list", "", "", err)
	}
}

// mcpCall makes the n-th call of an MCP worker on its session.
func (s *fleetSurfaces) mcpCall(t *testing.T, tally *fleetTally, session, n int) {
	if n%2 == 0 {
		q := fleetQuery(n)
		_, err := s.mcpTool(t, session, "search_skills", map[string]any{"query": q})
		tally.done("mcp search_skills", "search", q, err)
		return
	}
	_, err := s.mcpTool(t, session, "load_skill", map[string]any{"name": fleetSkills[n%len(fleetSkills)]})
	tally.done("mcp load_skill", "skill_served", "", err)
}

// findNew searches for the new skill on each surface (each search counted
// like the traffic's); nil once every one finds it.
func (s *fleetSurfaces) findNew(t *testing.T, tally *fleetTally, n int) error {
	var missing []string
	q := fmt.Sprintf("%s safety n%06d", fleetNewWord, n)
	ctx, cancel := context.WithTimeout(t.Context(), fleetCallTimeout)
	hits, err := s.grpc.Search(ctx, q+"g", skillsclient.SearchOptions{})
	cancel()
	tally.done("grpc search", "search", q+"g", err)
	if !slices.ContainsFunc(hits, func(h *skillsv1.SearchHit) bool { return h.GetSkillPath() == fleetNewSkill }) {
		missing = append(missing, "gRPC")
	}
	body, err := s.restSearch(t, q+"r")
	tally.done("rest search", "search", q+"r", err)
	if !fleetHasSkill(body) {
		missing = append(missing, "REST")
	}
	res, err := s.mcpTool(t, 0, "search_skills", map[string]any{"query": q + "m"})
	tally.done("mcp search_skills", "search", q+"m", err)
	var sc []byte
	if res != nil {
		sc, _ = json.Marshal(res.StructuredContent)
	}
	if !fleetHasSkill(sc) {
		missing = append(missing, "MCP")
	}
	if len(missing) > 0 {
		return fmt.Errorf("no %s in the search results of %s", fleetNewSkill, strings.Join(missing, ", "))
	}
	return nil
}

// fleetHasSkill reports whether a search answer in JSON (REST's or
// search_skills' structured content) has the new skill among its results.
func fleetHasSkill(answer []byte) bool {
	var a struct {
		Results []map[string]any `json:"results"`
	}
	if json.Unmarshal(answer, &a) != nil {
		return false
	}
	return slices.ContainsFunc(a.Results, func(h map[string]any) bool {
		return h["skill_path"] == fleetNewSkill || h["skillPath"] == fleetNewSkill
	})
}

func (s *fleetSurfaces) restSearch(t *testing.T, q string) ([]byte, error) {
	b, err := json.Marshal(map[string]any{"query": q})
	if err != nil {
		return nil, err
	}
	return s.restDo(t, http.MethodPost, "/v1/skills:search", string(b))
}

// restDo makes one request; an answer other than 200 is an error.
func (s *fleetSurfaces) restDo(t *testing.T, method, path, body string) ([]byte, error) {
	req, err := http.NewRequestWithContext(t.Context(), method, s.rest+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s %s", method, path, resp.Status, tail(string(data), 300))
	}
	return data, nil
}

// mcpTool calls a tool; an error result is an error.
func (s *fleetSurfaces) mcpTool(t *testing.T, session int, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(t.Context(), fleetCallTimeout)
	defer cancel()
	res, err := s.mcp[session].CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return nil, fmt.Errorf("%s: error result: %s", tool, tail(strings.Join(text, " "), 300))
	}
	return res, nil
}

// fleetMCPSession opens an MCP session on skills-mcp over Streamable HTTP;
// it lives as long as the test (replicas come and go behind it).
func fleetMCPSession(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "fleet-test", Version: "v0.0.0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("MCP: connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// fleetQuery is the n-th search's query: one of the skills' subjects and
// a word of its own, so that each search's event is told apart.
func fleetQuery(n int) string {
	return fmt.Sprintf("%s q%06d", fleetQueries[n%len(fleetQueries)], n)
}

// fleetRefresh asks one replica to refresh until a refresh ran and
// succeeded; each one that ran (busy answers aside) made a refresh event.
func fleetRefresh(t *testing.T, tally *fleetTally, r *fleetReplica) {
	deadline := time.Now().Add(fleetCatchUpWithin)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), fleetCallTimeout)
		resp, err := r.direct.Refresh(ctx)
		cancel()
		switch {
		case err != nil:
			tally.done("grpc refresh", "", "", fmt.Errorf("replica %s: %w", r.name, err))
			return
		case resp.GetMode() == "git":
			tally.done("grpc refresh", "refresh", "", nil)
			if resp.GetSuccess() {
				return
			}
		default: // busy: another refresh ran, this one did nothing
			tally.done("grpc refresh", "", "", nil)
		}
		if time.Now().After(deadline) {
			tally.done("grpc refresh", "", "", fmt.Errorf("replica %s: no successful refresh in %v: %s", r.name, fleetCatchUpWithin, resp.GetMessage()))
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// fleetCommit is the commit the git source of a status was built from.
func fleetCommit(st *skillsv1.GetCatalogStatusResponse) string {
	for _, src := range st.GetSources() {
		if src.GetKind() == "git" {
			return src.GetContentId()
		}
	}
	return ""
}

// fleetCatalogIDs checks that every replica serves commit with the same
// catalog identity, and returns it.
func fleetCatalogIDs(t *testing.T, replicas []*fleetReplica, commit string) string {
	t.Helper()
	var ids []string
	for _, r := range replicas {
		ctx, cancel := context.WithTimeout(t.Context(), fleetCallTimeout)
		st, err := r.direct.Status(ctx)
		cancel()
		if err != nil {
			t.Fatalf("replica %s: GetCatalogStatus: %v", r.name, err)
		}
		if got := fleetCommit(st); got != commit {
			t.Errorf("replica %s serves commit %q, want %s", r.name, got, commit)
		}
		if st.GetCatalogId() == "" {
			t.Errorf("replica %s: no catalog_id", r.name)
		}
		ids = append(ids, st.GetCatalogId())
	}
	t.Logf("catalog identity at %.12s: %v", commit, ids)
	if len(slices.Compact(slices.Clone(ids))) != 1 {
		t.Errorf("the replicas serve different catalogs at commit %.12s: %v", commit, ids)
	}
	return ids[0]
}

// fleetCheckEvents waits until the usage store holds as many events as the
// answered calls made and every replica's spool is empty (the killed
// replica's delivered by its restart), then checks them: the same count of
// each type, each search's query once, no id twice.
func fleetCheckEvents(t *testing.T, db *sql.DB, replicas []*fleetReplica, tally *fleetTally, made int) {
	t.Helper()
	count := func() int {
		var n int
		if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM usage_events").Scan(&n); err != nil {
			t.Fatalf("counting the stored events: %v", err)
		}
		return n
	}
	spooled := func() (bytes float64) {
		for _, r := range replicas {
			v, ok := skillstest.Scrape(t, "http://"+r.metricsAddr+"/metrics").Value("skillsd_usage_spool_bytes")
			if !ok {
				t.Fatalf("replica %s: no skillsd_usage_spool_bytes in its metrics", r.name)
			}
			bytes += v
		}
		return bytes
	}
	began := time.Now()
	stored, inSpools := count(), spooled()
	for (stored < made || inSpools > 0) && time.Since(began) < fleetStoredWithin {
		time.Sleep(250 * time.Millisecond)
		stored, inSpools = count(), spooled()
	}
	drained := time.Since(began)
	// A moment more: an event that should not be there (a double) could
	// still arrive after the count was reached.
	time.Sleep(2 * time.Second)
	stored = count()
	t.Logf("events: %d made, %d stored; stored and spools empty %v after the traffic stopped (%.0f bytes still spooled)",
		made, stored, drained.Round(time.Millisecond), inSpools)
	if inSpools > 0 {
		t.Errorf("%.0f bytes of usage events still in the replicas' spools %v after the traffic stopped", inSpools, fleetStoredWithin)
	}
	if stored != made {
		t.Errorf("the usage store holds %d events; the answered calls made %d", stored, made)
	}

	byType := map[string]int{}
	rows, err := db.QueryContext(t.Context(), "SELECT type, count(*) FROM usage_events GROUP BY type")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var typ string
		var n int
		if err := rows.Scan(&typ, &n); err != nil {
			t.Fatal(err)
		}
		byType[typ] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	tally.mu.Lock()
	wantTypes := maps.Clone(tally.events)
	queries := maps.Clone(tally.queries)
	tally.mu.Unlock()
	if !maps.Equal(byType, wantTypes) {
		t.Errorf("events stored by type: %v; made: %v", byType, wantTypes)
	}

	var distinct int
	if err := db.QueryRowContext(t.Context(), "SELECT count(DISTINCT id) FROM usage_events").Scan(&distinct); err != nil {
		t.Fatal(err)
	}
	if distinct != stored {
		t.Errorf("%d events stored under %d ids: some id is stored twice", stored, distinct)
	}

	// Each search left exactly one event, with its own query.
	seen := map[string]int{}
	rows, err = db.QueryContext(t.Context(), "SELECT context FROM usage_events WHERE type = 'search'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			t.Fatal(err)
		}
		seen[q]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	var twice, missing, unknown []string
	for q, n := range seen {
		switch {
		case !queries[q]:
			unknown = append(unknown, q)
		case n > 1:
			twice = append(twice, q)
		}
	}
	for q := range queries {
		if seen[q] == 0 {
			missing = append(missing, q)
		}
	}
	for what, list := range map[string][]string{"stored twice": twice, "never stored": missing, "stored but no answered call made it": unknown} {
		if len(list) > 0 {
			slices.Sort(list)
			t.Errorf("%d search events %s: %q", len(list), what, list[:min(len(list), 5)])
		}
	}

	rows, err = db.QueryContext(t.Context(), "SELECT server_id, count(*) FROM usage_events GROUP BY server_id ORDER BY server_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var per []string
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		per = append(per, fmt.Sprintf("%s %d", id, n))
	}
	t.Logf("events stored per replica: %s", strings.Join(per, ", "))
}

// fleetCheckShares scrapes each replica's /metrics and checks that it
// handled its share of the skills.v1 RPCs: the restarted one counts from
// its restart (its counters started again at zero).
func fleetCheckShares(t *testing.T, replicas []*fleetReplica, restarted *fleetReplica) {
	t.Helper()
	handled := make([]float64, len(replicas))
	var total float64
	for i, r := range replicas {
		handled[i] = fleetHandled(t, r)
		total += handled[i]
	}
	var shares []string
	for i, r := range replicas {
		share := 0.0
		if total > 0 {
			share = handled[i] / total
		}
		note := ""
		if r == restarted {
			note = " (since its restart)"
		}
		shares = append(shares, fmt.Sprintf("%s %.0f RPCs %.0f%%%s", r.name, handled[i], 100*share, note))
		if share < fleetMinShare {
			t.Errorf("replica %s handled %.0f of %.0f skills.v1 RPCs (%.1f%%)%s; want %.0f%% or more", r.name, handled[i], total, 100*share, note, 100*fleetMinShare)
		}
	}
	t.Logf("handled RPCs per replica: %s", strings.Join(shares, "; "))
}

// fleetHandled is the count of skills.v1 RPCs a replica handled since it
// started, from its /metrics.
func fleetHandled(t *testing.T, r *fleetReplica) float64 {
	t.Helper()
	m := skillstest.Scrape(t, "http://"+r.metricsAddr+"/metrics")
	var n float64
	for _, svc := range []string{"skills.v1.CatalogService", "skills.v1.RoutingService"} {
		v, _ := m.Value("grpc_server_handled_total", "grpc_service", svc)
		n += v
	}
	return n
}

// fleetStart picks the replicas' addresses (kept for their restarts) and
// starts them side by side; when another program took one of the ports
// meanwhile, it tries again with new ones.
func fleetStart(t *testing.T, wg *sync.WaitGroup, replicas []*fleetReplica, bin string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		for _, r := range replicas {
			r.grpcAddr, r.metricsAddr = freeAddr(t), freeAddr(t)
		}
		errs := make([]error, len(replicas))
		for i, r := range replicas {
			wg.Go(func() { errs[i] = r.start(t, bin) })
		}
		wg.Wait()
		taken := false
		for i, err := range errs {
			if err == nil {
				continue
			}
			if attempt < 3 && strings.Contains(replicas[i].proc.stderr.String(), "address already in use") {
				taken = true
				continue
			}
			t.Fatal(err)
		}
		if !taken {
			return
		}
		t.Logf("a port of the fleet was taken meanwhile; starting it again on new ones")
		for _, r := range replicas {
			r.proc.stop(t)
		}
	}
}

// gitRun runs the git command in dir; a failure fails the test.
func gitRun(t *testing.T, gitBin, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), gitBin, args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(t), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// sleepUntil sleeps until when, or until the test is cancelled.
func sleepUntil(t *testing.T, when time.Time) {
	select {
	case <-time.After(time.Until(when)):
	case <-t.Context().Done():
	}
}
