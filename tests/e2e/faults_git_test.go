package e2e

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// gitFault is a git remote served over smart HTTP behind a faultProxy, and
// the environment of a skillsd that follows it (SKILLS_REPO, its skills/
// folder, with its own state folder).
type gitFault struct {
	repo  *skillstest.GitRepo
	proxy *faultProxy
	env   []string
}

func newGitFault(t *testing.T) *gitFault {
	t.Helper()
	repo := skillstest.NewGitRepo(t)
	addr, path := serveGitHTTP(t, repo.Dir())
	proxy := startFaultProxy(t, addr)
	url := "http://" + proxy.Addr() + path
	return &gitFault{repo: repo, proxy: proxy, env: []string{"SKILLS_REPO=" + url, "SKILLS_BRANCH=main", "SKILLSD_HOME=" + t.TempDir()}}
}

// skillFiles returns the files of n skills named prefix-0…: a SKILL.md and,
// with padding > 0, a reference.md of that many random (incompressible)
// bytes, so that the pack is as large as the test needs.
func skillFiles(prefix string, n, padding int, desc string) map[string]string {
	files := map[string]string{}
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		files["skills/"+name+"/SKILL.md"] = skillstest.SkillMD(name, desc)
		if padding > 0 {
			b := make([]byte, padding)
			_, _ = rand.Read(b)
			files["skills/"+name+"/reference.md"] = base64.StdEncoding.EncodeToString(b)
		}
	}
	return files
}

// gitServer is a skillsd following the git source, and clients of it.
type gitServer struct {
	proc  *process
	addr  string
	cat   skillsv1.CatalogServiceClient
	files skillsv1.FileServiceClient
}

// startSkillsd starts skillsd on the git source; it waits for readiness
// (the first synchronisation included).
func (g *gitFault) startSkillsd(t *testing.T) gitServer {
	t.Helper()
	p, addr := startOnFreePortEnv(t, g.env, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr} }, grpcReady)
	conn := dialGRPC(t, addr)
	return gitServer{proc: p, addr: addr, cat: skillsv1.NewCatalogServiceClient(conn), files: skillsv1.NewFileServiceClient(conn)}
}

// skillWant is what a served skill must show: a text its description or
// instructions contain, and its number of companion files (SKILL.md aside).
type skillWant struct {
	text  string
	files int
}

// expectCatalog checks that the server serves exactly the skills of want,
// each with all its files, every one readable, and that its git source is
// at commit with the error state wanted.
func (s gitServer) expectCatalog(t *testing.T, want map[string]skillWant, commit string, wantErr bool) {
	t.Helper()
	cat, files := s.cat, s.files
	list, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if int(list.GetTotalSize()) != len(want) {
		var got []string
		for _, s := range list.GetSkills() {
			got = append(got, s.GetSkillPath())
		}
		t.Fatalf("catalog: %d skills %v, want %d", list.GetTotalSize(), got, len(want))
	}
	for path, w := range want {
		sk, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: path})
		if err != nil {
			t.Fatalf("GetSkill %s: %v", path, err)
		}
		if !strings.Contains(sk.GetContent()+sk.GetInstructions()+sk.GetSkill().GetDescription(), w.text) {
			t.Errorf("GetSkill %s: %q not in its answer (%q)", path, w.text, sk.GetSkill().GetDescription())
		}
		if len(sk.GetFiles()) != w.files {
			t.Errorf("GetSkill %s: %d files %v, want %d", path, len(sk.GetFiles()), sk.GetFiles(), w.files)
		}
		for _, f := range sk.GetFiles() {
			if _, err := files.ReadSkillFile(t.Context(), &skillsv1.ReadSkillFileRequest{SkillPath: path, File: f.GetPath()}); err != nil {
				t.Errorf("ReadSkillFile %s %s: %v", path, f.GetPath(), err)
			}
		}
	}
	st, err := cat.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var src *skillsv1.SourceStatus
	for _, s := range st.GetSources() {
		if s.GetKind() == "git" {
			src = s
		}
	}
	if src == nil {
		t.Fatalf("status: no git source in %v", st.GetSources())
	}
	if src.GetCommit() != commit || (src.GetError() != "") != wantErr {
		t.Errorf("status of the git source: commit %s, error %q; want commit %s, error set: %v", src.GetCommit(), src.GetError(), commit, wantErr)
	}
}

// TestFaultGitRemoteDown: the git remote becomes unreachable (connections
// reset) after a first clone, and receives a push meanwhile. The last
// checkout keeps serving, every skill and file of it; GetCatalogStatus
// shows the source's error; RefreshSkills answers success false with a
// message naming the source, over gRPC and REST; a skillsd restarted while
// the remote is down serves the cached checkout. Once the remote is back a
// refresh serves the pushed commit and the error is gone.
func TestFaultGitRemoteDown(t *testing.T) {
	skipShort(t)
	g := newGitFault(t)
	first := skillFiles("team", 4, 0, "The first version.")
	c1 := g.repo.Commit("first", first)
	srv := g.startSkillsd(t)
	_, httpAddr := startOnFreePort(t, binary(t, "skills-rest"),
		func(addr string) []string { return []string{"--server", srv.addr, "--http", addr} }, httpReady("/healthz"))
	v1 := map[string]skillWant{"team-0": {"first version", 0}, "team-1": {"first version", 0}, "team-2": {"first version", 0}, "team-3": {"first version", 0}}
	srv.expectCatalog(t, v1, c1, false)

	g.proxy.setMode(proxyDown)
	c2 := g.repo.Commit("second", map[string]string{
		"skills/team-0/SKILL.md": skillstest.SkillMD("team-0", "The second version."),
		"skills/team-9/SKILL.md": skillstest.SkillMD("team-9", "Pushed while the remote was down."),
	})

	resp, err := srv.cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
	if err != nil {
		t.Fatalf("RefreshSkills with the remote down: %v, want an answer with success false", err)
	}
	if resp.GetSuccess() || resp.GetCommitHash() != c1 || !strings.Contains(resp.GetMessage(), "keep serving their last checkout") ||
		!strings.Contains(resp.GetMessage(), "http://"+g.proxy.Addr()) {
		t.Errorf("RefreshSkills with the remote down: success %v, commit %s, message %q; want false, %s, and a message naming the remote", resp.GetSuccess(), resp.GetCommitHash(), resp.GetMessage(), c1)
	}
	srv.expectCatalog(t, v1, c1, true)

	var rest struct {
		Success bool   `json:"success"`
		Message string `json:"message"`
	}
	_, hresp := send(t.Context(), t, http.MethodPost, "http://"+httpAddr+"/v1/skills:refresh", `{}`, nil)
	body, _ := io.ReadAll(hresp.Body)
	_ = hresp.Body.Close()
	if err := json.Unmarshal(body, &rest); err != nil || hresp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/skills:refresh with the remote down: %s %s", hresp.Status, body)
	}
	if rest.Success || !strings.Contains(rest.Message, "keep serving their last checkout") {
		t.Errorf("POST /v1/skills:refresh with the remote down: %+v, want success false and the reason", rest)
	}

	// A restart while the remote is down serves the cached checkout.
	srv.proc.stop(t)
	srv = g.startSkillsd(t)
	srv.expectCatalog(t, v1, c1, true)
	if !strings.Contains(srv.proc.stderr.String(), "serving its cached checkout") {
		t.Errorf("no warning about the cached checkout in the log:\n%s", tail(srv.proc.stderr.String(), 2000))
	}

	g.proxy.setMode(proxyPass)
	resp, err = srv.cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
	if err != nil || !resp.GetSuccess() || resp.GetCommitHash() != c2 {
		t.Fatalf("RefreshSkills with the remote back: %v %v, want success at %s", resp, err, c2)
	}
	v2 := map[string]skillWant{"team-0": {"second version", 0}, "team-1": {"first version", 0}, "team-2": {"first version", 0}, "team-3": {"first version", 0},
		"team-9": {"remote was down", 0}}
	srv.expectCatalog(t, v2, c2, false)
}

// TestFaultSIGTERMDuringRefresh: SIGTERM while a git synchronisation is
// transferring a pack (the remote trickles it out: a fault, not timing
// luck), (1) in a RefreshSkills call of a running skillsd, (2) in the
// update a restart makes before it serves its cached checkout, (3) in the
// first clone (made in the background, the ports open). Each time the
// process exits with status 0 well within the grace period a supervisor
// gives (10 s). The refresh is abandoned, not waited for, and its caller
// gets UNAVAILABLE saying the server is stopping (before, the stop waited
// out its 5 s for calls in flight, then cut the connection); a SIGTERM
// during the update at start-up exited with status 1 ("loading the catalog:
// context canceled"). The next start (the remote at full speed) serves the
// whole catalog of the remote's commit: every skill, every file, no partial
// state.
func TestFaultSIGTERMDuringRefresh(t *testing.T) {
	skipShort(t)
	const grace = 10 * time.Second

	t.Run("RefreshSkills", func(t *testing.T) {
		g := newGitFault(t)
		g.repo.Commit("first", skillFiles("team", 2, 0, "The first version."))
		srv := g.startSkillsd(t)
		// A push of 24 skills with 8 KB of random text each: a pack of
		// about 250 KB, which the remote sends at 16 KB/s.
		c2 := g.repo.Commit("large", skillFiles("big", 24, 8<<10, "Pushed in one large commit."))
		g.proxy.setMode(proxyThrottle)

		refreshed := make(chan error, 1)
		go func() {
			resp, err := srv.cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
			if err == nil && resp.GetSuccess() {
				err = fmt.Errorf("success at %s", resp.GetCommitHash())
			}
			refreshed <- err
		}()
		waitTransfer(t, g.proxy)
		exitAfterSIGTERM(t, srv.proc, grace)
		// The refresh is abandoned at once rather than waited for: the caller
		// is told why, and the stop is not held up by the transfer.
		if err := <-refreshed; status.Code(err) != codes.Unavailable || !strings.Contains(status.Convert(err).Message(), "server is stopping") {
			t.Errorf("RefreshSkills cut by SIGTERM: got %v, want UNAVAILABLE saying the server is stopping", err)
		}
		// The start synchronises first: it serves the pushed commit whole.
		g.restartServesWhole(t, wants(wants(nil, "team", 2, skillWant{"first version", 0}), "big", 24, skillWant{"large commit", 1}), c2)
	})

	t.Run("update at start-up", func(t *testing.T) {
		// A restart with a cached checkout synchronises before it serves.
		g := newGitFault(t)
		g.repo.Commit("first", skillFiles("team", 2, 0, "The first version."))
		g.startSkillsd(t).proc.stop(t)
		c2 := g.repo.Commit("large", skillFiles("big", 24, 8<<10, "Pushed while the server was down."))
		g.sigtermMidTransfer(t, grace)
		g.restartServesWhole(t, wants(wants(nil, "team", 2, skillWant{"first version", 0}), "big", 24, skillWant{"server was down", 1}), c2)
	})

	t.Run("first clone", func(t *testing.T) {
		g := newGitFault(t)
		c1 := g.repo.Commit("large", skillFiles("big", 24, 8<<10, "Cloned at start-up."))
		g.sigtermMidTransfer(t, grace)
		g.restartServesWhole(t, wants(nil, "big", 24, skillWant{"start-up", 1}), c1)
	})
}

// wants adds to m (made when nil) n skills named prefix-0… that must show w.
func wants(m map[string]skillWant, prefix string, n int, w skillWant) map[string]skillWant {
	if m == nil {
		m = map[string]skillWant{}
	}
	for i := range n {
		m[fmt.Sprintf("%s-%d", prefix, i)] = w
	}
	return m
}

// sigtermMidTransfer starts skillsd with the remote trickling its pack out,
// and sends SIGTERM once part of it has arrived: skillsd must exit with
// status 0 within grace.
func (g *gitFault) sigtermMidTransfer(t *testing.T, grace time.Duration) {
	t.Helper()
	g.proxy.setMode(proxyThrottle)
	proc := startEnv(t, g.env, binary(t, "skillsd"), "--grpc", freeAddr(t))
	waitTransfer(t, g.proxy)
	exitAfterSIGTERM(t, proc, grace)
}

// restartServesWhole starts skillsd with the remote at full speed and checks
// that it serves want, whole, at commit.
func (g *gitFault) restartServesWhole(t *testing.T, want map[string]skillWant, commit string) {
	t.Helper()
	g.proxy.setMode(proxyPass)
	g.startSkillsd(t).expectCatalog(t, want, commit, false)
}

// waitTransfer waits until the proxy has forwarded the start of a pack
// (some KB from the remote), so that a synchronisation is in the middle of
// its transfer.
func waitTransfer(t *testing.T, p *faultProxy) {
	t.Helper()
	start := p.down.Load()
	deadline := time.Now().Add(answerWithin)
	for p.down.Load()-start < 8<<10 {
		if time.Now().After(deadline) {
			t.Fatalf("no transfer from the remote: %d bytes in %v", p.down.Load()-start, answerWithin)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exitAfterSIGTERM sends SIGTERM and expects exit status 0 within grace.
func exitAfterSIGTERM(t *testing.T, p *process, grace time.Duration) {
	t.Helper()
	sent := time.Now()
	if err := p.cmd.Process.Signal(terminate); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
		t.Logf("%s exited %v after SIGTERM: %v", p.name, time.Since(sent).Round(time.Millisecond), p.err)
		if gracefulStop && p.err != nil {
			t.Errorf("%s: exit after SIGTERM: %v, want status 0\n%s", p.name, p.err, tail(p.stderr.String(), 3000))
		}
	case <-time.After(grace):
		t.Fatalf("%s still running %v after SIGTERM", p.name, grace)
	}
}
