package registry

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// ScanRate is how many on-demand scans one principal may ask for: Burst at
// once, then Burst every Per. The zero value means no limit.
type ScanRate struct {
	Burst int
	Per   time.Duration
}

// ParseScanRate reads "N/DURATION" (e.g. "10/1m": ten at once, ten a
// minute after that) or "off".
func ParseScanRate(s string) (ScanRate, error) {
	if s == "off" {
		return ScanRate{}, nil
	}
	n, per, ok := strings.Cut(s, "/")
	burst, err := strconv.Atoi(n)
	if !ok || err != nil || burst < 1 {
		return ScanRate{}, fmt.Errorf("--scan-rate %q: want N/DURATION with N at least 1 (e.g. 10/1m), or off", s)
	}
	d, err := time.ParseDuration(per)
	if err != nil || d < time.Second {
		return ScanRate{}, fmt.Errorf("--scan-rate %q: want a DURATION of at least 1s after the slash", s)
	}
	return ScanRate{Burst: burst, Per: d}, nil
}

func (r ScanRate) String() string {
	if r.Burst == 0 {
		return "off"
	}
	return fmt.Sprintf("%d/%s", r.Burst, r.Per)
}

// scanGate bounds on-demand scans (manual and host-report): a rate per
// principal, whichever of its tokens asks, and a cap on the scans this
// replica runs at once. Both are in memory, per replica.
type scanGate struct {
	rate  ScanRate
	slots chan struct{} // nil: no cap

	mu       sync.Mutex
	limiters map[string]*principalRate
}

type principalRate struct {
	lim  *rate.Limiter
	used time.Time
}

// slotRetry is the Retry-After of a scan refused because this replica's
// on-demand slots are taken: about what a scan takes.
const slotRetry = 5 * time.Second

// maxIdleLimiters is how many principals' limiters are kept before the
// ones back to a full budget are dropped.
const maxIdleLimiters = 1024

func newScanGate(r ScanRate, concurrency int) *scanGate {
	g := &scanGate{rate: r, limiters: map[string]*principalRate{}}
	if concurrency > 0 {
		g.slots = make(chan struct{}, concurrency)
	}
	return g
}

// allow spends one of principal's on-demand scans, or says when the next
// one comes (a RetryError).
func (g *scanGate) allow(principal string, now time.Time) error {
	if g.rate.Burst == 0 {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	pr := g.limiters[principal]
	if pr == nil {
		g.sweep(now)
		pr = &principalRate{lim: rate.NewLimiter(rate.Every(g.rate.Per/time.Duration(g.rate.Burst)), g.rate.Burst)}
		g.limiters[principal] = pr
	}
	pr.used = now
	r := pr.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return retryf(d, "principal %s asked for more than %d on-demand scans in %s (--scan-rate); try again in %s",
			principal, g.rate.Burst, g.rate.Per, d.Round(time.Second))
	}
	return nil
}

// sweep drops limiters unused long enough to be full again, once there
// are many.
func (g *scanGate) sweep(now time.Time) {
	if len(g.limiters) < maxIdleLimiters {
		return
	}
	for p, pr := range g.limiters {
		if now.Sub(pr.used) > g.rate.Per {
			delete(g.limiters, p)
		}
	}
}

// acquire takes one of this replica's on-demand scan slots without
// waiting; release gives it back.
func (g *scanGate) acquire() (release func(), err error) {
	if g.slots == nil {
		return func() {}, nil
	}
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	default:
		return nil, retryf(slotRetry, "this replica already runs %d on-demand scans (--scan-ondemand-concurrency); try again shortly", cap(g.slots))
	}
}
