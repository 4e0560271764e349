package search

import (
	"time"

	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"kubernetes", "kubernetes", 2, 0},
		{"kuberentes", "kubernetes", 2, 1}, // transposition
		{"fuzing", "fuzzing", 2, 1},        // deletion
		{"airflwo", "airflow", 2, 1},
		{"sclae", "scale", 2, 1},
		{"clustring", "clustering", 2, 1},
		{"playwrigth", "playwright", 2, 1},
		{"custerng", "clustering", 2, 2},
		{"playwrite", "playwright", 2, 3}, // te → ght
		{"abc", "xyz", 2, 3},              // over the limit: limit+1
		{"short", "muchlonger", 2, 3},     // lengths too far apart
		{"", "ab", 2, 2},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a, tt.limit); got != tt.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d (symmetric)", tt.b, tt.a, tt.limit, got, tt.want)
		}
	}
}

func TestTypoNear(t *testing.T) {
	skills := []*catalog.Skill{
		rankSkill("kubernetes-deploy", "Deploy to Kubernetes clusters with clustering of nodes.", "kubectl apply"),
		rankSkill("airflow-dags", "Airflow DAG patterns with sensors; scale pipelines.", "Run backfills."),
		rankSkill("fuzzing", "Fuzzing with cargo fuzz.", "fuzzing harness"),
		rankSkill("scanpy", "scRNA-seq analysis.", "seq data"),
	}
	ix := New(skills, Options{})
	tests := []struct {
		word string
		want string // "" for no correction
		dist int
	}{
		{"kuberentes", "kubernetes", 1},
		{"clustring", "clustering", 1},
		{"airflwo", "airflow", 1},
		{"sclae", "scale", 1},
		{"fuzing", "fuzzing", 1},
		{"kubernetse", "kubernetes", 1},
		{"kbernetess", "kubernetes", 2},
		{"dag", "", 0}, // too short to correct
		{"qwertyuiop", "", 0},
		{"réseau", "", 0}, // only ASCII words are corrected
	}
	for _, tt := range tests {
		got := ix.typoIndex().near(ix, tt.word, 3)
		switch {
		case tt.want == "" && len(got) != 0:
			t.Errorf("near(%q) = %+v, want nothing", tt.word, got)
		case tt.want != "" && (len(got) == 0 || got[0].surface != tt.want || got[0].dist != tt.dist):
			t.Errorf("near(%q) = %+v, want %s at %d", tt.word, got, tt.want, tt.dist)
		}
	}
}

func TestTypoSplit(t *testing.T) {
	ix := New([]*catalog.Skill{rankSkill("scanpy", "scRNA-seq analysis and more analysis.", "scRNA seq data")}, Options{})
	l, r, ok := ix.typoIndex().split(ix, "scrnaseq")
	if !ok || l != "scrna" || r != "seq" {
		t.Errorf("split(scrnaseq) = %q %q %v, want scrna seq", l, r, ok)
	}
	if _, _, ok := ix.typoIndex().split(ix, "zzzzzzzz"); ok {
		t.Error("split(zzzzzzzz) found a cut")
	}
}

// TestTyposLater checks that the typo index is not made with the index (it
// would compete with the first answers) but a moment later, and at once by
// a query that needs it first.
func TestTyposLater(t *testing.T) {
	skills := []*catalog.Skill{
		rankSkill("kubernetes-deploy", "Deploy to Kubernetes clusters.", "kubectl apply"),
		rankSkill("airflow-dags", "Airflow DAG patterns with sensors.", "Run backfills."),
	}
	later := New(skills, Options{})
	tm := later.typosLater(50 * time.Millisecond)
	if tm == nil {
		t.Fatal("typosLater made no timer, but typo tolerance is on")
	}
	if later.typosMade.Load() {
		t.Fatal("the typo index was made with the index")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !later.typosMade.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the typo index was not made after the delay")
		}
		time.Sleep(5 * time.Millisecond)
	}

	first := New(skills, Options{})
	first.typosLater(time.Hour).Stop()
	if hits := first.Search(Query{Text: "kuberentes"}); len(hits) == 0 || hits[0].Skill.Name != "kubernetes-deploy" {
		t.Fatalf("a misspelt query before the delay: %v", hitsString(hits))
	}
	if !first.typosMade.Load() {
		t.Fatal("a misspelt query did not make the typo index")
	}
}
