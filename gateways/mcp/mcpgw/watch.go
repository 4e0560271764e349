package mcpgw

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// CatalogChange is one change of the service's catalog, as the gateway
// hears of it on the WatchCatalog stream.
type CatalogChange struct {
	// Generation is the catalog's generation after the change.
	Generation int64
	// Added, Changed and Removed are skill paths (sorted).
	Added, Changed, Removed []string
	// Resync says the stream was opened again after a break: the catalog
	// may have changed in any way since the last change heard (the paths are
	// empty); re-read whatever is cached.
	Resync bool
}

// Empty reports whether the change names no skill (and is no resync).
func (c CatalogChange) Empty() bool {
	return !c.Resync && len(c.Added) == 0 && len(c.Changed) == 0 && len(c.Removed) == 0
}

// CatalogListener is told of each catalog change, in order, on one goroutine:
// it should return quickly (do slow work elsewhere). ctx ends when the watch
// stops.
type CatalogListener func(ctx context.Context, c CatalogChange)

// CatalogWatch follows the service's catalog changes (the WatchCatalog
// stream) for the server New builds, and turns each into MCP notifications:
//   - its listeners run first; the resources and prompts code registers one
//     that brings the SDK's registered resources and prompts up to date,
//     from which the SDK sends notifications/resources/list_changed and
//     notifications/prompts/list_changed by itself;
//   - then notifications/resources/updated goes to the sessions subscribed
//     to a skill:// resource of a skill that changed or was removed.
//
// The native tools' schemas do not depend on the catalog, so no
// notifications/tools/list_changed is sent for a change; a tool set whose
// schemas do (a profile listing skill names) registers a listener and adds
// its tools again, and the SDK sends that notification.
//
// Make one with NewCatalogWatch, pass it in Options.CatalogWatch, and Run it
// for as long as the server serves. The zero value is not usable.
type CatalogWatch struct {
	ready chan struct{} // closed by bind
	g     *gateway
	srv   *mcp.Server

	mu        sync.Mutex
	listeners []CatalogListener
	// subs are the skill:// URIs sessions subscribed to, with how many
	// subscriptions each has.
	subs map[string]int
}

// NewCatalogWatch returns a watch to pass to New.
func NewCatalogWatch() *CatalogWatch {
	return &CatalogWatch{ready: make(chan struct{}), subs: map[string]int{}}
}

// OnChange registers a listener of catalog changes (see CatalogListener).
// It may be called before or after New and Run.
func (w *CatalogWatch) OnChange(l CatalogListener) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.listeners = append(w.listeners, l)
}

// onCatalogChange registers a listener of the gateway's catalog changes; it
// does nothing when the gateway has no CatalogWatch (nothing will change
// while it serves, as far as it knows).
func (g *gateway) onCatalogChange(l CatalogListener) {
	if g.watch != nil {
		g.watch.OnChange(l)
	}
}

// configure adds resource subscriptions to the server's options (keeping
// any subscribe handlers already there), so that the watch knows which
// resources to send updates for.
func (w *CatalogWatch) configure(opts *mcp.ServerOptions) {
	prevSub, prevUnsub := opts.SubscribeHandler, opts.UnsubscribeHandler
	opts.SubscribeHandler = func(ctx context.Context, req *mcp.SubscribeRequest) error {
		if prevSub != nil {
			if err := prevSub(ctx, req); err != nil {
				return err
			}
		}
		w.mu.Lock()
		w.subs[req.Params.URI]++
		w.mu.Unlock()
		return nil
	}
	opts.UnsubscribeHandler = func(ctx context.Context, req *mcp.UnsubscribeRequest) error {
		if prevUnsub != nil {
			if err := prevUnsub(ctx, req); err != nil {
				return err
			}
		}
		w.mu.Lock()
		if w.subs[req.Params.URI]--; w.subs[req.Params.URI] <= 0 {
			delete(w.subs, req.Params.URI)
		}
		w.mu.Unlock()
		return nil
	}
}

// bind ties the watch to the gateway and server New made.
func (w *CatalogWatch) bind(g *gateway, srv *mcp.Server) error {
	select {
	case <-w.ready:
		return errors.New("this CatalogWatch is already used by another server")
	default:
	}
	w.g, w.srv = g, srv
	close(w.ready)
	return nil
}

// Watch backoff after the stream breaks.
const (
	watchRetryMin = 100 * time.Millisecond
	watchRetryMax = 5 * time.Second
)

// Run follows the catalog until ctx ends, opening the stream again (with a
// backoff up to 5 s) whenever it breaks: a remote skillsd that restarts, a
// network that drops. It returns nil when ctx ends, and an error at once if
// the watch was never passed to New; a service that does not stream changes
// (Unimplemented) is logged and Run waits for ctx.
func (w *CatalogWatch) Run(ctx context.Context) error {
	select {
	case <-w.ready:
	default:
		return errors.New("mcpgw: CatalogWatch.Run before New: pass the watch in Options.CatalogWatch first")
	}
	log := w.g.log
	var gen int64 // last generation heard; 0 before the first stream
	delay := watchRetryMin
	for ctx.Err() == nil {
		stream, err := w.g.catalog.WatchCatalog(ctx, &skillsv1.WatchCatalogRequest{})
		var heard bool
		if err == nil {
			heard, err = w.consume(ctx, stream, &gen)
		}
		if ctx.Err() != nil {
			return nil
		}
		if status.Code(err) == codes.Unimplemented {
			log.Info("the skills service does not stream catalog changes: MCP clients will not be told of them")
			<-ctx.Done()
			return nil
		}
		if heard {
			delay = watchRetryMin
		}
		level := slog.LevelDebug
		if delay >= watchRetryMax {
			level = slog.LevelWarn
		}
		log.Log(ctx, level, "catalog change stream broke; opening it again", "in", delay, "error", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(delay*2, watchRetryMax)
	}
	return nil
}

// consume reads one stream until it breaks. It reports whether it heard
// anything, and keeps *gen at the last generation heard.
func (w *CatalogWatch) consume(ctx context.Context, stream skillsv1.CatalogService_WatchCatalogClient, gen *int64) (bool, error) {
	heard := false
	for {
		m, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the service ended the stream")
			}
			return heard, err
		}
		heard = true
		if m.GetInitial() {
			// A first stream describes what the sessions already see; a
			// stream opened again after a break may have missed changes (and
			// the service may be another one, whose generations start anew).
			if *gen != 0 {
				w.dispatch(ctx, CatalogChange{Generation: m.GetGeneration(), Resync: true})
			}
			*gen = m.GetGeneration()
			continue
		}
		*gen = m.GetGeneration()
		w.dispatch(ctx, CatalogChange{
			Generation: m.GetGeneration(),
			Added:      nonNilStrings(m.GetAdded()),
			Changed:    nonNilStrings(m.GetChanged()),
			Removed:    nonNilStrings(m.GetRemoved()),
		})
	}
}

// dispatch tells the listeners, then the subscribers of affected resources.
func (w *CatalogWatch) dispatch(ctx context.Context, c CatalogChange) {
	w.mu.Lock()
	listeners := append([]CatalogListener(nil), w.listeners...)
	w.mu.Unlock()
	for _, l := range listeners {
		l(ctx, c)
	}
	for _, uri := range w.affected(c) {
		if err := w.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			w.g.log.Debug("sending resources/updated", "uri", uri, "error", err)
		}
	}
}

// affected returns the subscribed URIs that c touches: those of skills
// changed or removed (every subscribed URI on a resync).
func (w *CatalogWatch) affected(c CatalogChange) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for uri := range w.subs {
		if c.Resync || touches(uri, c.Changed) || touches(uri, c.Removed) || touches(uri, c.Added) {
			out = append(out, uri)
		}
	}
	return out
}

// touches reports whether uri is a skill:// resource of one of the skills
// (skill://<skill_path>/<file>, or the skill's own URI).
func touches(uri string, skills []string) bool {
	rest, ok := strings.CutPrefix(uri, "skill://")
	if !ok {
		return false
	}
	for _, p := range skills {
		if rest == p || strings.HasPrefix(rest, p+"/") {
			return true
		}
	}
	return false
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
