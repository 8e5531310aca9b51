package registry

import (
	"context"
	"sync"
	"time"

	"github.com/mcpreg/mcpreg/internal/states"
)

// scheduleCaller is the actor of scheduled scans.
var scheduleCaller = &Caller{Principal: "mcpreg-scheduler", Role: RoleAdmin}

// schedulePoll is how often the schedule looks for due versions: a
// twentieth of the interval, between 100ms and 5s.
func schedulePoll(interval time.Duration) time.Duration {
	return min(max(interval/20, 100*time.Millisecond), 5*time.Second)
}

// RunScheduler re-scans every approved and quarantined version about once
// per Scanning.Interval (plus up to 20% jitter), at most
// Scanning.Concurrency at a time on this replica, until ctx ends. Replicas
// on one database share the schedule through scan leases: each due version
// is scanned by one of them, and the scans of a replica that died are
// taken over once its leases expire. Scan failures are recorded on the
// scans themselves.
func (s *Scans) RunScheduler(ctx context.Context) error {
	if s.scanning == nil || s.scanning.Interval <= 0 {
		return nil
	}
	concurrency := max(s.scanning.Concurrency, 1)
	poll := schedulePoll(s.scanning.Interval)
	slots := make(chan struct{}, concurrency)
	var running sync.WaitGroup
	defer running.Wait()
	for {
		if err := s.scheduleRound(ctx, slots, &running); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "scan schedule", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(poll):
		}
	}
}

// scheduleRound claims as many due versions as there are free slots and
// starts their scans.
func (s *Scans) scheduleRound(ctx context.Context, slots chan struct{}, running *sync.WaitGroup) error {
	free := cap(slots) - len(slots)
	if free == 0 {
		return nil
	}
	if err := s.ensureLeaseRows(ctx); err != nil {
		return err
	}
	leases, err := s.claimDue(ctx, free)
	if err != nil {
		return err
	}
	for _, l := range leases {
		slots <- struct{}{}
		running.Go(func() {
			defer func() { <-slots }()
			if _, err := s.runScan(context.WithoutCancel(ctx), l, scheduleCaller.Principal, states.TriggerSchedule); err != nil {
				s.log.WarnContext(ctx, "scheduled scan", "version_id", l.versionID, "err", err)
			}
		})
	}
	return nil
}
