package restgw

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkConditional measures what the ETag costs a catalog read: the
// answer buffered and hashed (sha256), against the same answer written
// straight, for a small and a large answer (a GET /v1/skills page is a few
// KiB to ~100 KiB).
func BenchmarkConditional(b *testing.B) {
	for _, size := range []int{4 << 10, 128 << 10} {
		body := bytes.Repeat([]byte("x"), size)
		next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		})
		req := httptest.NewRequest(http.MethodGet, "/v1/skills", nil)
		for _, tc := range []struct {
			name string
			h    http.Handler
		}{{"plain", next}, {"etag", conditional(next)}} {
			b.Run(tc.name+"/"+sizeName(size), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					tc.h.ServeHTTP(httptest.NewRecorder(), req)
				}
			})
		}
	}
}

// BenchmarkCheckBody measures the body check of a POST (aliases, unknown
// fields) on a search body, against no check.
func BenchmarkCheckBody(b *testing.B) {
	body := `{"query": "write a changelog entry for the release", "limit": 5, "restated": ["release notes from git history"]}`
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/v1/skills:search", strings.NewReader(body))
		if _, e := checkBody(r); e != nil {
			b.Fatal(e)
		}
	}
}

func sizeName(n int) string {
	if n >= 1<<10 {
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}
