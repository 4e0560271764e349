package source

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// settleNow makes every folder count as settled for the test (its listing
// kept even when it was just written).
func settleNow(t *testing.T) {
	old := settleWindow
	settleWindow = -time.Hour
	t.Cleanup(func() { settleWindow = old })
}

// listOf is the listing of the folder rel holding entries.
func listOf(rel string, entries ...listedEntry) folderList {
	return folderList{rel: rel, n: len(entries), packed: packOf(entries...)}
}

// listedEntry is an entry a test makes: a name and a type.
type listedEntry = listedDirEntry

// packOf is pack of entries.
func packOf(entries ...listedEntry) string {
	ds := make([]fs.DirEntry, len(entries))
	for i := range entries {
		ds[i] = &entries[i]
	}
	return pack(ds)
}

// walkListed walks r with the listings l and returns what it found, its
// State, and the number of folders taken from l.
func walkListed(t *testing.T, r *Root, l *Listings) ([]Entry, *State) {
	t.Helper()
	entries, _, st, err := WalkWith(t.Context(), r, Limits{}, Options{Listings: l})
	if err != nil {
		t.Fatal(err)
	}
	return entries, st
}

// TestListingsFollowTheDisk: a walk given the listings of an earlier one
// takes every unchanged folder from them and finds exactly what a walk
// without them finds, after every kind of change made in between (a file
// added, removed, renamed, rewritten in place, replaced by a folder, a
// folder added or removed).
func TestListingsFollowTheDisk(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("folder listings are kept on Linux only")
	}
	settleNow(t)
	root := writeTree(t, "", map[string]string{
		"pdf/SKILL.md":           folderSkill,
		"pdf/scripts/run.sh":     "echo\n",
		"pdf/reference.md":       "# ref\n",
		"docx/SKILL.md":          folderSkill,
		"group/x/SKILL.md":       folderSkill,
		"group/x/nested/y/a.txt": "a",
		"ui/react.md":            treeSkill,
		"ui/react/assets/t.txt":  "t",
	})
	r := &Root{Name: "r", Dir: root, Kind: KindLocal}
	_, st := walkListed(t, r, nil)
	if st.Listings().Len() == 0 {
		t.Fatal("no listings kept")
	}
	want := func() []entryView {
		e, _, _, err := WalkWith(t.Context(), r, Limits{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return view(root, e)
	}

	// Nothing changed: every folder from the listings.
	got, again := walkListed(t, r, st.Listings())
	if d := cmp.Diff(want(), view(root, got)); d != "" {
		t.Fatalf("unchanged tree (-want +got):\n%s", d)
	}
	if again.fromListings != st.Listings().Len() {
		t.Errorf("%d of %d folders taken from the listings", again.fromListings, st.Listings().Len())
	}

	abs := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	changes := map[string]func(){
		"file added": func() {
			writeTree(t, root, map[string]string{"pdf/scripts/new.py": "print()\n"})
		},
		"file removed": func() {
			if err := os.Remove(abs("pdf/reference.md")); err != nil {
				t.Fatal(err)
			}
		},
		"file renamed": func() {
			if err := os.Rename(abs("ui/react/assets/t.txt"), abs("ui/react/assets/u.txt")); err != nil {
				t.Fatal(err)
			}
		},
		"file rewritten in place": func() {
			f, err := os.OpenFile(abs("group/x/nested/y/a.txt"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString("longer now"); err != nil {
				t.Fatal(err)
			}
			f.Close()
		},
		"file replaced by a folder": func() {
			if err := os.Remove(abs("pdf/scripts/run.sh")); err != nil {
				t.Fatal(err)
			}
			writeTree(t, root, map[string]string{"pdf/scripts/run.sh/inner.txt": "x"})
		},
		"skill added": func() {
			writeTree(t, root, map[string]string{"group/z/SKILL.md": folderSkill})
		},
		"skill removed": func() {
			if err := os.RemoveAll(abs("docx")); err != nil {
				t.Fatal(err)
			}
		},
	}
	for _, name := range []string{"file added", "file removed", "file renamed", "file rewritten in place", "file replaced by a folder", "skill added", "skill removed"} {
		prev := st.Listings()
		changes[name]()
		got, st = walkListed(t, r, prev)
		if d := cmp.Diff(want(), view(root, got)); d != "" {
			t.Fatalf("%s: the walk with listings differs (-want +got):\n%s", name, d)
		}
		for _, e := range got {
			for _, f := range e.Files {
				info, err := os.Lstat(f.Abs)
				if err != nil || info.Size() != f.Size || !info.ModTime().Equal(f.ModTime) {
					t.Fatalf("%s: %s listed with size %d, time %v; on disk %v, %v", name, f.Abs, f.Size, f.ModTime, info, err)
				}
			}
		}
		if st.fromListings == 0 {
			t.Errorf("%s: no folder taken from the listings", name)
		}
	}
}

// TestListingsKeptOnlySettled: a folder changed within settleWindow of
// its listing is not kept (a change in the same tick would not move its
// stamp); the listings of another tree are not used.
func TestListingsKeptOnlySettled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("folder listings are kept on Linux only")
	}
	root := writeTree(t, "", map[string]string{"pdf/SKILL.md": folderSkill})
	r := &Root{Name: "r", Dir: root, Kind: KindLocal}
	if _, st := walkListed(t, r, nil); st.Listings().Len() != 0 {
		t.Errorf("%d folders written just now kept", st.Listings().Len())
	}
	settleNow(t)
	_, st := walkListed(t, r, nil)
	l := st.Listings()
	other := writeTree(t, "", map[string]string{"pdf/SKILL.md": folderSkill})
	if _, st := walkListed(t, &Root{Name: "r", Dir: other, Kind: KindLocal}, l); st.fromListings != 0 {
		t.Errorf("%d folders of another tree taken from the listings", st.fromListings)
	}
}

// TestListingsRoundTrip: ParseListings reads back what AppendListings
// wrote, with what follows it; damaged or hostile encodings are refused.
func TestListingsRoundTrip(t *testing.T) {
	settleNow(t)
	root := writeTree(t, "", map[string]string{"a/SKILL.md": folderSkill, "a/b/c.txt": "c", "d.md": "# d\n"})
	if runtime.GOOS == "linux" {
		if err := os.Symlink("a", filepath.Join(root, "link")); err != nil {
			t.Fatal(err)
		}
	}
	_, st := walkListed(t, &Root{Name: "r", Dir: root, Kind: KindLocal}, nil)
	l := st.Listings()
	if runtime.GOOS == "linux" && l.Len() == 0 {
		t.Fatal("no listings")
	}
	b := AppendListings(nil, l)
	var streamed bytes.Buffer
	if n, err := WriteListings(&streamed, l); err != nil || n != int64(len(b)) || !bytes.Equal(streamed.Bytes(), b) {
		t.Fatalf("WriteListings wrote %d bytes (%v), not AppendListings's %d", n, err, len(b))
	}
	big := &Listings{realRoot: "/r"} // past WriteListings's buffer
	for i := range 5000 {
		big.folders = append(big.folders, listOf(fmt.Sprintf("f%05d", i), listedEntry{name: "SKILL.md"}, listedEntry{name: "scripts", typ: fs.ModeDir}))
	}
	streamed.Reset()
	if n, err := WriteListings(&streamed, big); err != nil || n != int64(streamed.Len()) || !bytes.Equal(streamed.Bytes(), AppendListings(nil, big)) {
		t.Fatalf("WriteListings of %d folders: %d bytes, %v, not AppendListings's", big.Len(), n, err)
	}
	b = append(b, "rest"...)
	got, rest, err := ParseListings(b)
	if err != nil || string(rest) != "rest" {
		t.Fatalf("ParseListings = %v, rest %q", err, rest)
	}
	if d := cmp.Diff(l, got, cmp.AllowUnexported(Listings{}, folderList{}, folderStamp{})); d != "" {
		t.Fatalf("round trip (-want +got):\n%s", d)
	}
	if none, rest, err := ParseListings(AppendListings(nil, nil)); none != nil || len(rest) != 0 || err != nil {
		t.Errorf("nil listings: %v, %q, %v", none, rest, err)
	}

	hostile := map[string]*Listings{
		"relative root":  {realRoot: "tmp/x", folders: []folderList{{rel: ""}}},
		"escaping rel":   {realRoot: "/tmp", folders: []folderList{{rel: "../etc"}}},
		"unclean rel":    {realRoot: "/tmp", folders: []folderList{{rel: "a//b"}}},
		"absolute rel":   {realRoot: "/tmp", folders: []folderList{{rel: "/etc"}}},
		"folders twice":  {realRoot: "/tmp", folders: []folderList{{rel: "a"}, {rel: "a"}}},
		"name with /":    {realRoot: "/tmp", folders: []folderList{listOf("", listedEntry{name: "a/b"})}},
		"name ..":        {realRoot: "/tmp", folders: []folderList{listOf("", listedEntry{name: ".."})}},
		"empty name":     {realRoot: "/tmp", folders: []folderList{listOf("", listedEntry{name: ""})}},
		"names unsorted": {realRoot: "/tmp", folders: []folderList{listOf("", listedEntry{name: "b"}, listedEntry{name: "a"})}},
		"names twice":    {realRoot: "/tmp", folders: []folderList{listOf("", listedEntry{name: "a"}, listedEntry{name: "a"})}},
		"count wrong":    {realRoot: "/tmp", folders: []folderList{{rel: "", n: 2, packed: packOf(listedEntry{name: "a"})}}},
	}
	for name, h := range hostile {
		if _, _, err := ParseListings(AppendListings(nil, h)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for n := range len(b) - len("rest") {
		if got, _, err := ParseListings(b[:n]); err == nil && got.Len() == l.Len() {
			t.Errorf("cut at %d of %d bytes: all %d folders read", n, len(b), got.Len())
		}
	}
	bad := append([]byte{}, b...)
	bad[0] = 0xff // a huge count
	if _, _, err := ParseListings(bad[:1]); err == nil {
		t.Error("a huge count accepted")
	}
}

// TestListedDirEntry: an entry from a listing describes itself as the
// folder's listing would.
func TestListedDirEntry(t *testing.T) {
	dir := writeTree(t, "", map[string]string{"f.txt": "hello", "sub/x": "x"})
	info, err := os.Lstat(filepath.Join(dir, "f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	l := new(listOf("", listedEntry{name: "f.txt"}, listedEntry{name: "sub", typ: fs.ModeDir}))
	ents, ok := l.entries(dir)
	if !ok || len(ents) != 2 {
		t.Fatalf("entries = %d, %v", len(ents), ok)
	}
	if got, err := ents[0].Info(); err != nil || got.Size() != info.Size() || !got.ModTime().Equal(info.ModTime()) ||
		!got.Mode().IsRegular() || got.IsDir() || got.Name() != "f.txt" || ents[0].IsDir() || ents[0].Type() != 0 {
		t.Errorf("f.txt: %v, %v", got, err)
	}
	if got, err := ents[1].Info(); err != nil || !got.IsDir() || !ents[1].IsDir() || ents[1].Name() != "sub" {
		t.Errorf("sub: %v, %v", got, err)
	}
	gone := new(listOf("", listedEntry{name: "missing.txt"}))
	if _, ok := gone.entries(dir); ok {
		t.Error("a listing with a file gone was taken")
	}
	notFile := new(listOf("", listedEntry{name: "sub"})) // a folder listed as a file
	if _, ok := notFile.entries(dir); ok {
		t.Error("a listing with a file now a folder was taken")
	}
	if !strings.HasPrefix(dir, "/") && runtime.GOOS != "windows" {
		t.Fatal(dir)
	}
}

// FuzzParseListings: ParseListings never panics, and what it accepts
// encodes back to the same bytes.
func FuzzParseListings(f *testing.F) {
	f.Add(AppendListings(nil, &Listings{realRoot: "/r", folders: []folderList{
		{rel: "", stamp: folderStamp{1, 2, 3, 4}, n: 2, packed: packOf(listedEntry{name: "a", typ: fs.ModeDir}, listedEntry{name: "b.md"})},
		listOf("a", listedEntry{name: "l", typ: fs.ModeSymlink}),
	}}))
	f.Add([]byte{0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, rest, err := ParseListings(b)
		if err != nil {
			return
		}
		again := AppendListings(nil, l)
		if string(again) != string(b[:len(b)-len(rest)]) && l != nil {
			// Varints have one shortest form; a longer one may decode to
			// the same values: compare what was decoded instead.
			l2, _, err := ParseListings(again)
			if err != nil || !cmp.Equal(l, l2, cmp.AllowUnexported(Listings{}, folderList{}, folderStamp{})) {
				t.Fatalf("re-encoded: %v", err)
			}
		}
	})
}
