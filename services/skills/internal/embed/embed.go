// Package embed is the optional semantic search of ARCHITECTURE's "Search"
// paragraph: an embedding Provider interface, an OpenAI-compatible HTTP
// implementation (hosted APIs and local servers such as Ollama), skill
// vectors computed in the background and cached on disk by (model, content
// hash), and the fusion of the lexical ranking of package search with the
// similarities (a small, calibrated reordering of the lexical hits, and
// skills found by meaning alone only when strongly similar: fuse.go).
//
// Semantic search is an addition, never a dependency: when no provider is
// configured nothing is computed and nothing leaves the machine; when the
// endpoint is slow or down, searches answer from the lexical engine alone
// (the query is embedded with a short timeout) and the skill vectors are
// retried later. The lexical engine's own results are not changed by this
// package: it only reorders and completes them.
package embed

import "context"

// Provider turns texts into vectors.
type Provider interface {
	// Embed returns one vector per text, in order, all of the same
	// dimension. It fails as a whole.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model; vectors of different models are never mixed.
	Model() string
}
