package confine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// setHook sets testHookListed for the rest of the test.
func setHook(t *testing.T, h func([]direntRec)) {
	testHookListed = h
	t.Cleanup(func() { testHookListed = nil })
}

// TestReadDirResolvedUnknownType: when the file system gives no type
// (DT_UNKNOWN), each entry is described relative to the open folder and
// the listing is still that of os.ReadDir.
func TestReadDirResolvedUnknownType(t *testing.T) {
	dir := mixedFolder(t)
	setHook(t, func(recs []direntRec) {
		for i := range recs {
			recs[i].typ = unknownType
		}
	})
	sameAsOS(t, dir)
}

// TestReadDirResolvedVanished: a regular file removed between the listing
// and its description stays listed and its Info fails with fs.ErrNotExist
// (as with os.ReadDir, whose Info is a later lstat); an entry of unknown
// type removed so is left out (as os.ReadDir does); a folder removed so
// fails when its Info is asked for.
func TestReadDirResolvedVanished(t *testing.T) {
	dir := mixedFolder(t)
	remove := func(names ...string) {
		for _, n := range names {
			if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	setHook(t, func([]direntRec) { remove("with space.md", "emptydir") })
	ents, err := ReadDirResolved(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, de := range ents {
		switch de.Name() {
		case "with space.md", "emptydir":
			seen++
			info, err := de.Info()
			var pe *fs.PathError
			if info != nil || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Op != "lstat" || pe.Path != filepath.Join(dir, de.Name()) {
				t.Errorf("%s removed after the listing: Info = %v, %v; want an lstat *fs.PathError matching fs.ErrNotExist", de.Name(), info, err)
			}
		}
	}
	if seen != 2 {
		t.Errorf("the removed entries are listed %d times; want 2 (listed, Info failing)", seen)
	}

	setHook(t, func(recs []direntRec) {
		for i := range recs {
			recs[i].typ = unknownType
		}
		remove("b.md", "sub")
	})
	ents, err = ReadDirResolved(dir)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(ents, func(de fs.DirEntry) bool { return de.Name() == "b.md" || de.Name() == "sub" }) {
		t.Errorf("entries of unknown type removed after the listing are listed: %v", ents)
	}
	testHookListed = nil
	sameAsOS(t, dir)
}

// dirent encodes one linux_dirent64 record, padded to 8 bytes.
func dirent(ino uint64, typ byte, name string) []byte {
	n := direntNameOff + len(name) + 1
	n = (n + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint64(b, ino)
	binary.NativeEndian.PutUint16(b[direntReclenOff:], uint16(n))
	b[direntTypeOff] = typ
	copy(b[direntNameOff:], name)
	return b
}

func TestParseDirents(t *testing.T) {
	buf := slices.Concat(
		dirent(1, syscall.DT_DIR, "."),
		dirent(2, syscall.DT_DIR, ".."),
		dirent(3, syscall.DT_REG, "a.md"),
		dirent(0, syscall.DT_LNK, "zero-inode"),
		dirent(5, syscall.DT_UNKNOWN, "ünïcødé name"),
		dirent(6, syscall.DT_CHR, "tty"),
		dirent(7, 99, "odd type"),
	)
	recs, names := parseDirents(buf, nil, nil)
	type ent struct {
		name string
		typ  fs.FileMode
	}
	var got []ent
	for _, r := range recs {
		got = append(got, ent{string(names[r.off:r.end]), r.typ})
	}
	want := []ent{
		{"a.md", 0},
		{"zero-inode", fs.ModeSymlink},
		{"ünïcødé name", unknownType},
		{"tty", fs.ModeDevice | fs.ModeCharDevice},
		{"odd type", unknownType},
	}
	if !slices.Equal(got, want) {
		t.Errorf("parseDirents = %+v\nwant %+v", got, want)
	}
	// A truncated buffer: the records that fit, nothing read beyond.
	recs, _ = parseDirents(buf[:len(buf)-3], nil, nil)
	if len(recs) != len(want)-1 {
		t.Errorf("truncated buffer: %d records, want %d", len(recs), len(want)-1)
	}
}

// FuzzParseDirents: any buffer parses without a panic into names that are
// in the buffer, hold no NUL and are neither empty, "." nor "..".
func FuzzParseDirents(f *testing.F) {
	f.Add(slices.Concat(dirent(1, syscall.DT_REG, "a"), dirent(2, syscall.DT_DIR, "sub")))
	f.Add(dirent(1, syscall.DT_LNK, "long name with spaces and ünïcødé"))
	f.Add(dirent(1, syscall.DT_DIR, "..")[:20])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, buf []byte) {
		recs, names := parseDirents(buf, []direntRec{}, []byte("prefix"))
		if len(recs) > len(buf)/direntNameOff {
			t.Fatalf("%d records from %d bytes", len(recs), len(buf))
		}
		end := len("prefix")
		for _, r := range recs {
			if r.off != end || r.end <= r.off || r.end > len(names) {
				t.Fatalf("record %+v out of order or bounds (names: %d bytes)", r, len(names))
			}
			end = r.end
			name := names[r.off:r.end]
			if bytes.IndexByte(name, 0) >= 0 || string(name) == "." || string(name) == ".." || !bytes.Contains(buf, name) {
				t.Fatalf("bad name %q", name)
			}
		}
		if end != len(names) {
			t.Fatalf("names hold %d bytes, records %d", len(names), end)
		}
	})
}
