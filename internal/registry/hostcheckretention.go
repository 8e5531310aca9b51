package registry

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/hostcheck"
)

// HostCheckLimits keep connect-time observations bounded: each stores its
// raw tools and initialize result only up to MaxBytes (the digests
// always), at most Keep per host principal, server and version, none older
// than Retention.
type HostCheckLimits struct {
	MaxBytes  int
	Keep      int
	Retention time.Duration
}

// DefaultHostCheckLimits returns 1 MiB, 20 per host and version, 30 days.
func DefaultHostCheckLimits() HostCheckLimits {
	return HostCheckLimits{MaxBytes: 1 << 20, Keep: 20, Retention: 30 * 24 * time.Hour}
}

// ageSweepEvery is how often a replica deletes observations past the
// retention (a scan of the table), at most.
const ageSweepEvery = time.Minute

// hostCheckSweep is when this replica last deleted old observations.
type hostCheckSweep struct{ last atomic.Int64 }

// storedBody is what of an observation's raw bodies is stored: all of it
// within the cap, else nothing (the digests identify it), with a note for
// the host.
func (s *Scans) storedBody(in CheckInput) (tools, init []byte, note string) {
	size := len(in.Tools) + len(in.InitializeResult)
	if limit := s.limits.HostChecks.MaxBytes; limit > 0 && size > limit {
		return []byte{}, nil, fmt.Sprintf("; the observation was stored without its body (%d bytes, over --host-check-max-bytes %d)", size, limit)
	}
	return in.Tools, in.InitializeResult, ""
}

// pruneHostChecks deletes the principal's observations of one server and
// version beyond the newest Keep, and, at most every ageSweepEvery, every
// observation older than Retention.
func (s *Scans) pruneHostChecks(ctx context.Context, principal, name, ver string) error {
	l := s.limits.HostChecks
	if l.Keep > 0 {
		ids, err := s.store.Client.HostCheck.Query().
			Where(hostcheck.PrincipalEQ(principal), hostcheck.ServerName(name), hostcheck.Version(ver)).
			Order(ent.Desc(hostcheck.FieldID)).Offset(l.Keep - 1).Limit(1).IDs(ctx)
		if err != nil {
			return fmt.Errorf("prune host checks: %w", err)
		}
		if len(ids) == 1 {
			if _, err := s.store.Client.HostCheck.Delete().Where(hostcheck.PrincipalEQ(principal), hostcheck.ServerName(name),
				hostcheck.Version(ver), hostcheck.IDLT(ids[0])).Exec(ctx); err != nil {
				return fmt.Errorf("prune host checks: %w", err)
			}
		}
	}
	now := s.now()
	last := s.hostCheckSweep.last.Load()
	if l.Retention > 0 && now.UnixNano()-last >= int64(ageSweepEvery) && s.hostCheckSweep.last.CompareAndSwap(last, now.UnixNano()) {
		if _, err := s.store.Client.HostCheck.Delete().Where(hostcheck.CreatedAtLT(now.Add(-l.Retention))).Exec(ctx); err != nil {
			return fmt.Errorf("delete host checks older than %s: %w", l.Retention, err)
		}
	}
	return nil
}
