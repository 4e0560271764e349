package scan

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCacheEncoding: what encodeCache writes, decodeCache reads back the
// same (no findings stays no findings, not unknown), only for the rules it
// was written with; and a file cut short, one with a byte changed, one of
// format 1 (JSON lines) or with trailing bytes is refused whole.
func TestCacheEncoding(t *testing.T) {
	entries := cacheEntries(40)
	entries[""] = []Finding{{Rule: "r", Severity: Critical, Message: "m"}}
	data := encodeCache("rules-a", entries)
	got, err := decodeCache(data, "rules-a")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, entries) {
		t.Fatalf("decoded %d entries that differ from the %d encoded", len(got), len(entries))
	}
	if !bytes.Equal(encodeCache("rules-a", got), data) {
		t.Error("encoding the decoded entries again gives other bytes")
	}
	if _, err := decodeCache(data, "rules-b"); err == nil {
		t.Error("a cache of other rules was taken")
	}
	for n := range len(data) {
		if _, err := decodeCache(data[:n], "rules-a"); err == nil {
			t.Fatalf("the file cut to %d of %d bytes was taken", n, len(data))
		}
	}
	for i := len(cacheMagic); i < len(data); i += 7 {
		bad := bytes.Clone(data)
		bad[i] ^= 0x20
		if _, err := decodeCache(bad, "rules-a"); err == nil {
			t.Fatalf("the file with byte %d changed was taken", i)
		}
	}
	for name, bad := range map[string][]byte{
		"format 1": []byte(`{"format":"skillsd-scan-cache/1","rules":"rules-a"}` + "\n"),
		"trailing": append(bytes.Clone(data), 0),
		"empty":    nil,
	} {
		if _, err := decodeCache(bad, "rules-a"); err == nil {
			t.Errorf("%s: taken", name)
		}
	}
}

// TestCacheFileBadSeverity: a file whose checksum is right but that holds a
// severity out of range is refused whole (it would change what is
// quarantined).
func TestCacheFileBadSeverity(t *testing.T) {
	for _, sev := range []Severity{0, Critical + 1, Off} {
		data := encodeCache("r", map[string][]Finding{"k": {{Rule: "x", Severity: sev}}})
		if _, err := decodeCache(data, "r"); err == nil {
			t.Errorf("severity %d: taken", sev)
		}
	}
}

// TestCacheFileWrittenInFormat2: Flush writes the binary format under the
// file name that says so, and a scanner reads the scans back from it.
func TestCacheFileWrittenInFormat2(t *testing.T) {
	file := filepath.Join(t.TempDir(), CacheFileName())
	if filepath.Ext(file) != ".bin" {
		t.Fatalf("cache file %s: want a .bin file", file)
	}
	s, err := New(Options{CacheFile: file})
	if err != nil {
		t.Fatal(err)
	}
	want := cacheEntries(10)
	for k, v := range want {
		s.cache.put(k, v)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil || !bytes.HasPrefix(data, []byte("skillsd-scan-cache/2\n")) {
		t.Fatalf("cache file: %.40q, %v", data, err)
	}
	r, err := New(Options{CacheFile: file})
	if err != nil {
		t.Fatal(err)
	}
	r.Preload()
	got := maps.Collect(maps.All(r.cache.young))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %d scans, want the %d flushed", len(got), len(want))
	}
}

// FuzzCacheDecode: any payload behind a right checksum decodes without a
// panic, and what decodes encodes again to a file that decodes the same.
func FuzzCacheDecode(f *testing.F) {
	for _, n := range []int{0, 1, 9} {
		data := encodeCache("rules", cacheEntries(n))
		f.Add(data[len(cacheMagic) : len(data)-4])
	}
	f.Add([]byte{5, 'r', 'u', 'l', 'e', 's', 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, payload []byte) {
		data := append([]byte(cacheMagic), payload...)
		data = binary.LittleEndian.AppendUint32(data, crc32.Checksum(payload, castagnoli))
		got, err := decodeCache(data, "rules")
		if err != nil {
			return
		}
		again, err := decodeCache(encodeCache("rules", got), "rules")
		if err != nil {
			t.Fatalf("re-encoded entries refused: %v", err)
		}
		if !reflect.DeepEqual(again, got) {
			t.Fatal("re-encoded entries decode differently")
		}
	})
}

// TestFlushRemovesFormat1: a Flush under the package's file name removes
// the JSON lines cache an earlier version left beside it; under another
// name it leaves its neighbours alone.
func TestFlushRemovesFormat1(t *testing.T) {
	for _, c := range []struct {
		name string
		gone bool
	}{{CacheFileName(), true}, {"scans.bin", false}} {
		dir := t.TempDir()
		file := filepath.Join(dir, c.name)
		legacy := strings.TrimSuffix(file, ".bin") + ".jsonl"
		if err := os.WriteFile(legacy, []byte(`{"format":"skillsd-scan-cache/1","rules":"x"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := New(Options{CacheFile: file})
		if err != nil {
			t.Fatal(err)
		}
		s.cache.put("k", []Finding{})
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, err := os.Stat(legacy); os.IsNotExist(err) != c.gone {
			t.Errorf("%s: the format 1 file gone: %t, want %t", c.name, os.IsNotExist(err), c.gone)
		}
	}
}
