package usage

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDerive: whatever the data of an event (it comes from other servers'
// publishers), deriving its columns never fails, and every text column is
// what both databases can store and index.
func FuzzDerive(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"skill_path":"pdf","context":"merge  PDFs"}`, `{"candidates":["a",1,null,{"x":"y"},"a"]}`,
		`{"useful":1e308,"comment":"\u0000"}`, `{"query":"\u0000\ud800","result_count":-0.0}`, `{"candidates":"pdf"}`,
		`{"skill_path":"` + strings.Repeat("é", 700) + `"}`, `{"context":[1,2],"skill_path":{"a":1}}`,
	} {
		f.Add(seed, "ambiguous")
	}
	f.Fuzz(func(t *testing.T, data, typ string) {
		var m map[string]any
		if json.Unmarshal([]byte(data), &m) != nil {
			return
		}
		for _, ty := range []string{typ, TypeSkillServed, TypeNoMatch, TypeAmbiguous, TypeSkillFeedback, TypeSearch} {
			e := Event{ID: "x", Type: ty, Timestamp: time.Unix(0, 1), ServerID: "s", Data: m}
			r, err := derive(&e)
			if err != nil {
				t.Fatalf("derive(%s, %s) = %v", ty, data, err)
			}
			texts := append([]string{r.skillPath, r.context, r.contextKey, r.comment, r.data}, r.candidates...)
			for _, s := range texts {
				if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
					t.Fatalf("derive(%s, %s): %q is not storable text", ty, data, s)
				}
			}
			if len(r.skillPath) > maxKeyBytes || (r.context != "" && len(r.contextKey) != 32) || r.context != normContext(r.context) {
				t.Fatalf("derive(%s, %s) = %+v", ty, data, r)
			}
			for _, c := range r.candidates {
				if len(c) > maxKeyBytes {
					t.Fatalf("candidate of %d bytes", len(c))
				}
			}
			if r.useful != 0 && r.useful != 1 || r.noResult != 0 && r.noResult != 1 {
				t.Fatalf("flags %d %d", r.useful, r.noResult)
			}
		}
	})
}
