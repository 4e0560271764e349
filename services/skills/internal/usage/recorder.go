package usage

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// Defaults of Options.
const (
	DefaultFlushInterval = 30 * time.Second
	DefaultSyncInterval  = time.Second
	DefaultMaxSpoolBytes = 64 << 20
	DefaultQueueSize     = 4096
	DefaultPostTimeout   = 10 * time.Second
	// dropLogEvery bounds the "spool full" warnings.
	dropLogEvery = time.Minute
	// feedBatch is the most events the store feeder writes in one transaction.
	feedBatch = 512
	// maxStoredIDs bounds Recorder.stored.
	maxStoredIDs = 1 << 16
	// feedDelay is how long the store feeder gathers events before writing.
	feedDelay = 200 * time.Millisecond
	// recentComments is how many comments Stats returns per skill.
	recentComments = 5
	// storeWriteTimeout bounds one write of the feeder to the store.
	storeWriteTimeout = 30 * time.Second
	// closeWriteBudget bounds the writes of what is queued at Close: the
	// events are in the spool whatever happens, so a database that does not
	// answer must not hold up a stop.
	closeWriteBudget = 2 * time.Second
	// storeAnswerTimeout bounds Stats and Ingest: a database that does not
	// answer within it is Unavailable, not a call that hangs until its
	// caller gives up.
	storeAnswerTimeout = 10 * time.Second
	// pendingRetry is how soon the feeder tries again to store the events
	// a down database refused, so that once it is back they are stored, and
	// the spool delivered, without waiting for new events or the next
	// FlushInterval.
	pendingRetry = 2 * time.Second
	// firstRetry is the wait after a failed delivery; it doubles after
	// each failure, up to FlushInterval.
	firstRetry = time.Second
)

// Options configures a Recorder.
type Options struct {
	// Dir is the analytics folder (the spool in Dir/spool, the SQLite store
	// in Dir/usage.db), usually SKILLSD_HOME/analytics. Required.
	Dir string
	// Store keeps the events and answers Stats; nil means the SQLite store
	// at Dir/usage.db. The Recorder owns it: Close (or a failed Open)
	// closes it.
	Store Store
	// Endpoint receives {"events": [...]} batches by POST; empty keeps the
	// events local (the store only).
	Endpoint string
	// FlushInterval is the time between two deliveries; zero means 30 s.
	FlushInterval time.Duration
	// SyncInterval bounds how long an appended event waits for its fsync;
	// zero means 1 s.
	SyncInterval time.Duration
	// MaxSpoolBytes caps the spool; zero means 64 MiB. When it is reached new
	// events are dropped (counted and logged), never the spooled ones.
	MaxSpoolBytes int64
	// QueueSize is the in-memory queue to the store; zero means 4096. When it
	// is full an event reaches the store at the next delivery instead.
	QueueSize int
	// PostTimeout bounds one POST to the endpoint; zero means 10 s.
	PostTimeout time.Duration
	// ServerID is every event's server_id; empty means "dev-unknown".
	ServerID string
	// Client posts the batches; nil means a default client.
	Client *http.Client
	// Logger receives the log; nil discards it.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// StoreAfter, when set and Store is nil, defers opening the SQLite
	// store, and the delivery at start that needs it, until StoreAfter is
	// closed or a call needs the store (Stats, Ingest, Flush), whichever
	// comes first: a process's start then opens no database before its
	// first answers. Open cannot tell then that the store does not open;
	// when it does not, OnStoreError is told, the Recorder records nothing
	// from then on (Enabled is false), and what it spooled before stays in
	// the spool for the next process.
	StoreAfter <-chan struct{}
	// OnStoreError is told, once, why a deferred store did not open.
	OnStoreError func(error)
}

// Recorder records usage events: Record appends each to the spool before it
// returns; in the background a feeder writes them to the store, a syncer
// fsyncs the spool, and a publisher delivers the spool (to the store, then
// the endpoint) every FlushInterval. A nil *Recorder records nothing.
type Recorder struct {
	opts  Options
	log   *slog.Logger
	now   func() time.Time
	spool *spool
	store Store
	queue chan Event
	// barrier asks the feeder to store what is queued and answer.
	barrier chan chan struct{}
	// kick asks the publisher for a delivery now (the store is back).
	kick chan struct{}

	flushMu sync.Mutex
	// firstFlush is closed once the delivery at start has run.
	firstFlush chan struct{}
	stop       chan struct{}
	// endLife ends the feeder's context when Close is called: store writes
	// in progress give up.
	endLife context.CancelFunc
	wg      sync.WaitGroup
	closed  atomic.Bool
	// off says a deferred store did not open (Options.StoreAfter): the
	// Recorder records nothing more.
	off atomic.Bool
	// storeReady is closed once the store may be used: at once, or for a
	// deferred one when StoreAfter is closed or a call opened it first.
	storeReady <-chan struct{}

	// stored holds the ids of this process's events the feeder stored, so
	// that delivering their segment does not store them a second time
	// (bounded by maxStoredIDs; an id left out is stored again, harmlessly).
	storedMu sync.Mutex
	stored   map[string]struct{}

	dropped    atomic.Int64 // events refused since the last warning
	droppedAll atomic.Int64
	// deliveredAll counts the events the publisher delivered (metrics).
	deliveredAll atomic.Int64
	full         atomic.Bool  // an event was refused since the last one recorded
	lastDropLog  atomic.Int64 // Unix nanoseconds
	// lastFeedLog is when the feeder last warned that the store refused a
	// batch (Unix nanoseconds; the feeder's own).
	lastFeedLog int64
}

// Open opens the spool and the store under opts.Dir and starts the
// background work; the first delivery runs at once (what a previous run left
// in the spool). Close stops it.
func Open(ctx context.Context, opts Options) (r *Recorder, err error) {
	if opts.Store != nil {
		defer func() {
			if err != nil {
				_ = opts.Store.Close()
			}
		}()
	}
	if opts.Dir == "" {
		return nil, errors.New("usage: no folder for the analytics spool and store")
	}
	opts.FlushInterval = cmp.Or(opts.FlushInterval, DefaultFlushInterval)
	opts.SyncInterval = cmp.Or(opts.SyncInterval, DefaultSyncInterval)
	opts.MaxSpoolBytes = cmp.Or(opts.MaxSpoolBytes, DefaultMaxSpoolBytes)
	opts.QueueSize = cmp.Or(opts.QueueSize, DefaultQueueSize)
	opts.PostTimeout = cmp.Or(opts.PostTimeout, DefaultPostTimeout)
	opts.ServerID = cmp.Or(opts.ServerID, "dev-unknown")
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	sp, err := openSpool(filepath.Join(opts.Dir, "spool"), opts.MaxSpoolBytes)
	if err != nil {
		return nil, err
	}
	r = &Recorder{opts: opts, log: log, now: now, spool: sp, store: opts.Store,
		queue: make(chan Event, opts.QueueSize), barrier: make(chan chan struct{}), kick: make(chan struct{}, 1), stored: map[string]struct{}{}, stop: make(chan struct{}), firstFlush: make(chan struct{})}
	if r.store == nil {
		db := filepath.Join(opts.Dir, "usage.db")
		openDB := func(ctx context.Context) (Store, error) { return OpenSQLite(ctx, db, StoreOptions{Logger: log}) }
		if opts.StoreAfter != nil {
			later := newLaterStore(openDB, r.storeFailed)
			r.store = later
			r.storeReady = anyClosed(opts.StoreAfter, later.opened)
		} else if r.store, err = openDB(ctx); err != nil {
			return nil, err
		}
	}
	life, endLife := context.WithCancel(context.Background())
	r.endLife = endLife
	r.wg.Add(3)
	go r.feed(life)
	go r.syncLoop()
	go r.publishLoop()
	return r, nil
}

// anyClosed returns a channel closed once a or b is.
func anyClosed(a, b <-chan struct{}) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		defer close(c)
		select {
		case <-a:
		case <-b:
		}
	}()
	return c
}

// Enabled reports whether r records: r is not nil, and its store did not
// fail to open later (Options.StoreAfter).
func (r *Recorder) Enabled() bool { return r != nil && !r.off.Load() }

// storeFailed turns r off: its deferred store did not open.
func (r *Recorder) storeFailed(err error) {
	r.off.Store(true)
	if r.opts.OnStoreError != nil {
		r.opts.OnStoreError(err)
	}
}

// Record appends an event of p's type and data to the spool, then offers it
// to the store's queue without waiting. It returns the event, or an error
// when the event could not be spooled (ErrSpoolFull, a disk error, closed);
// callers on a request path log it and go on. A nil Recorder returns a zero
// Event and nil.
func (r *Recorder) Record(p Payload) (Event, error) { return r.RecordFor("", p) }

// RecordFor is Record for an event made by the call whose request id is
// call: the event's ID is then KeyedID(call, its type and data), so that the
// same call made again records the same event, which a store keeps once. A
// client retries a read on another replica when the first died before
// answering (package upstream), after that one may have recorded the
// event: with one id, the fleet's shared store holds it once. An empty call
// is Record.
func (r *Recorder) RecordFor(call string, p Payload) (Event, error) {
	if !r.Enabled() {
		return Event{}, nil
	}
	if r.closed.Load() {
		return Event{}, errors.New("usage: recorder is closed")
	}
	typ, data := p.Type, p.Data
	now := r.now()
	id := NewID(now)
	if call != "" {
		fields, err := json.Marshal(data) // map keys sorted: the same data, the same bytes
		if err != nil {
			return Event{}, fmt.Errorf("usage: encoding a %s event: %w", typ, err)
		}
		id = KeyedID(call, typ, fields)
	}
	e := Event{ID: id, Type: typ, Timestamp: now.UTC(), ServerID: r.opts.ServerID, Data: data}
	line, err := json.Marshal(e)
	if err != nil {
		return Event{}, fmt.Errorf("usage: encoding a %s event: %w", typ, err)
	}
	if len(line) > MaxEventBytes {
		return Event{}, fmt.Errorf("usage: a %s event of %d bytes is larger than %d", typ, len(line), MaxEventBytes)
	}
	if err := r.spool.append(line); err != nil {
		if errors.Is(err, ErrSpoolFull) {
			r.droppedFull(now, err)
		} else {
			r.log.Error("usage event not recorded", "type", typ, "err", err)
		}
		return Event{}, err
	}
	if r.full.Load() && r.full.CompareAndSwap(true, false) {
		r.log.Info("usage spool has room again: events are recorded again", "dropped_total", r.droppedAll.Load())
	}
	select {
	case r.queue <- e:
	default: // the store gets it from the spool at the next delivery
	}
	return e, nil
}

// droppedFull counts an event refused by a full spool (its cap reached, or
// its disk full: cause says which) and warns at most once a minute.
func (r *Recorder) droppedFull(now time.Time, cause error) {
	r.full.Store(true)
	r.droppedAll.Add(1)
	n := r.dropped.Add(1)
	last := r.lastDropLog.Load()
	if last != 0 && now.UnixNano()-last < int64(dropLogEvery) {
		return
	}
	if !r.lastDropLog.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	r.dropped.Add(-n)
	reason := "the spool reached its cap (cap_bytes)"
	var errno syscall.Errno
	if errors.As(cause, &errno) {
		reason = "its disk: " + errno.Error()
	}
	r.log.Warn("usage spool is full: new events are dropped until the publisher delivers the spooled ones, or the disk has room",
		"reason", reason, "dropped", n, "dropped_total", r.droppedAll.Load(), "cap_bytes", r.opts.MaxSpoolBytes, "spool", r.spool.dir, "endpoint_set", r.opts.Endpoint != "")
}

// Delivered is the number of events the publisher delivered from the
// spool to every sink since the recorder opened.
func (r *Recorder) Delivered() int64 {
	if r == nil {
		return 0
	}
	return r.deliveredAll.Load()
}

// SpoolBytes is the size of the spool's segments, as last counted plus
// appended since: the events waiting for the publisher.
func (r *Recorder) SpoolBytes() int64 {
	if r == nil || r.spool == nil {
		return 0
	}
	r.spool.mu.Lock()
	defer r.spool.mu.Unlock()
	return r.spool.total
}

// Dropped is the number of events refused because the spool was full.
func (r *Recorder) Dropped() int64 {
	if r == nil {
		return 0
	}
	return r.droppedAll.Load()
}

// Ingest stores a batch from another server's publisher, once per event id.
func (r *Recorder) Ingest(ctx context.Context, events []Event) (accepted, duplicates int, err error) {
	bounded, cancel := context.WithTimeout(ctx, storeAnswerTimeout)
	defer cancel()
	accepted, duplicates, err = r.store.Ingest(bounded, events)
	return accepted, duplicates, unanswered(ctx, bounded, "storing usage events", err)
}

// Stats aggregates the stored events of a window. Events this recorder
// recorded before the call are counted (the queue is stored first).
func (r *Recorder) Stats(ctx context.Context, w Window) (*Stats, error) {
	if w.Comments == 0 {
		w.Comments = recentComments
	}
	// A database that accepts connections but does not answer (a network
	// that drops packets) is unavailable after storeAnswerTimeout.
	sctx, cancel := context.WithTimeout(ctx, storeAnswerTimeout)
	defer cancel()
	done := make(chan struct{})
	select {
	case r.barrier <- done:
		select {
		case <-done:
		case <-sctx.Done():
			return nil, unanswered(ctx, sctx, "usage statistics", sctx.Err())
		}
	case <-r.stop: // closed: the feeder already stored the queue
	case <-sctx.Done():
		return nil, unanswered(ctx, sctx, "usage statistics", sctx.Err())
	}
	st, err := r.store.Stats(sctx, w)
	if err != nil {
		return nil, unanswered(ctx, sctx, "usage statistics", err)
	}
	return st, nil
}

// unanswered is err, unless bounded (derived from ctx with
// storeAnswerTimeout) ran out while ctx did not: then the database did not
// answer in time, and the call fails as Unavailable.
func unanswered(ctx, bounded context.Context, op string, err error) error {
	if ctx.Err() == nil && errors.Is(bounded.Err(), context.DeadlineExceeded) {
		return failure.New(failure.Unavailable, "UPSTREAM_ERROR",
			"%s failed: the usage database did not answer within %v; events wait in each server's spool and are stored once it answers. Try again later", op, storeAnswerTimeout)
	}
	return err
}

// feed writes queued events to the store in batches; life ends when Close
// is called.
func (r *Recorder) feed(life context.Context) {
	defer r.wg.Done()
	batch := make([]Event, 0, feedBatch)
	// pending holds events the store refused (its database was down), up
	// to QueueSize: they go with the next write, so that once the database
	// is back this process's events are counted at once. Those left out
	// are in the spool, and the delivery the store's return triggers
	// stores them.
	var pending []Event
	// write stores the batch (and what is pending) within ctx.
	write := func(ctx context.Context) {
		if len(batch) == 0 && len(pending) == 0 {
			return
		}
		all := append(pending, batch...)
		if _, _, err := r.store.Ingest(ctx, all); err != nil {
			// At most one warning a minute: while the database is down
			// every batch fails, and the spool keeps them all.
			if now := r.now().UnixNano(); now-r.lastFeedLog >= int64(dropLogEvery) {
				r.lastFeedLog = now
				r.log.Warn("usage events not stored yet (the next delivery retries from the spool)", "events", len(all), "err", err)
			}
			pending = append([]Event(nil), all[max(0, len(all)-r.opts.QueueSize):]...)
		} else {
			r.remember(all)
			if pending != nil { // the store is back: deliver the spool now
				pending = nil
				select {
				case r.kick <- struct{}{}:
				default:
				}
			}
		}
		batch = batch[:0]
	}
	// Writes while running get storeWriteTimeout each, and end at once when
	// Close is called (a database that does not answer must not hold up a
	// stop: the events are in the spool); the writes of what is queued at
	// Close share closeWriteBudget.
	running := func() {
		ctx, cancel := context.WithTimeout(life, storeWriteTimeout)
		defer cancel()
		write(ctx)
	}
	// The first queued event arms a timer: what arrives until it fires (or
	// until the batch is full) is stored in the same transaction, so a busy
	// server writes a few transactions a second, not one per event.
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed := false
	// While events are pending, retry stores them every pendingRetry.
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	retrying := false
	if r.storeReady != nil {
		// Nothing is written before StoreAfter (its store opens then),
		// unless a call needs the store first; what is queued meanwhile
		// waits in the queue, and is in the spool.
		select {
		case <-r.storeReady:
		case done := <-r.barrier:
			for range len(r.queue) {
				batch = append(batch, <-r.queue)
			}
			running()
			close(done)
		case <-r.stop:
			return // the spool has it all, for the next process
		}
	}
	for {
		if len(pending) > 0 && !retrying {
			retry.Reset(pendingRetry)
			retrying = true
		}
		select {
		case <-retry.C:
			retrying = false
			running()
		case e := <-r.queue:
			batch = append(batch, e)
			if len(batch) >= feedBatch {
				running()
			} else if !armed {
				timer.Reset(feedDelay)
				armed = true
			}
		case <-timer.C:
			armed = false
			running()
		case done := <-r.barrier:
			for range len(r.queue) { // what was queued when asked
				batch = append(batch, <-r.queue)
			}
			running()
			close(done)
		case <-r.stop:
			ctx, cancel := context.WithTimeout(context.Background(), closeWriteBudget)
			defer cancel()
			for {
				select {
				case e := <-r.queue:
					batch = append(batch, e)
					if len(batch) == feedBatch {
						write(ctx)
					}
				default:
					write(ctx)
					return
				}
			}
		}
	}
}

// syncLoop fsyncs the spool every SyncInterval.
func (r *Recorder) syncLoop() {
	defer r.wg.Done()
	t := time.NewTicker(r.opts.SyncInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := r.spool.sync(); err != nil {
				r.log.Warn("usage spool fsync failed", "err", err)
			}
		case <-r.stop:
			return
		}
	}
}

// publishLoop delivers the spool at once, then every FlushInterval.
func (r *Recorder) publishLoop() {
	defer r.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-r.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	if r.storeReady != nil {
		// The delivery at start stores what the last process spooled: it
		// waits, like the store's opening, for StoreAfter, or for a call
		// that opened the store first.
		select {
		case <-r.storeReady:
		case <-r.stop:
			close(r.firstFlush)
			return
		}
	}
	t := time.NewTimer(r.opts.FlushInterval)
	defer t.Stop()
	first := true
	retry := firstRetry
	for {
		wait := r.opts.FlushInterval
		if err := r.Flush(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("usage events not delivered yet; they stay in the spool", "endpoint", redact(r.opts.Endpoint), "err", err, "retry_in", min(retry, wait))
			// Sooner after a failure, then less and less often: a short
			// outage is over in seconds, a long one costs a try per
			// FlushInterval.
			wait, retry = min(retry, wait), min(2*retry, wait)
		} else {
			retry = firstRetry
		}
		if first {
			close(r.firstFlush)
			first = false
		}
		t.Reset(wait)
		select {
		case <-t.C:
		case <-r.kick:
		case <-r.stop:
			return
		}
	}
}

// Flush delivers the spool now: it seals this process's segment, then for
// each segment it can claim (oldest first) stores its events, posts them to
// the endpoint, and removes it once both succeeded. It stops at the first
// failure, leaving that segment and the later ones for the next try.
func (r *Recorder) Flush(ctx context.Context) error {
	if r.off.Load() {
		return nil // its store did not open: what is spooled waits for the next process
	}
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	if err := r.spool.seal(); err != nil {
		r.log.Warn("usage spool fsync failed", "err", err)
	}
	if err := r.spool.recount(); err != nil {
		return err
	}
	r.spool.cleanPending(r.now())
	segs, err := r.spool.segments()
	if err != nil {
		return err
	}
	delivered := 0
	for _, path := range segs {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := r.spool.claim(path)
		if err != nil {
			r.log.Warn("usage spool segment skipped", "segment", path, "err", err)
			continue
		}
		if c == nil {
			continue
		}
		events, bad, err := readSegment(c.f)
		if err != nil {
			c.release()
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if bad > 0 {
			r.log.Warn("usage spool segment has unreadable lines; they are skipped", "segment", path, "lines", bad)
		}
		if err := r.deliver(ctx, events); err != nil {
			c.release()
			return err
		}
		if err := r.spool.remove(c); err != nil {
			r.log.Warn("delivered usage spool segment not removed (its events may be delivered again)", "segment", path, "err", err)
		}
		r.forget(events)
		delivered += len(events)
		r.deliveredAll.Add(int64(len(events)))
	}
	if delivered > 0 {
		r.log.Debug("usage events delivered", "events", delivered, "endpoint", redact(r.opts.Endpoint))
	}
	return nil
}

// deliver gives events to every sink: the store, then the endpoint.
func (r *Recorder) deliver(ctx context.Context, events []Event) error {
	if len(events) == 0 {
		return nil
	}
	if unstored := r.unstored(events); len(unstored) > 0 {
		sctx, cancel := context.WithTimeout(ctx, storeWriteTimeout)
		_, _, err := r.store.Ingest(sctx, unstored)
		cancel()
		if err != nil {
			return err
		}
	}
	if r.opts.Endpoint == "" {
		return nil
	}
	return r.post(ctx, events)
}

// batch is the body of a POST: seed 000 §10.3's format.
type batch struct {
	Events []Event `json:"events"`
}

// post sends events to the endpoint; only a 2xx answer is a delivery.
func (r *Recorder) post(ctx context.Context, events []Event) error {
	body, err := json.Marshal(batch{Events: events})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.PostTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.opts.Endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("posting usage events: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.opts.Client.Do(req)
	if err != nil {
		return fmt.Errorf("posting %d usage events: %w", len(events), scrubURLError(err))
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("posting %d usage events: the endpoint answered %s: %s", len(events), resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// Close stops the background work: queued events go to the store, and the
// spool's segment is fsynced and sealed (the next Open delivers it).
func (r *Recorder) Close() error {
	if r == nil || !r.closed.CompareAndSwap(false, true) {
		return nil
	}
	close(r.stop) // cancels a delivery in progress
	r.endLife()   // and a store write
	r.wg.Wait()
	err := r.spool.seal()
	return errors.Join(err, r.store.Close())
}

// redact is an endpoint fit for the log: no user info, no query.
func redact(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// scrubURLError keeps a *url.Error's cause without the URL, which may hold
// credentials.
func scrubURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// remember notes ids the feeder stored.
func (r *Recorder) remember(events []Event) {
	r.storedMu.Lock()
	defer r.storedMu.Unlock()
	for i := range events {
		if len(r.stored) >= maxStoredIDs {
			return
		}
		r.stored[events[i].ID] = struct{}{}
	}
}

// unstored returns the events the feeder did not store.
func (r *Recorder) unstored(events []Event) []Event {
	r.storedMu.Lock()
	defer r.storedMu.Unlock()
	if len(r.stored) == 0 {
		return events
	}
	var out []Event
	for _, e := range events {
		if _, ok := r.stored[e.ID]; !ok {
			out = append(out, e)
		}
	}
	return out
}

// forget drops the ids of a delivered segment.
func (r *Recorder) forget(events []Event) {
	r.storedMu.Lock()
	defer r.storedMu.Unlock()
	for i := range events {
		delete(r.stored, events[i].ID)
	}
}
