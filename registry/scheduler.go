package registry

import (
	"context"
	"math/rand/v2"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mcpreg/mcpreg/ent/version"
)

// scheduleCaller is the actor of scheduled scans.
var scheduleCaller = &Caller{Principal: "mcpreg-scheduler", Role: RoleAdmin}

// RunScheduler re-scans every approved and quarantined version each
// interval (plus up to 20% jitter), at most concurrency at a time, until
// ctx ends. Scan failures are recorded on the scans themselves.
func (s *Service) RunScheduler(ctx context.Context, interval time.Duration, concurrency int) error {
	if s.scanning == nil || interval <= 0 {
		return nil
	}
	for {
		jitter := time.Duration(rand.Int64N(int64(interval)/5 + 1))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval + jitter):
		}
		if err := s.scanRound(ctx, concurrency); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "scan round", "err", err)
		}
	}
}

// scanRound scans every version under watch once.
func (s *Service) scanRound(ctx context.Context, concurrency int) error {
	vs, err := s.store.Client.Version.Query().
		Where(version.StateIn(version.StateApproved, version.StateQuarantined)).WithServer().All(ctx)
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(concurrency, 1))
	for _, v := range vs {
		g.Go(func() error {
			_, err := s.ScanVersion(gctx, scheduleCaller, v.Edges.Server.Name, v.Version, TriggerSchedule)
			if err != nil {
				s.log.WarnContext(gctx, "scheduled scan", "version", subjectOf(v.Edges.Server.Name, v.Version), "err", err)
			}
			return nil
		})
	}
	return g.Wait()
}
