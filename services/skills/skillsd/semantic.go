package skillsd

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/embed"
	"github.com/skillsd/skillsd/services/skills/internal/server"
)

// openSemantic returns the semantic search engine of cfg.Embedding, or nil
// for the provider none (nothing leaves the machine). The API key comes
// from OPENAI_API_KEY only; vectors are cached under <state folder>/embeddings
// (in memory only when there is no state folder).
func openSemantic(cfg config.Config, getenv func(string) string, home string, log *slog.Logger) (*embed.Engine, error) {
	e := cfg.Embedding
	if e.Provider != config.ProviderOpenAI {
		return nil, nil
	}
	p, err := embed.NewOpenAI(embed.OpenAIOptions{
		BaseURL:   e.BaseURL,
		Model:     e.Model,
		APIKey:    strings.TrimSpace(getenv("OPENAI_API_KEY")),
		BatchSize: e.BatchSize,
	})
	if err != nil {
		return nil, fmt.Errorf("embedding: %w", err)
	}
	dir := ""
	if state := config.StateDir(cfg, getenv, home); state != "" {
		dir = filepath.Join(state, "embeddings")
	}
	log = log.With("component", "embed")
	log.Info("semantic search on", "base_url", e.BaseURL, "model", p.Model(), "cache", dir,
		"api_key_set", getenv("OPENAI_API_KEY") != "")
	return embed.New(embed.Options{
		Provider:         p,
		CacheDir:         dir,
		QueryTimeout:     time.Duration(e.QueryTimeoutMS) * time.Millisecond,
		StrongSimilarity: e.StrongSimilarity,
		Weight:           e.Weight,
		RestatedWeight:   restatedWeight(e.RestatedWeight),
		BatchSize:        e.BatchSize,
		Logger:           log,
	}), nil
}

// prepareRouting has svc build its search index (and so start embedding
// the skills, with semantic search) now and after every catalog swap,
// rather than at the first search that follows; until s closes.
func (s *Server) prepareRouting(svc *server.Service) {
	ctx := context.Background()
	svc.PrepareRouting(ctx)
	go func() {
		for s.followSwaps(ctx, svc) {
			select {
			case <-s.closeCh:
				return
			case <-time.After(time.Second):
			}
		}
	}()
}

// followSwaps prepares svc's routing after each catalog swap. It returns
// false when s closes, true when the subscription ends (subscribe again).
func (s *Server) followSwaps(ctx context.Context, svc *server.Service) bool {
	changes, stop := s.store.Subscribe()
	defer stop()
	svc.PrepareRouting(ctx) // a swap may have come before Subscribe
	for {
		select {
		case <-s.closeCh:
			return false
		case _, ok := <-changes:
			if !ok {
				return true
			}
			svc.PrepareRouting(ctx)
		}
	}
}

// restatedWeight maps embedding.restated_weight to embed.Options, where 0
// means the package's default: a configured 0 keeps the lexical order.
func restatedWeight(w float64) float64 {
	if w == 0 {
		return -1
	}
	return w
}
