package embed_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/embed"
	"github.com/skillsd/skillsd/services/skills/internal/embed/embedtest"
)

const secret = "sk-test-secret-key"

func TestOpenAIWireFormatAndBatching(t *testing.T) {
	srv := embedtest.NewServer(t)
	p, err := embed.NewOpenAI(embed.OpenAIOptions{BaseURL: srv.BaseURL() + "/", Model: "nomic-embed-text", APIKey: secret, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"alpha one", "beta two", "gamma three", "delta four", "epsilon five"}
	vecs, err := p.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	// The server answers in reverse order: the client puts them back by index.
	for i, text := range texts {
		if !slices.Equal(vecs[i], embedtest.Vector(text)) {
			t.Errorf("vector %d is not the embedding of %q", i, text)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests: got %d, want 3 (batches of 2, 2, 1)", len(reqs))
	}
	for i, r := range reqs {
		if r.Method != http.MethodPost || r.Path != "/v1/embeddings" {
			t.Errorf("request %d: got %s %s, want POST /v1/embeddings", i, r.Method, r.Path)
		}
		if r.Authorization != "Bearer "+secret {
			t.Errorf("request %d: Authorization %q, want the bearer key", i, r.Authorization)
		}
		if r.ContentType != "application/json" {
			t.Errorf("request %d: Content-Type %q", i, r.ContentType)
		}
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("request %d: body is not JSON: %v", i, err)
		}
		if len(body) != 2 || body["model"] != "nomic-embed-text" {
			t.Errorf("request %d: body %s, want exactly model and input", i, r.Body)
		}
		want := texts[2*i : min(2*i+2, len(texts))]
		if !slices.Equal(r.Input, want) {
			t.Errorf("request %d: input %q, want %q", i, r.Input, want)
		}
	}
}

func TestOpenAINoKeyNoAuthorization(t *testing.T) {
	srv := embedtest.NewServer(t) // a local server such as Ollama needs no key
	p, err := embed.NewOpenAI(embed.OpenAIOptions{BaseURL: srv.BaseURL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Authorization != "" || r.Model != embed.DefaultModel {
		t.Errorf("got Authorization %q, model %q; want none and %q", r.Authorization, r.Model, embed.DefaultModel)
	}
}

func TestOpenAIErrors(t *testing.T) {
	answer := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	cases := []struct {
		name, url, want string
	}{
		{"status", answer(503, `{"error":"overloaded"}`), "503 Service Unavailable: {\"error\":\"overloaded\"}"},
		{"not json", answer(200, `<html>`), "not an embeddings response"},
		{"too few", answer(200, `{"data":[{"index":0,"embedding":[1]}]}`), "1 embeddings for 2 inputs"},
		{"repeated index", answer(200, `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`), "bad or repeated index 0"},
		{"dimensions", answer(200, `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1,2]}]}`), "different dimensions"},
		{"empty", answer(200, `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1]}]}`), "empty embedding"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := embed.NewOpenAI(embed.OpenAIOptions{BaseURL: c.url, APIKey: secret})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Embed(t.Context(), []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error shows the API key: %v", err)
			}
		})
	}
}

func TestOpenAITimeout(t *testing.T) {
	srv := embedtest.NewServer(t)
	srv.Delay(5 * time.Second)
	p, err := embed.NewOpenAI(embed.OpenAIOptions{BaseURL: srv.BaseURL(), APIKey: secret, RequestTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Embed(t.Context(), []string{"a"})
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") || strings.Contains(err.Error(), secret) {
		t.Fatalf("got %v, want a deadline error without the key", err)
	}
}

func TestNewOpenAIBadURL(t *testing.T) {
	for _, u := range []string{"localhost:11434", "ftp://x/v1", "https://user:sk-x@api.example.com/v1"} {
		_, err := embed.NewOpenAI(embed.OpenAIOptions{BaseURL: u})
		if err == nil || !strings.HasPrefix(err.Error(), "embedding base URL: ") || strings.Contains(err.Error(), "sk-x") {
			t.Errorf("%s: got %v, want a clear error without the URL's secrets", u, err)
		}
	}
}
