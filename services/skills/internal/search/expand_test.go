package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
)

func TestExpansionsOffByDefault(t *testing.T) {
	if defaultTuning.expansion != (expansion{}) {
		t.Fatalf("default tuning turns on a recall expansion: %+v", defaultTuning.expansion)
	}
	ix := New(rankFixture(), Options{})
	if ix.fwd != nil || ix.lsi != nil || ix.wn != nil || ix.headDF != nil {
		t.Fatal("an expansion was built for the default tuning")
	}
}

func TestJacobiEigen(t *testing.T) {
	const n = 7
	rng := rand.New(rand.NewPCG(3, 4))
	a := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			v := rng.NormFloat64()
			a[i*n+j], a[j*n+i] = v, v
		}
	}
	orig := slices.Clone(a)
	vals, vecs := jacobiEigen(a, n)
	for e := range n {
		for i := range n {
			var av float64
			for j := range n {
				av += orig[i*n+j] * vecs[j*n+e]
			}
			if d := av - vals[e]*vecs[i*n+e]; math.Abs(d) > 1e-9 {
				t.Fatalf("eigenpair %d: (Av - λv)[%d] = %g", e, i, d)
			}
		}
	}
}

func TestOrthonormalize(t *testing.T) {
	const n, l = 9, 4
	rng := rand.New(rand.NewPCG(5, 6))
	z := make([]float64, n*l)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	orthonormalize(z, n, l)
	for a := range l {
		for b := range l {
			var dot float64
			for i := range n {
				dot += z[i*l+a] * z[i*l+b]
			}
			want := 0.0
			if a == b {
				want = 1
			}
			if math.Abs(dot-want) > 1e-9 {
				t.Fatalf("column %d · column %d = %g, want %g", a, b, dot, want)
			}
		}
	}
}

// coocFixture has two topics; within each, skills share most words, and
// "kubernetes" and "k8s" never meet in one skill.
func coocFixture() []*catalog.Skill {
	return []*catalog.Skill{
		rankSkill("kube-deploy", "Deploy services to a kubernetes cluster with pods and manifests.", ""),
		rankSkill("kube-scale", "Scale kubernetes pods and cluster nodes.", ""),
		rankSkill("k8s-debug", "Debug crashing pods in a k8s cluster from manifests and events.", ""),
		rankSkill("k8s-rbac", "Cluster roles and pods service accounts for k8s.", ""),
		rankSkill("pdf-fill", "Fill fields of PDF forms and flatten them.", ""),
		rankSkill("pdf-merge", "Merge and split PDF documents, reorder pages.", ""),
		rankSkill("pdf-ocr", "Extract text from scanned PDF pages and forms.", ""),
		rankSkill("pdf-sign", "Sign PDF documents and check signatures on pages.", ""),
	}
}

func TestLSIRelatesWordsThatShareContexts(t *testing.T) {
	tu := defaultTuning
	tu.expansion = expansion{lsiRank: 2, lsiIters: 4, lsiWeight: 1}
	ix := New(coocFixture(), Options{tune: &tu, Threshold: -1})
	if ix.lsi == nil {
		t.Fatal("no latent model built")
	}
	got := names(ix.Search(Query{Text: "kubernetes"}))
	// Without LSI only the two skills that say "kubernetes" hit; with it,
	// the k8s skills follow them, and no PDF skill does.
	if len(got) < 4 || !slices.Contains(got[2:4], "k8s-debug") || !slices.Contains(got[2:4], "k8s-rbac") {
		t.Fatalf("kubernetes → %v, want the kube skills then the k8s ones", got)
	}
	if slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "pdf") }) {
		t.Fatalf("kubernetes → %v: a PDF skill", got)
	}
	plain := names(New(coocFixture(), Options{Threshold: -1}).Search(Query{Text: "kubernetes"}))
	if len(plain) != 2 {
		t.Fatalf("without LSI kubernetes → %v, want the two kube skills", plain)
	}
	// Reciprocal rank fusion keeps the lexical ranking's first.
	tu.expansion.lsiRRF = 5
	rrf := names(New(coocFixture(), Options{tune: &tu, Threshold: -1}).Search(Query{Text: "kubernetes"}))
	if len(rrf) < 3 || !strings.HasPrefix(rrf[0], "kube") {
		t.Fatalf("RRF: kubernetes → %v", rrf)
	}
}

func TestCooccurrenceExpandsToWordsSharedBySkills(t *testing.T) {
	tu := defaultTuning
	tu.expansion = expansion{coocTerms: 3, coocMin: 0.3, coocMinShared: 2, coocWeight: 0.5}
	ix := New(coocFixture(), Options{tune: &tu, Threshold: -1})
	got := names(ix.Search(Query{Text: "kubernetes"}))
	// "kubernetes" goes with "pods" and "cluster" in two skills each: the
	// k8s skills, which have those, follow the two that say kubernetes.
	if len(got) != 4 || !strings.HasPrefix(got[0], "kube") || !strings.HasPrefix(got[1], "kube") {
		t.Fatalf("kubernetes → %v, want the kube skills then the k8s ones", got)
	}
	assoc := ix.associated(ix.vocab["kubernet"])
	var words []string
	for _, a := range assoc {
		words = append(words, a.word)
	}
	if !slices.Contains(words, "pod") || !slices.Contains(words, "cluster") {
		t.Fatalf("kubernetes is associated with %v", words)
	}
}

func TestFeedbackBringsNeighboursButKeepsTheDecision(t *testing.T) {
	tu := defaultTuning
	tu.expansion = expansion{fbDocs: 2, fbTerms: 10, fbWeight: 0.5, fbMaxDF: 0.6}
	fb := New(coocFixture(), Options{tune: &tu, Threshold: -1})
	plain := New(coocFixture(), Options{Threshold: -1})
	q := Query{Text: "kubernetes"}
	got, base := fb.Search(q), plain.Search(q)
	if len(base) != 2 || len(got) <= 2 {
		t.Fatalf("feedback did not widen the answer: %v → %v", names(base), names(got))
	}
	if !strings.HasPrefix(got[2].Skill.Name, "k8s") {
		t.Fatalf("feedback's first new skill is %s, want a k8s one (%v)", got[2].Skill.Name, names(got))
	}
	// The best hit's calibrated score is the first ranking's.
	if math.Abs(got[0].Score-base[0].Score) > 1e-12 {
		t.Fatalf("feedback changed the top score: %g → %g", base[0].Score, got[0].Score)
	}
	// Nothing relevant: feedback does not make an answer.
	strict := New(coocFixture(), Options{tune: &tu})
	if hits := strict.Search(Query{Text: "bake sourdough bread at home"}); len(hits) != 0 {
		t.Fatalf("feedback answered an unrelated query: %v", names(hits))
	}
}

// writeWordnet writes a WordNet database of two made-up synsets in the
// wndb(5) format: data lines are addressed by their byte offsets.
func writeWordnet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	header := "  1 This is a made-up test database.\n"
	pad := func(n int) string { return fmt.Sprintf("%08d", n) }
	off1 := len(header)
	s1 := pad(off1) + " 06 n 03 car 0 auto 0 automobile 0 000 | a motor vehicle\n"
	off2 := off1 + len(s1)
	s2 := pad(off2) + " 06 n 02 engine 0 motor 0 000 | a machine\n"
	data := header + s1 + s2
	index := header +
		"auto n 1 0 1 0 " + pad(off1) + "\n" +
		"automobile n 1 0 1 0 " + pad(off1) + "\n" +
		"car n 1 0 1 0 " + pad(off1) + "\n" +
		"engine n 1 0 1 0 " + pad(off2) + "\n" +
		"motor n 1 0 1 0 " + pad(off2) + "\n"
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		d, ix := header, header
		if pos == "noun" {
			d, ix = data, index
		}
		for name, text := range map[string]string{"data." + pos: d, "index." + pos: ix} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func TestWordnetSynonyms(t *testing.T) {
	db, err := loadWordnet(writeWordnet(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := db.synonyms("cars", 2); !slices.Equal(got, []string{"auto", "automobile"}) {
		t.Fatalf("synonyms(cars) = %v", got)
	}
	if got := db.synonyms("motor", 1); !slices.Equal(got, []string{"engine"}) {
		t.Fatalf("synonyms(motor) = %v", got)
	}
	if got := db.synonyms("boat", 2); len(got) != 0 {
		t.Fatalf("synonyms(boat) = %v", got)
	}
	if _, err := loadWordnet(t.TempDir()); err == nil {
		t.Fatal("an empty folder loaded as a WordNet database")
	}
	var none *wordnetDB
	if got := none.synonyms("car", 1); got != nil {
		t.Fatalf("no database: %v", got)
	}

	// In a search: "automobile" is in no skill, its synonym "car" is.
	tu := defaultTuning
	tu.expansion = expansion{wnSenses: 1, wnWeight: 0.5, wnMaxDF: 1, wn: db}
	ix := New(rankFixture2(), Options{tune: &tu, Threshold: -1})
	if got := names(ix.Search(Query{Text: "automobile repair"})); len(got) == 0 || got[0] != "car-repair" {
		t.Fatalf("automobile repair → %v", got)
	}
}

func rankFixture2() []*catalog.Skill {
	return []*catalog.Skill{
		rankSkill("car-repair", "Diagnose a car that will not start.", ""),
		rankSkill("bike-repair", "Fix a bicycle chain and brakes.", ""),
	}
}

// FuzzWordnet feeds arbitrary index and data files to the WordNet reader:
// it must not panic, and synonyms are one-word lemmas.
func FuzzWordnet(f *testing.F) {
	f.Add("car n 1 0 1 0 00000000\n", "00000000 06 n 02 car 0 auto 0 000 | x\n", "car")
	f.Add("x n 9 0 1 0 99999999\n", "", "x")
	f.Add("a n -1 0 0\n", "zz n zz", "a")
	f.Fuzz(func(t *testing.T, index, data, word string) {
		dir := t.TempDir()
		for _, pos := range []string{"noun", "verb", "adj", "adv"} {
			if err := os.WriteFile(filepath.Join(dir, "index."+pos), []byte(index), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "data."+pos), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		db, err := loadWordnet(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, syn := range db.synonyms(word, 3) {
			if syn == "" || strings.ContainsAny(syn, " _") {
				t.Fatalf("synonym %q", syn)
			}
		}
	})
}
