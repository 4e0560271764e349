package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/defaults"
)

// Defaults of the OpenAI-compatible provider.
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultModel          = "text-embedding-3-small"
	DefaultBatchSize      = 64
	DefaultRequestTimeout = 30 * time.Second
	// maxResponseBytes bounds one response: 64 texts × 3,072 dimensions of
	// JSON numbers is about 5 MB.
	maxResponseBytes = 64 << 20
)

// OpenAIOptions configures an OpenAI-compatible provider.
type OpenAIOptions struct {
	// BaseURL of the API, such as https://api.openai.com/v1 or, for Ollama,
	// http://localhost:11434/v1; requests go to BaseURL + "/embeddings".
	// Empty means DefaultBaseURL.
	BaseURL string
	// Model is sent as "model"; empty means DefaultModel.
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer …". Callers read
	// it from the environment (OPENAI_API_KEY); it is never logged nor put
	// in an error.
	APIKey string
	// BatchSize is the most texts per request; 0 means DefaultBatchSize.
	BatchSize int
	// RequestTimeout bounds each request; 0 means DefaultRequestTimeout.
	// The context's deadline applies too.
	RequestTimeout time.Duration
	// Client sends the requests; nil means a client of its own.
	Client *http.Client
}

// OpenAI speaks the OpenAI embeddings wire format: POST {base}/embeddings
// with {"model","input":[…]}, answered by {"data":[{"index","embedding"}]}.
type OpenAI struct {
	endpoint string
	opts     OpenAIOptions
}

// NewOpenAI returns a provider for opts, or an error naming what is wrong.
func NewOpenAI(opts OpenAIOptions) (*OpenAI, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	if opts.Model == "" {
		opts.Model = DefaultModel
	}
	defaults.Set(&opts.BatchSize, DefaultBatchSize)
	defaults.Set(&opts.RequestTimeout, DefaultRequestTimeout)
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	u, err := url.Parse(opts.BaseURL)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, fmt.Errorf("embedding base URL: want an http:// or https:// URL such as http://localhost:11434/v1")
	case u.User != nil:
		return nil, fmt.Errorf("embedding base URL: must not embed credentials; put the key in OPENAI_API_KEY")
	}
	return &OpenAI{endpoint: strings.TrimRight(opts.BaseURL, "/") + "/embeddings", opts: opts}, nil
}

// Model is the model name sent.
func (o *OpenAI) Model() string { return o.opts.Model }

// Embed embeds texts, BatchSize per request, one request at a time.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += o.opts.BatchSize {
		batch := texts[start:min(start+o.opts.BatchSize, len(texts))]
		vecs, err := o.request(ctx, batch)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && len(vecs) > 0 && len(vecs[0]) != len(out[0]) {
			return nil, fmt.Errorf("embeddings endpoint %s: dimension changed between batches (%d, then %d)", o.endpoint, len(out[0]), len(vecs[0]))
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type embeddingsRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type embeddingsResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

func (o *OpenAI) request(ctx context.Context, batch []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingsRequest{Model: o.opts.Model, Input: batch})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.opts.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if o.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.opts.APIKey)
	}
	resp, err := o.opts.Client.Do(req)
	if err != nil {
		// *url.Error carries the method and URL, never the headers.
		return nil, fmt.Errorf("embeddings endpoint: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("embeddings endpoint %s: reading the answer: %w", o.endpoint, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("embeddings endpoint %s: %s: %s", o.endpoint, resp.Status, excerpt(data))
	}
	if len(data) > maxResponseBytes {
		return nil, fmt.Errorf("embeddings endpoint %s: answer larger than %d bytes", o.endpoint, maxResponseBytes)
	}
	out, err := parseEmbeddings(data, len(batch))
	if err != nil {
		return nil, fmt.Errorf("embeddings endpoint %s: %w", o.endpoint, err)
	}
	return out, nil
}

// parseEmbeddings reads an embeddings answer for n inputs: one non-empty
// vector per input, by index, all of one dimension.
func parseEmbeddings(data []byte, n int) ([][]float32, error) {
	var r embeddingsResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("answer is not an embeddings response: %w", err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("%d embeddings for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range r.Data {
		switch {
		case d.Index < 0 || d.Index >= n || out[d.Index] != nil:
			return nil, fmt.Errorf("bad or repeated index %d", d.Index)
		case len(d.Embedding) == 0:
			return nil, fmt.Errorf("empty embedding at index %d", d.Index)
		case len(d.Embedding) != len(r.Data[0].Embedding):
			return nil, fmt.Errorf("embeddings of different dimensions")
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// excerpt is the start of an error answer, for the log.
func excerpt(b []byte) string {
	const n = 200
	s := strings.TrimSpace(string(b))
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
