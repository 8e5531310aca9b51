package identity

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/alexedwards/argon2id"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpreg/mcpreg/internal/domain"
)

// hashGate bounds password hashing. Each argon2id comparison holds 64 MiB
// and a core for a fraction of a second, so at most slots run at once and
// at most queue more wait; anything beyond is refused at once (domain.ErrRateLimited),
// before it costs a database write or any memory.
type hashGate struct {
	slots    chan struct{}
	admitted atomic.Int64 // running plus waiting
	max      int64
	running  prometheus.Gauge
}

// busyRetry is the Retry-After of a sign-in refused because hashing is full.
const busyRetry = 2 * time.Second

func newHashGate(slots, queue int) *hashGate {
	return &hashGate{slots: make(chan struct{}, slots), max: int64(slots + queue),
		running: prometheus.NewGauge(prometheus.GaugeOpts{Name: "mcpreg_signin_hashes_in_progress",
			Help: "Password hashes (argon2id) running now; at most the hashing slots (NumCPU)."})}
}

// defaultHashGate runs one hash per CPU and queues twice as many.
func defaultHashGate() *hashGate {
	n := runtime.GOMAXPROCS(0)
	return newHashGate(n, 2*n)
}

// admit reserves a place among the running and waiting hashes; the caller
// calls leave when done. Over the bound it refuses with a RetryError.
func (h *hashGate) admit() error {
	if h.admitted.Add(1) > h.max {
		h.admitted.Add(-1)
		return domain.Retryf(busyRetry, "too many sign-ins at once; try again in a moment")
	}
	return nil
}

func (h *hashGate) leave() { h.admitted.Add(-1) }

// compare checks password against hash in a hashing slot, waiting for one
// until ctx ends.
func (h *hashGate) compare(ctx context.Context, password, hash string) (bool, error) {
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	h.running.Inc()
	defer func() {
		h.running.Dec()
		<-h.slots
	}()
	return argon2id.ComparePasswordAndHash(password, hash)
}
