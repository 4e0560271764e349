package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// eventCollector is an analytics endpoint the test switches between down
// (503) and up; it remembers the feedback comments it received.
type eventCollector struct {
	srv *httptest.Server

	mu       sync.Mutex
	up       bool
	comments map[string]int // feedback comment → times received
}

func newEventCollector(t *testing.T) *eventCollector {
	t.Helper()
	c := &eventCollector{comments: map[string]int{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		up := c.up
		c.mu.Unlock()
		if !up {
			http.Error(w, "collector down for maintenance", http.StatusServiceUnavailable)
			return
		}
		var body struct {
			Events []struct {
				Type string         `json:"type"`
				Data map[string]any `json:"data"`
			} `json:"events"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, e := range body.Events {
			if comment, _ := e.Data["comment"].(string); e.Type == "skill_feedback" {
				c.comments[commentID(comment)]++
			}
		}
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *eventCollector) setUp(up bool) {
	c.mu.Lock()
	c.up = up
	c.mu.Unlock()
}

// missing returns the ids of want not received yet, and the ids of
// refused that were (they must never be).
func (c *eventCollector) missing(want, refused []string) (missing, wrong []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range want {
		if c.comments[id] == 0 {
			missing = append(missing, id)
		}
	}
	for _, id := range refused {
		if c.comments[id] > 0 {
			wrong = append(wrong, id)
		}
	}
	return missing, wrong
}

// commentID is the first word of a test comment ("c-0042 …").
func commentID(comment string) string {
	id, _, _ := strings.Cut(comment, " ")
	return id
}

// TestFaultSpoolDiskFull fills the analytics spool while its endpoint is
// down, (1) on a real full disk: the spool folder is a 256 KiB tmpfs, far
// below the spool's cap (skipped, saying so, where the kernel refuses the
// mount), (2) up to analytics.max_spool_bytes (1 MiB). Each time: every
// search and get keeps answering; feedback that no longer fits answers
// recorded: false saying the spool is full, is counted and warned about
// once (dropped_total); the spool on disk stays whole (every line of every
// segment an event, no empty segment); once the endpoint is back, every
// feedback that was recorded arrives and none that was refused, the spool
// empties, and new feedback is recorded and delivered again.
func TestFaultSpoolDiskFull(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		name  string
		tmpfs bool
	}{{"tmpfs", true}, {"max_spool_bytes", false}} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			spool := filepath.Join(home, "analytics", "spool")
			if err := os.MkdirAll(spool, 0o700); err != nil {
				t.Fatal(err)
			}
			if tc.tmpfs {
				skillstest.MountTmpfs(t, spool, 256<<10)
			}
			col := newEventCollector(t)
			dir := t.TempDir()
			writeSkillFile(t, dir, "alpha", skillstest.SkillMD("alpha", "The skill that gets feedback."))
			writeSkillFile(t, dir, "beta", skillstest.SkillMD("beta", "A skill to read meanwhile."))
			cfg := filepath.Join(t.TempDir(), "config.yaml")
			writeFile(t, cfg, fmt.Sprintf("analytics:\n  endpoint: %s/v1/usage/events\n  flush_interval_seconds: 1\n  max_spool_bytes: %d\n", col.srv.URL, 1<<20), 0o644)
			proc, addr := startOnFreePortEnv(t, []string{"SKILLSD_HOME=" + home}, binary(t, "skillsd"),
				func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", dir, "--config", cfg} }, grpcReady)
			conn := dialGRPC(t, addr)
			cat, routing := skillsv1.NewCatalogServiceClient(conn), skillsv1.NewRoutingServiceClient(conn)
			usage := skillsv1.NewUsageServiceClient(conn)

			filler := strings.Repeat("feedback long enough to fill a disk quickly. ", 80) // 3.6 KB
			var recorded, refused []string
			feedback := func(i int) bool {
				t.Helper()
				id := fmt.Sprintf("c-%04d", i)
				resp, err := usage.ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "alpha", Useful: true, Comment: id + " " + filler})
				if err != nil {
					t.Fatalf("ReportUsage %s: %v, want an answer (recorded or not)", id, err)
				}
				if resp.GetRecorded() {
					recorded = append(recorded, id)
				} else {
					refused = append(refused, id)
					if !strings.Contains(resp.GetMessage(), "usage spool is full") {
						t.Errorf("ReportUsage %s refused: %q, want it to say the spool is full", id, resp.GetMessage())
					}
				}
				return resp.GetRecorded()
			}
			serving := func() {
				t.Helper()
				if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "beta"}); err != nil {
					t.Fatalf("GetSkill while the spool is full: %v", err)
				}
				if _, err := routing.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: "skill"}); err != nil {
					t.Fatalf("SearchSkills while the spool is full: %v", err)
				}
			}

			// Fill: until 20 feedbacks in a row were refused.
			i, streak := 0, 0
			for ; streak < 20; i++ {
				if i == 2000 {
					t.Fatalf("the spool never filled: %d recorded", len(recorded))
				}
				if feedback(i) {
					streak = 0
				} else {
					streak++
				}
				if i%10 == 0 {
					serving()
				}
			}
			t.Logf("%d feedbacks recorded, %d refused", len(recorded), len(refused))
			if len(recorded) == 0 {
				t.Fatal("no feedback recorded before the spool was full")
			}
			checkSpoolWhole(t, spool)
			log := proc.stderr.String()
			if n := strings.Count(log, `msg="usage spool is full`); n != 1 || !strings.Contains(log, "dropped_total=") {
				t.Errorf("want one warning about the full spool, with the count of dropped events; got %d:\n%s", n, tail(log, 3000))
			}
			if tc.tmpfs && !strings.Contains(log, "no space left on device") {
				t.Errorf("the warning does not say the disk is full:\n%s", tail(log, 3000))
			}

			col.setUp(true)
			waitFor(t, 15*time.Second, "every recorded feedback delivered", func() error {
				missing, wrong := col.missing(recorded, refused)
				if len(wrong) > 0 {
					t.Fatalf("refused feedback was delivered: %v", wrong)
				}
				if len(missing) > 0 {
					return fmt.Errorf("%d of %d not delivered, e.g. %v", len(missing), len(recorded), missing[:min(5, len(missing))])
				}
				return nil
			})

			// Room again: new feedback is recorded and delivered. The
			// server removes a delivered segment once it has read the
			// endpoint's answer, a moment after the endpoint has its
			// events: until then the spool may still be full.
			before := len(recorded)
			waitFor(t, 5*time.Second, "a feedback recorded once the spool was delivered", func() error {
				ok := feedback(i)
				i++
				if !ok {
					return fmt.Errorf("%s refused", refused[len(refused)-1])
				}
				return nil
			})
			for j := range 4 {
				if !feedback(i + j) {
					t.Fatalf("feedback refused after the spool had room again: %v", refused[len(refused)-1])
				}
			}
			waitFor(t, 15*time.Second, "feedback after the fault delivered", func() error {
				if missing, _ := col.missing(recorded[before:], nil); len(missing) > 0 {
					return fmt.Errorf("%d not delivered", len(missing))
				}
				return nil
			})
			if !strings.Contains(proc.stderr.String(), "usage spool has room again") {
				t.Errorf("no line saying the spool takes events again:\n%s", tail(proc.stderr.String(), 2000))
			}
		})
	}
}

// checkSpoolWhole reads every segment of the spool folder: each holds at
// least one line, and every line is a JSON event with an id and a type.
func checkSpoolWhole(t *testing.T, spool string) {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(spool, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) == 0 {
		t.Fatal("the spool holds no segment")
	}
	lines := 0
	for _, p := range segs {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		n := 0
		for sc.Scan() {
			var e struct {
				ID   string `json:"id"`
				Type string `json:"type"`
			}
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.ID == "" || e.Type == "" {
				t.Errorf("segment %s, line %d: not an event (%v): %.80q", filepath.Base(p), n+1, err, sc.Text())
			}
			n++
		}
		_ = f.Close()
		if sc.Err() != nil {
			t.Errorf("segment %s: %v", filepath.Base(p), sc.Err())
		}
		if n == 0 {
			t.Errorf("segment %s is empty", filepath.Base(p))
		}
		lines += n
	}
	t.Logf("spool: %d segments, %d events, all whole", len(segs), lines)
}
