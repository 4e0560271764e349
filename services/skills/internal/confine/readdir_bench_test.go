package confine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReadDirTree lists every folder of a catalog-shaped tree and
// describes every regular file, as the catalog's walk does at a warm start
// (one ReadDirResolved per folder, Info for each file; no file is read):
//
//	go test -run '^$' -bench ReadDirTree -benchmem -count 6 ./internal/confine/
//
// The tree is made in a temporary folder with the shape of the benchmark
// corpus (387 skills in 14 repositories: about 960 folders and 2,300
// files), or is the folder SKILLSD_BENCH_WALK_DIR names (the corpus itself,
// say: ../shared/bench/corpus beside the repository), which is only read.
func BenchmarkReadDirTree(b *testing.B) {
	root := os.Getenv("SKILLSD_BENCH_WALK_DIR")
	if root == "" {
		root = b.TempDir()
		makeCorpusShape(b, root)
	}
	dirs, files := walkTree(b, root) // also warms the kernel's caches
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		walkTree(b, root)
	}
	b.ReportMetric(float64(dirs), "folders")
	b.ReportMetric(float64(files), "files")
}

// walkTree lists root and every folder below it, describing every regular
// file; it returns how many folders and files it met.
func walkTree(b *testing.B, root string) (dirs, files int) {
	var sum int64
	var walk func(dir string)
	walk = func(dir string) {
		dirs++
		ents, err := ReadDirResolved(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, de := range ents {
			switch t := de.Type(); {
			case t.IsDir():
				walk(filepath.Join(dir, de.Name()))
			case t.IsRegular():
				info, err := de.Info()
				if err != nil {
					b.Fatal(err)
				}
				sum += info.Size() + info.ModTime().UnixNano()
				files++
			}
		}
	}
	walk(root)
	_ = sum
	return dirs, files
}

// makeCorpusShape fills root with a tree shaped like the benchmark corpus:
// 14 repositories holding 387 skill folders, each with a SKILL.md, a few
// files and one to four folders of references and scripts.
func makeCorpusShape(tb testing.TB, root string) {
	tb.Helper()
	files := map[string]string{}
	for i := range 387 {
		skill := fmt.Sprintf("repo-%02d/skill-%03d-%s", i%14, i, strings.Repeat("x", i%11))
		body := strings.Repeat("skill text ", 20+i%50)
		files[skill+"/SKILL.md"] = "---\nname: s\n---\n" + body
		files[skill+"/LICENSE.txt"] = "license"
		if i%2 == 0 {
			files[skill+"/README.md"] = body
		}
		for j := range 3 {
			files[fmt.Sprintf("%s/references/ref-%d.md", skill, j)] = body
		}
		if i%3 == 0 {
			files[skill+"/scripts/run.py"] = "print(1)\n"
		}
		if i%13 == 0 {
			files[skill+"/references/deep/notes.md"] = body
		}
		if i%24 == 0 {
			files[skill+"/references/deep/more/notes.md"] = body
		}
	}
	write(tb, root, files)
}
