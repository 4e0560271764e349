// Package embedtest has deterministic embeddings for tests: a hashed bag of
// words with a small synonym table (so that meaning can differ from
// spelling), as an in-process embed.Provider and as a fake OpenAI-compatible
// HTTP server on 127.0.0.1.
package embedtest

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Dimensions of the fake vectors.
const Dimensions = 64

// Synonyms map a word to the concept it stands for in the fake model: the
// words of one concept get the same dimension.
var Synonyms = map[string]string{
	"mongodb": "nosql", "mongo": "nosql", "documentdb": "nosql", "nosql": "nosql",
	"k8s": "kubernetes", "kubernetes": "kubernetes", "cluster": "kubernetes", "pods": "kubernetes",
	"invoice": "billing", "invoices": "billing", "billing": "billing", "payment": "billing", "payments": "billing",
}

// Vector is the fake embedding of text: one count per (hashed) concept.
func Vector(text string) []float32 { return VectorN(text, Dimensions) }

// VectorN is Vector with n dimensions (hosted models have 768 to 3,072).
func VectorN(text string, n int) []float32 {
	v := make([]float32, n)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) < 3 {
			continue
		}
		if c, ok := Synonyms[w]; ok {
			w = c
		}
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		v[h.Sum32()%uint32(n)]++
	}
	return v
}

// Provider is VectorN as an embed.Provider, in process.
type Provider struct {
	// Dims is the dimension; 0 means Dimensions.
	Dims int
}

// Embed embeds texts with VectorN.
func (p Provider) Embed(_ context.Context, texts []string) ([][]float32, error) {
	n := p.Dims
	if n <= 0 {
		n = Dimensions
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = VectorN(t, n)
	}
	return out, nil
}

// Model is "fake-bow".
func (Provider) Model() string { return "fake-bow" }

// Request is one request the Server received.
type Request struct {
	Method, Path, Authorization, ContentType string
	Model                                    string
	Input                                    []string
	// Body is the raw JSON body.
	Body []byte
}

// Server is a fake OpenAI-compatible embeddings API serving Vector at
// /v1/embeddings, answering the data in reverse index order (clients must
// sort by index).
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	requests []Request
	status   int
	delay    time.Duration
}

// NewServer starts a Server on 127.0.0.1; it stops at the end of the test.
func NewServer(t interface{ Cleanup(func()) }) *Server {
	s := &Server{status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the API's base URL (…/v1).
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Fail makes the server answer status (e.g. 503), or serve again with 200.
func (s *Server) Fail(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

// Delay makes the server wait d before answering.
func (s *Server) Delay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Inputs is the number of texts received so far.
func (s *Server) Inputs() int {
	n := 0
	for _, r := range s.Requests() {
		n += len(r.Input)
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var in struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	_ = json.Unmarshal(body, &in)
	s.mu.Lock()
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.Path, Authorization: r.Header.Get("Authorization"),
		ContentType: r.Header.Get("Content-Type"), Model: in.Model, Input: in.Input, Body: body,
	})
	status, delay := s.status, s.delay
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if status != http.StatusOK {
		http.Error(w, `{"error":{"message":"model overloaded"}}`, status)
		return
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []datum `json:"data"`
		Model  string  `json:"model"`
	}{Object: "list", Model: in.Model}
	for i := len(in.Input) - 1; i >= 0; i-- {
		out.Data = append(out.Data, datum{Object: "embedding", Index: i, Embedding: Vector(in.Input[i])})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
