//go:build unix

package usage

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// TestCrashBetweenRecordAndPublish kills a recording process with SIGKILL
// after it recorded (the endpoint down, nothing published, nothing fsynced
// by a clean close), restarts a recorder on the same folder, and checks that
// every event arrives at the collector and in the aggregates.
func TestCrashBetweenRecordAndPublish(t *testing.T) {
	c := newCollector(t)
	c.set("fail")
	dir := t.TempDir()

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v=false")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, "SKILLSD_USAGE_CRASH_ENDPOINT="+c.url())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var want []string
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "recorded" {
		want = append(want, sc.Text())
	}
	if len(want) != 50 {
		_ = cmd.Process.Kill()
		t.Fatalf("child recorded %d events, want 50", len(want))
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if ps := cmd.ProcessState; ps == nil || ps.Exited() {
		t.Fatalf("child was not killed by a signal: %v", ps)
	}
	if got := c.received(); len(got) != 0 {
		t.Fatalf("collector got %d events before the restart; the test needs them undelivered", len(got))
	}

	c.set("ok")
	r := openTest(t, dir, c.url(), nil)
	if err := r.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	if got := c.received(); !slices.Equal(got, want) {
		t.Fatalf("after restart the collector has %d of the %d events:\ngot  %v\nwant %v", len(got), len(want), got, want)
	}
	if n := len(spoolFiles(t, dir)); n != 0 {
		t.Errorf("segments left = %d, want 0", n)
	}

	// Aggregates: 25 feedback events (i even; useful when i%4 == 0: 13),
	// 25 no_match over 5 contexts of 5 each.
	st, err := r.Stats(t.Context(), Window{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour), TopN: 10, Comments: 5})
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalEvents != 50 {
		t.Errorf("TotalEvents = %d, want 50", st.TotalEvents)
	}
	if len(st.Skills) != 1 || st.Skills[0].SkillPath != "pdf" || st.Skills[0].Useful != 13 || st.Skills[0].NotUseful != 12 {
		t.Errorf("skills = %+v, want pdf with 13 useful and 12 not", st.Skills)
	}
	if got := st.Skills[0].RecentComments; !slices.Equal(got, []string{"comment 48", "comment 46", "comment 44", "comment 42", "comment 40"}) {
		t.Errorf("recent comments = %v", got)
	}
	if len(st.TopNoMatch) != 5 || st.TopNoMatch[0].Count != 5 || st.TopNoMatch[4].Count != 5 {
		t.Errorf("top no-match = %+v, want 5 contexts seen 5 times", st.TopNoMatch)
	}
}
