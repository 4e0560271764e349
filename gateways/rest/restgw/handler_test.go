package restgw

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestPanicRecovered(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	tests := []struct {
		name string
		next http.HandlerFunc
		want int
	}{
		{"before writing", func(http.ResponseWriter, *http.Request) { panic("boom") }, http.StatusInternalServerError},
		{"after writing", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusAccepted)
			panic("boom")
		}, http.StatusAccepted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &handler{next: tc.next, errors: &errorWriter{log: log}, maxBody: DefaultMaxBodyBytes, log: log}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/v1/skills", nil))
			if rec.Code != tc.want {
				t.Errorf("status %d, want %d", rec.Code, tc.want)
			}
			if tc.want != http.StatusInternalServerError {
				return
			}
			var body errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %s: %v", rec.Body, err)
			}
			if body.Error.Code != "INTERNAL" || body.Error.Details["grpc_code"] != "Internal" {
				t.Errorf("body %s, want an INTERNAL error", rec.Body)
			}
		})
	}
}

func TestAbortHandlerPanicPropagates(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	h := &handler{next: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }), errors: &errorWriter{log: log}, maxBody: 1, log: log}
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", p)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/", nil))
}
