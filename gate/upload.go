package gate

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Uploader defaults.
const (
	DefaultUploadBatch     = 100
	DefaultUploadEvery     = 2 * time.Second
	DefaultUploadMaxQueued = 10000
	maxUploadBackoff       = time.Minute
)

// Uploader sends receipts to the registry in batches, in the background.
// A lost registry never blocks a call: receipts wait in memory (up to
// MaxQueued; beyond that the oldest are dropped from the queue, and stay
// in the local receipts file) and are sent when it answers again.
type Uploader struct {
	// Post sends one batch; an error keeps the batch for a later try.
	Post func(ctx context.Context, batch []Receipt) error
	// Batch is the most receipts per Post; 0 means DefaultUploadBatch.
	Batch int
	// Every is how long a receipt may wait for a batch to fill; 0 means
	// DefaultUploadEvery.
	Every time.Duration
	// MaxQueued bounds the queue; 0 means DefaultUploadMaxQueued.
	MaxQueued int
	// Log says what failed; nil discards.
	Log *slog.Logger

	sending sync.Mutex // one send at a time: a batch is never posted twice
	mu      sync.Mutex
	queue   []Receipt
	dropped int
	wake    chan struct{}
	once    sync.Once
}

func (u *Uploader) init() {
	u.once.Do(func() {
		u.wake = make(chan struct{}, 1)
		if u.Batch <= 0 {
			u.Batch = DefaultUploadBatch
		}
		if u.Every <= 0 {
			u.Every = DefaultUploadEvery
		}
		if u.MaxQueued <= 0 {
			u.MaxQueued = DefaultUploadMaxQueued
		}
		if u.Log == nil {
			u.Log = slog.New(slog.DiscardHandler)
		}
	})
}

// Write queues a receipt; it never blocks on the network.
func (u *Uploader) Write(r Receipt) error {
	u.init()
	u.mu.Lock()
	u.queue = append(u.queue, r)
	if over := len(u.queue) - u.MaxQueued; over > 0 {
		u.queue = u.queue[over:]
		u.dropped += over
	}
	full := len(u.queue) >= u.Batch
	u.mu.Unlock()
	if full {
		select {
		case u.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// Run sends queued receipts until ctx ends, backing off while the
// registry fails.
func (u *Uploader) Run(ctx context.Context) {
	u.init()
	wait := u.Every
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.wake:
		case <-time.After(wait):
		}
		if err := u.send(ctx); err != nil {
			u.Log.Warn("gate: sending receipts to the registry failed; they wait", "err", err, "queued", u.Queued())
			wait = min(max(2*wait, u.Every), maxUploadBackoff)
			continue
		}
		wait = u.Every
	}
}

// Flush sends every queued receipt, or fails with ctx.
func (u *Uploader) Flush(ctx context.Context) error {
	u.init()
	for u.Queued() > 0 {
		if err := u.send(ctx); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// Queued is how many receipts wait.
func (u *Uploader) Queued() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.queue)
}

// send posts the queue in batches; a failed batch stays at the front.
func (u *Uploader) send(ctx context.Context) error {
	u.sending.Lock()
	defer u.sending.Unlock()
	for {
		u.mu.Lock()
		n := min(len(u.queue), u.Batch)
		batch := append([]Receipt(nil), u.queue[:n]...)
		dropped := u.dropped
		u.dropped = 0
		u.mu.Unlock()
		if dropped > 0 {
			u.Log.Warn("gate: receipts queue full; the oldest were not sent (they are in the local receipts file)", "dropped", dropped)
		}
		if n == 0 {
			return nil
		}
		if err := u.Post(ctx, batch); err != nil {
			return err
		}
		u.mu.Lock()
		u.queue = dropSent(u.queue, batch)
		u.mu.Unlock()
	}
}

// dropSent removes the receipts of batch from queue (the queue may have
// lost its front meanwhile, when it overflowed).
func dropSent(queue, batch []Receipt) []Receipt {
	sent := make(map[string]bool, len(batch))
	for _, r := range batch {
		sent[r.ID] = true
	}
	return slices.DeleteFunc(queue, func(r Receipt) bool { return sent[r.ID] })
}

// ErrNoSinks is returned by Sinks.Write when it has nothing to write to.
var ErrNoSinks = errors.New("no receipt sinks")

// Sinks writes each receipt to every sink, all of them even when one
// fails (the first error is returned).
type Sinks []ReceiptSink

// Write writes r to every sink.
func (s Sinks) Write(r Receipt) error {
	if len(s) == 0 {
		return ErrNoSinks
	}
	var first error
	for _, sink := range s {
		if err := sink.Write(r); err != nil && first == nil {
			first = err
		}
	}
	return first
}
