package embed_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/embed"
	"github.com/skillsd/skillsd/services/skills/internal/embed/embedtest"
	"github.com/skillsd/skillsd/services/skills/internal/search"
)

// benchSkills is n skills of random words from a vocabulary of 2,000
// (deterministic), the size of ARCHITECTURE's performance targets.
func benchSkills(n int) []*catalog.Skill {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx%c", i, 'a'+rune(i%26))
	}
	words := func(k int) string {
		var b strings.Builder
		for i := range k {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[r.IntN(len(vocab))])
		}
		return b.String()
	}
	out := make([]*catalog.Skill, n)
	for i := range out {
		out[i] = mkSkill(fmt.Sprintf("skill-%d", i), words(20), "# Body\n\n"+words(150))
	}
	return out
}

func BenchmarkSearch(b *testing.B) {
	skills := benchSkills(3000)
	ix := search.New(skills, search.Options{})
	queries := make([]string, 50)
	for i := range queries {
		// Words of a skill's description: the lexical engine answers.
		queries[i] = strings.Join(strings.Fields(skills[i*37].Description)[:4], " ")
	}
	b.Run("lexical", func(b *testing.B) {
		i := 0
		for b.Loop() {
			ix.Search(search.Query{Text: queries[i%len(queries)]})
			i++
		}
	})
	for _, dims := range []int{64, 1536} {
		e := embed.New(embed.Options{Provider: embedtest.Provider{Dims: dims}, Weight: 0.3})
		set := e.Sync(skills)
		for set.Pending() > 0 { // the background pass, in process
			time.Sleep(time.Millisecond)
		}
		b.Run(fmt.Sprintf("fused/dims=%d", dims), func(b *testing.B) {
			i := 0
			for b.Loop() {
				set.Search(b.Context(), ix, search.Query{Text: queries[i%len(queries)]})
				i++
			}
		})
		e.Close()
	}
}
