package gate_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/gate"
)

// fakeRegistry takes batches, failing while down.
type fakeRegistry struct {
	mu      sync.Mutex
	down    bool
	batches [][]string
}

func (f *fakeRegistry) post(_ context.Context, batch []gate.Receipt) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return errors.New("connection refused")
	}
	ids := make([]string, len(batch))
	for i, r := range batch {
		ids[i] = r.ID
	}
	f.batches = append(f.batches, ids)
	return nil
}

func (f *fakeRegistry) received() (n int, sizes []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.batches {
		n += len(b)
		sizes = append(sizes, len(b))
	}
	return n, sizes
}

// TestUploaderBatchesAndWaits: receipts go in batches of at most Batch; a
// registry that is down never blocks Write, and what waited is sent once
// it answers again, each receipt once.
func TestUploaderBatchesAndWaits(t *testing.T) {
	reg := &fakeRegistry{down: true}
	u := &gate.Uploader{Post: reg.post, Batch: 3, Every: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go u.Run(ctx)
	for i := range 7 {
		if err := u.Write(gate.Receipt{ID: fmt.Sprintf("r%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := u.Flush(ctx); err == nil {
		t.Fatal("Flush succeeded while the registry is down")
	}
	if u.Queued() != 7 {
		t.Fatalf("%d queued while the registry is down, want 7", u.Queued())
	}
	reg.mu.Lock()
	reg.down = false
	reg.mu.Unlock()
	flushCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if err := u.Flush(flushCtx); err != nil {
		t.Fatal(err)
	}
	n, sizes := reg.received()
	if n != 7 || u.Queued() != 0 {
		t.Fatalf("the registry received %d receipts in batches %v, %d still queued; want 7, none", n, sizes, u.Queued())
	}
	for _, s := range sizes {
		if s > 3 {
			t.Errorf("a batch of %d, want at most 3", s)
		}
	}
}

// TestUploaderOverflowDropsOldest: past MaxQueued the oldest receipts
// leave the queue (they stay in the local file).
func TestUploaderOverflowDropsOldest(t *testing.T) {
	reg := &fakeRegistry{}
	u := &gate.Uploader{Post: reg.post, Batch: 100, MaxQueued: 5}
	for i := range 8 {
		_ = u.Write(gate.Receipt{ID: fmt.Sprintf("r%d", i)})
	}
	if err := u.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(reg.batches) != 1 || fmt.Sprint(reg.batches[0]) != "[r3 r4 r5 r6 r7]" {
		t.Errorf("sent %v, want the newest five", reg.batches)
	}
}

// TestSinksWriteToEvery: a failing sink does not keep a receipt from the
// others.
func TestSinksWriteToEvery(t *testing.T) {
	a, b := &memSink{}, &memSink{}
	err := gate.Sinks{a, failingSink{}, b}.Write(gate.Receipt{ID: "r"})
	if err == nil || len(a.all()) != 1 || len(b.all()) != 1 {
		t.Errorf("err %v, a %d, b %d: want the error and both written", err, len(a.all()), len(b.all()))
	}
	if err := (gate.Sinks{}).Write(gate.Receipt{}); !errors.Is(err, gate.ErrNoSinks) {
		t.Errorf("no sinks: %v", err)
	}
}

type failingSink struct{}

func (failingSink) Write(gate.Receipt) error { return errors.New("disk full") }
