package registry

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpreg/mcpreg/internal/states"
)

// StallScan starts a scan of name@ver the way a replica does (takes the
// version's scan lease and records the running scan under it), then does
// nothing more: no renewal, no read, no hand-back. It stands for a replica
// that died mid-scan, and returns the scan's id.
func (s *Scans) StallScan(ctx context.Context, name, ver string) (int, error) {
	v, err := s.findVersion(ctx, name, ver)
	if err != nil {
		return 0, err
	}
	l, holder, err := s.acquireLease(ctx, v.ID)
	if err != nil {
		return 0, err
	}
	if holder != "" {
		return 0, fmt.Errorf("the scan lease of %s is held by %s", subjectOf(name, ver), holder)
	}
	sc, err := s.startScan(ctx, l, states.TriggerManual, "stalled")
	if err != nil {
		return 0, err
	}
	return sc.ID, nil
}

// LeaseHolder asks for name@ver's scan lease as an on-demand scan does and
// names the replica holding it, or "" when this service took it (and handed
// it back at once).
func (s *Scans) LeaseHolder(ctx context.Context, name, ver string) (string, error) {
	v, err := s.findVersion(ctx, name, ver)
	if err != nil {
		return "", err
	}
	l, holder, err := s.acquireLease(ctx, v.ID)
	if err == nil && holder == "" {
		s.releaseLease(l)
	}
	return holder, err
}

// ScheduleRound runs one round of RunScheduler and waits for the scans it
// started.
func (s *Scans) ScheduleRound(ctx context.Context) error {
	slots := make(chan struct{}, max(s.scanning.Concurrency, 1))
	var running sync.WaitGroup
	err := s.scheduleRound(ctx, slots, &running)
	running.Wait()
	return err
}
