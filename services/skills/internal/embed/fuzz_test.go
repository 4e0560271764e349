package embed

import (
	"testing"
)

// FuzzParseEmbeddings: any answer is either refused with an error or gives
// exactly n non-empty vectors of one dimension.
func FuzzParseEmbeddings(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":1,"embedding":[0.5,1]},{"index":0,"embedding":[1,2]}]}`), 2)
	f.Add([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1e-3]}],"model":"m"}`), 1)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[]}]}`), 1)
	f.Add([]byte(`{"data":null}`), 0)
	f.Add([]byte(`[1,2,3]`), 3)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		out, err := parseEmbeddings(data, n)
		if err != nil {
			return
		}
		if len(out) != n {
			t.Fatalf("%d vectors for %d inputs", len(out), n)
		}
		for i, v := range out {
			if len(v) == 0 || len(v) != len(out[0]) {
				t.Fatalf("vector %d: dimension %d, first %d", i, len(v), len(out[0]))
			}
		}
	})
}
