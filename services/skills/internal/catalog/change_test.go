package catalog

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
	"weak"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

func writeSkill(t *testing.T, root, dir, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(dir), "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	// Move the time forward so that a rewrite within the file system's time
	// granularity is still seen as a change.
	later := time.Now().Add(time.Duration(len(body)) * time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n"
}

func buildFrom(t *testing.T, root string, prev *Snapshot) *Snapshot {
	t.Helper()
	snap, err := Build(t.Context(), []*source.Root{{Name: "local", Dir: root, Kind: source.KindLocal, Trusted: true}}, Options{Previous: prev})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestDiff(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf", skillMD("pdf", "PDF files."))
	writeSkill(t, root, "docx", skillMD("docx", "Word files."))
	writeSkill(t, root, "xlsx", skillMD("xlsx", "Sheets."))
	s1 := buildFrom(t, root, nil)

	if c := Diff(nil, s1); !slices.Equal(c.Added, []string{"docx", "pdf", "xlsx"}) || len(c.Changed)+len(c.Removed) != 0 {
		t.Errorf("Diff(nil, s1) = %+v, want all added", c)
	}
	same := buildFrom(t, root, s1)
	if c := Diff(s1, same); !c.Empty() || !Same(s1, same) {
		t.Errorf("rebuild without change: Diff %+v, Same %v; want empty and same", c, Same(s1, same))
	}
	if same.Stats().Reused != 3 {
		t.Errorf("rebuild without change reused %d skill files, want 3", same.Stats().Reused)
	}

	writeSkill(t, root, "pdf", skillMD("pdf", "PDF files, edited and longer."))
	if err := os.WriteFile(filepath.Join(root, "xlsx", "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "docx")); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, root, "new/one", skillMD("one", "New."))
	s2 := buildFrom(t, root, same)
	c := Diff(same, s2)
	if !slices.Equal(c.Added, []string{"new/one"}) || !slices.Equal(c.Changed, []string{"pdf", "xlsx"}) || !slices.Equal(c.Removed, []string{"docx"}) {
		t.Errorf("Diff = added %v changed %v removed %v; want [new/one] [pdf xlsx] [docx]", c.Added, c.Changed, c.Removed)
	}
	if Same(same, s2) {
		t.Errorf("Same after changes: got true")
	}
}

func TestStoreSubscribe(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf", skillMD("pdf", "PDF files."))
	var st Store
	ch, cancel := st.Subscribe()
	s1 := buildFrom(t, root, nil)
	st.Swap(s1)
	c := <-ch
	if c.Generation != 1 || !slices.Equal(c.Added, []string{"pdf"}) || c.Current != s1 || c.Previous != nil {
		t.Errorf("first change: %+v", c)
	}
	writeSkill(t, root, "docx", skillMD("docx", "Word."))
	s2 := buildFrom(t, root, s1)
	st.Swap(s2)
	if c := <-ch; c.Generation != 2 || !slices.Equal(c.Added, []string{"docx"}) || c.Previous != s1 {
		t.Errorf("second change: %+v", c)
	}
	cancel()
	if _, ok := <-ch; ok {
		t.Errorf("channel open after cancel")
	}
	cancel() // twice is fine

	// A subscriber that never reads is dropped, not waited for: its channel
	// is closed once a change no longer fits (what it had not read is
	// discarded; see TestDroppedSubscriberPinsNoSnapshot).
	slow, cancelSlow := st.Subscribe()
	defer cancelSlow()
	for range subscriberBuffer {
		st.Swap(buildFrom(t, root, st.Current()))
	}
	if len(slow) != subscriberBuffer {
		t.Errorf("slow subscriber: %d changes buffered, want %d", len(slow), subscriberBuffer)
	}
	st.Swap(buildFrom(t, root, st.Current()))
	if _, ok := <-slow; ok {
		t.Errorf("slow subscriber: channel open after it fell %d changes behind", subscriberBuffer+1)
	}

	live, _ := st.Subscribe()
	st.Close()
	if _, ok := <-live; ok {
		t.Errorf("channel open after Close")
	}
	after, _ := st.Subscribe()
	if _, ok := <-after; ok {
		t.Errorf("Subscribe after Close: channel open")
	}
}

func TestBrokenEditKeepsLastGoodVersion(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf", skillMD("pdf", "PDF files."))
	s1 := buildFrom(t, root, nil)

	// Unclosed frontmatter: the parser reads the whole file as the body.
	writeSkill(t, root, "pdf", "---\nname: pdf\ndescription: [unterminated\n")
	s2 := buildFrom(t, root, s1)
	sk := s2.Get("pdf")
	if sk == nil || sk.Description != "PDF files." || !sk.Routable {
		t.Fatalf("after a broken edit: got %+v, want the last good pdf, routable", sk)
	}
	if !hasCode(s2.Diagnostics(), CodeKeptLastGood) {
		t.Errorf("no %s diagnostic: %+v", CodeKeptLastGood, s2.Diagnostics())
	}
	// Still broken on the next rebuild: still kept, still reported.
	s3 := buildFrom(t, root, s2)
	if sk := s3.Get("pdf"); sk == nil || sk.Description != "PDF files." || !hasCode(s3.Diagnostics(), CodeKeptLastGood) {
		t.Errorf("second rebuild: got %+v, diagnostics %+v", sk, s3.Diagnostics())
	}
	writeSkill(t, root, "pdf", skillMD("pdf", "PDF files, fixed."))
	s4 := buildFrom(t, root, s3)
	if sk := s4.Get("pdf"); sk == nil || sk.Description != "PDF files, fixed." || hasCode(s4.Diagnostics(), CodeKeptLastGood) {
		t.Errorf("after the fix: got %+v, diagnostics %+v", sk, s4.Diagnostics())
	}
	if c := Diff(s3, s4); !slices.Equal(c.Changed, []string{"pdf"}) {
		t.Errorf("fix: Diff %+v, want pdf changed", c)
	}
}

func hasCode(ds []skill.Diagnostic, code string) bool {
	return slices.ContainsFunc(ds, func(d skill.Diagnostic) bool { return d.Code == code })
}

// TestDroppedSubscriberPinsNoSnapshot: a subscriber that stops reading (a
// WatchCatalog client that never reads, its stream blocked in Send) is
// dropped, and what it had not read is let go: while it holds its channel,
// no snapshot but the current one stays reachable through it. Before, the
// 64 changes left in its buffer kept 65 snapshots alive for as long as the
// stalled client stayed connected, and every such client pinned its own.
func TestDroppedSubscriberPinsNoSnapshot(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf", skillMD("pdf", "PDF files."))
	var st Store
	st.Swap(buildFrom(t, root, nil))
	stalled, cancel := st.Subscribe()
	defer cancel()
	var swapped []weak.Pointer[Snapshot]
	for range 3 * subscriberBuffer {
		s := buildFrom(t, root, st.Current())
		swapped = append(swapped, weak.Make(s))
		st.Swap(s)
	}
	runtime.GC()
	runtime.GC()
	alive := 0
	for _, w := range swapped[:len(swapped)-1] {
		if w.Value() != nil {
			alive++
		}
	}
	if alive != 0 {
		t.Errorf("%d replaced snapshots still reachable through the dropped subscriber's channel, want 0", alive)
	}
	n := 0
	for range stalled {
		n++
	}
	if n != 0 {
		t.Errorf("the dropped subscriber read %d changes after it fell behind, want its channel closed and empty", n)
	}
}
