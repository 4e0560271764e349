package mcpgw

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Notification methods the catalog watch sends itself (notifier), and the
// one that tells it which notifications a stream of protocol 2026-07-28 or
// later asked for.
const (
	notifyResourcesListChanged = "notifications/resources/list_changed"
	notifyPromptsListChanged   = "notifications/prompts/list_changed"
	notifySubscriptionsAcked   = "notifications/subscriptions/acknowledged"
	methodSubscriptionsListen  = "subscriptions/listen"
)

// notifySendTimeout bounds the sending of one notification to one session: a
// client that stopped reading must not hold up the others for long.
const notifySendTimeout = 5 * time.Second

// notifier sends notifications/resources/list_changed and
// notifications/prompts/list_changed itself: once per catalog change, to
// every session, whether or not it has listed resources or prompts (the SDK
// would send them only when its registered resources and prompts change,
// and those are registered lazily, on the first list, so that a session
// that has not listed yet heard nothing; and a first list by one client
// would tell every client that the lists changed when the catalog did not).
//
// It installs as the server's outermost sending middleware: the SDK's own
// list-changed notifications of resources and prompts are dropped there,
// and the notifier sends its own through the rest of the chain. Sessions of
// protocols before 2026-07-28 get them as they come; sessions of 2026-07-28
// and later only on a subscriptions/listen stream that asked for them,
// tagged with that stream's subscription id (SEP-2575), as the SDK does.
type notifier struct {
	log *slog.Logger

	mu sync.Mutex
	// send is the sending chain below the notifier's middleware.
	send mcp.MethodHandler
	// listens are the subscriptions/listen streams open, by session, in the
	// order they were acknowledged: a client may hold several (the go-sdk
	// opens one for list changes and one per subscribed resource).
	listens map[*mcp.ServerSession][]listenStream
}

// listenStream is one open subscriptions/listen stream.
type listenStream struct {
	id   any
	want mcp.NotificationSubscriptions
}

func newNotifier(log *slog.Logger) *notifier {
	return &notifier{log: log, listens: map[*mcp.ServerSession][]listenStream{}}
}

// install adds the notifier's middleware to server. It must be the last
// sending middleware added.
func (n *notifier) install(server *mcp.Server) {
	server.AddSendingMiddleware(n.sending)
	server.AddReceivingMiddleware(n.receiving)
}

// sending drops the SDK's list-changed notifications of resources and
// prompts, and notes the listen streams the SDK acknowledges.
func (n *notifier) sending(next mcp.MethodHandler) mcp.MethodHandler {
	n.mu.Lock()
	n.send = next
	n.mu.Unlock()
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case notifyResourcesListChanged, notifyPromptsListChanged:
			return nil, nil // the notifier sends these, once per catalog change
		case notifySubscriptionsAcked:
			res, err := next(ctx, method, req)
			if err == nil {
				n.acknowledged(req)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// acknowledged notes the listen stream an acknowledgement opens.
func (n *notifier) acknowledged(req mcp.Request) {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	p, ok2 := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams)
	if !ok || !ok2 || p == nil {
		return
	}
	n.mu.Lock()
	n.listens[ss] = append(n.listens[ss], listenStream{id: p.Meta[mcp.MetaKeySubscriptionID], want: p.Notifications})
	n.mu.Unlock()
}

// receiving forgets a listen stream when its request ends (its id is in the
// result).
func (n *notifier) receiving(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != methodSubscriptionsListen {
			return res, err
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return res, err
		}
		var id any
		if r, ok := res.(*mcp.SubscriptionsListenResult); ok && r != nil {
			id = r.Meta[mcp.MetaKeySubscriptionID]
		}
		if id == nil {
			return res, err // no stream was acknowledged, or its end is not known: forgotten with its session
		}
		n.mu.Lock()
		n.listens[ss] = slices.DeleteFunc(n.listens[ss], func(l listenStream) bool { return l.id == id })
		if len(n.listens[ss]) == 0 {
			delete(n.listens, ss)
		}
		n.mu.Unlock()
		return res, err
	}
}

// listChanged tells every session of server that the resource and prompt
// lists changed: one notification of each, sent to the sessions in
// parallel. It returns when all are sent (or have failed, logged).
func (n *notifier) listChanged(ctx context.Context, server *mcp.Server) {
	n.mu.Lock()
	send := n.send
	n.mu.Unlock()
	live := map[*mcp.ServerSession]bool{}
	if send == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	var wg sync.WaitGroup
	for ss := range server.Sessions() {
		live[ss] = true
		n.mu.Lock()
		streams := slices.Clone(n.listens[ss])
		n.mu.Unlock()
		// On a legacy session, both without meta; on a newer one, each on
		// the last stream that asked for it (once per session, like the SDK).
		var resources, prompts mcp.Meta
		if legacySession(ss) {
			resources, prompts = mcp.Meta{}, mcp.Meta{}
		}
		for _, l := range streams {
			if l.want.ResourcesListChanged {
				resources = mcp.Meta{mcp.MetaKeySubscriptionID: l.id}
			}
			if l.want.PromptsListChanged {
				prompts = mcp.Meta{mcp.MetaKeySubscriptionID: l.id}
			}
		}
		if resources == nil && prompts == nil {
			continue
		}
		wg.Go(func() {
			sctx, cancel := context.WithTimeout(ctx, notifySendTimeout)
			defer cancel()
			if resources != nil {
				req := &mcp.ServerRequest[*mcp.ResourceListChangedParams]{Session: ss, Params: &mcp.ResourceListChangedParams{Meta: metaOrNil(resources)}}
				if _, err := send(sctx, notifyResourcesListChanged, req); err != nil {
					n.log.Debug("sending resources/list_changed", "session", ss.ID(), "error", err)
				}
			}
			if prompts != nil {
				req := &mcp.ServerRequest[*mcp.PromptListChangedParams]{Session: ss, Params: &mcp.PromptListChangedParams{Meta: metaOrNil(prompts)}}
				if _, err := send(sctx, notifyPromptsListChanged, req); err != nil {
					n.log.Debug("sending prompts/list_changed", "session", ss.ID(), "error", err)
				}
			}
		})
	}
	wg.Wait()
	// Streams of sessions gone without ending their listen request.
	n.mu.Lock()
	for ss := range n.listens {
		if !live[ss] {
			delete(n.listens, ss)
		}
	}
	n.mu.Unlock()
}

// legacySession reports whether ss speaks a protocol before 2026-07-28 (it
// gets notifications without asking) and has been initialized.
func legacySession(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion < "2026-07-28"
}

// metaOrNil is m, or nil when it is empty (no _meta on the wire).
func metaOrNil(m mcp.Meta) mcp.Meta {
	if len(m) == 0 {
		return nil
	}
	return m
}
