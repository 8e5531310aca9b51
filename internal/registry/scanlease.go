package registry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/scan"
	"github.com/mcpreg/mcpreg/internal/ent/scanlease"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
)

// Scan leases let replicas on one database share the scan schedule: a
// replica scans a version only while it holds the version's lease, renews
// it every third of LeaseTTL while the scan runs, and hands it back with the
// version's next due time when the scan ends. A lease that was not renewed
// in time belongs to a replica that died; whoever takes it over marks that
// replica's scan abandoned and scans again.

// DefaultLeaseTTL is how long a scan lease lasts without renewal.
const DefaultLeaseTTL = time.Minute

// maxLeaseWait bounds how long an on-demand scan waits for another
// replica's scan of the same version to finish.
const maxLeaseWait = 3 * time.Minute

// watchedStates are the states the schedule re-scans.
var watchedStates = []version.State{version.StateApproved, version.StateQuarantined}

// DefaultReplicaName names this process among replicas: host and process id.
func DefaultReplicaName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "mcpregd"
	}
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// replica is this replica's name in scan records.
func (s *Scans) replica() string {
	if s.scanning != nil && s.scanning.Replica != "" {
		return s.scanning.Replica
	}
	return s.defaultReplica
}

func (s *Scans) leaseTTL() time.Duration {
	if s.scanning != nil && s.scanning.LeaseTTL > 0 {
		return s.scanning.LeaseTTL
	}
	return DefaultLeaseTTL
}

func (s *Scans) scanInterval() time.Duration {
	if s.scanning == nil {
		return 0
	}
	return s.scanning.Interval
}

// lease is one held scan lease. holder is unique per acquisition (replica
// name and a random suffix), so a stale renewal never extends a lease taken
// since.
type lease struct {
	versionID int
	holder    string
}

func (s *Scans) newHolder() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return s.replica() + "#" + hex.EncodeToString(b[:])
}

// dueAfterScan is when the schedule should scan a version scanned now:
// one interval later plus up to a fifth of it, so versions spread out.
func (s *Scans) dueAfterScan() time.Time {
	iv := s.scanInterval()
	return s.now().Add(iv + time.Duration(mrand.Int64N(int64(iv)/5+1)))
}

// ensureLeaseRows gives every version under watch a place in the schedule,
// due at a random moment within one interval (a fleet added at once does
// not come due at once).
func (s *Scans) ensureLeaseRows(ctx context.Context) error {
	ids, err := s.store.Client.Version.Query().
		Where(version.StateIn(watchedStates...), version.Not(version.HasScanLease())).IDs(ctx)
	if err != nil || len(ids) == 0 {
		return err
	}
	iv := max(int64(s.scanInterval()), 1)
	for chunk := range slices.Chunk(ids, 500) {
		due := make([]time.Time, len(chunk))
		for i := range chunk {
			due[i] = s.now().Add(time.Duration(mrand.Int64N(iv)))
		}
		q, args := s.insertLeases(chunk, due)
		if _, err := s.store.Client.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("scan schedule: %w", err)
		}
	}
	return nil
}

// insertLeases is the statement giving versions ids[i] a free lease due at
// due[i], skipping versions that have one (another replica's insert).
func (s *Scans) insertLeases(ids []int, due []time.Time) (string, []any) {
	ins := entsql.Dialect(s.store.Dialect).Insert(scanlease.Table).
		Columns(scanlease.FieldVersionID, scanlease.FieldDueAt, scanlease.FieldHolder)
	for i, id := range ids {
		ins.Values(id, due[i], "")
	}
	return ins.OnConflict(entsql.ConflictColumns(scanlease.FieldVersionID), entsql.DoNothing()).Query()
}

// claimDue takes the leases of up to n versions the schedule should scan
// now: due ones under watch nobody holds, and any whose holder stopped
// renewing. PostgreSQL skips rows another replica is claiming (SKIP
// LOCKED); SQLite runs one writer at a time anyway.
func (s *Scans) claimDue(ctx context.Context, n int) ([]lease, error) {
	var out []lease
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		out = out[:0]
		now := s.now()
		q := tx.ScanLease.Query().Where(scanlease.Or(
			scanlease.And(scanlease.Holder(""), scanlease.DueAtLTE(now), scanlease.HasVersionWith(version.StateIn(watchedStates...))),
			scanlease.And(scanlease.HolderNEQ(""), scanlease.ExpiresAtLT(now)),
		)).Order(scanlease.ByDueAt()).Limit(n)
		if s.store.RowLocks() {
			q = q.ForUpdate(entsql.WithLockAction(entsql.SkipLocked))
		}
		rows, err := q.All(ctx)
		if err != nil {
			return err
		}
		for _, l := range rows {
			held, err := s.takeLease(ctx, tx, l)
			if err != nil {
				return err
			}
			out = append(out, held)
		}
		return nil
	})
	return out, err
}

// takeLease makes l this replica's, marking the scan of a holder whose
// lease expired as abandoned.
func (s *Scans) takeLease(ctx context.Context, tx *ent.Tx, l *ent.ScanLease) (lease, error) {
	now := s.now()
	held := lease{versionID: l.VersionID, holder: s.newHolder()}
	if l.Holder != "" && l.ScanID != nil {
		msg := fmt.Sprintf("replica %s stopped renewing its scan lease (expired %s); replica %s scans the version again",
			replicaOf(l.Holder), l.ExpiresAt.UTC().Format(time.RFC3339), s.replica())
		err := tx.Scan.Update().Where(scan.ID(*l.ScanID), scan.Outcome(string(states.OutcomeRunning))).
			SetOutcome(string(states.OutcomeError)).SetErrorKind(string(states.ErrorKindAbandoned)).SetError(msg).SetFinishedAt(now).Exec(ctx)
		if err != nil {
			return lease{}, err
		}
		s.log.WarnContext(ctx, "scan lease taken over", "version_id", l.VersionID, "from", replicaOf(l.Holder), "scan", *l.ScanID)
		s.metrics.leaseTakeovers.Inc()
	}
	err := tx.ScanLease.UpdateOneID(l.ID).SetHolder(held.holder).SetExpiresAt(now.Add(s.leaseTTL())).ClearScanID().Exec(ctx)
	return held, err
}

// replicaOf is the replica part of a lease holder (replica names hold no #).
func replicaOf(holder string) string {
	name, _, _ := strings.Cut(holder, "#")
	return name
}

// acquireLease takes one version's lease for an on-demand scan. It reports
// the holder's replica when another scan holds it.
func (s *Scans) acquireLease(ctx context.Context, versionID int) (lease, string, error) {
	var held lease
	var other string
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		held, other = lease{}, ""
		q, args := s.insertLeases([]int{versionID}, []time.Time{s.dueAfterScan()})
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
		lq := tx.ScanLease.Query().Where(scanlease.VersionID(versionID))
		if s.store.RowLocks() {
			lq = lq.ForUpdate()
		}
		l, err := lq.Only(ctx)
		if err != nil {
			return err
		}
		if l.Holder != "" && l.ExpiresAt != nil && !l.ExpiresAt.Before(s.now()) {
			other = replicaOf(l.Holder)
			return nil
		}
		held, err = s.takeLease(ctx, tx, l)
		return err
	})
	return held, other, err
}

// startScan records a running scan under the lease, in one transaction
// with the lease naming it: a replica taking the lease over always finds
// the scan to mark abandoned.
func (s *Scans) startScan(ctx context.Context, l lease, trigger states.ScanTrigger, by string) (*ent.Scan, error) {
	var sc *ent.Scan
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		var err error
		sc, err = tx.Scan.Create().SetVersionID(l.versionID).SetTrigger(string(trigger)).SetRequestedBy(by).
			SetReplica(s.replica()).SetStartedAt(s.now()).Save(ctx)
		if err != nil {
			return err
		}
		n, err := tx.ScanLease.Update().Where(scanlease.VersionID(l.versionID), scanlease.Holder(l.holder)).
			SetScanID(sc.ID).Save(ctx)
		if err == nil && n == 0 {
			err = errLeaseLost
		}
		return err
	})
	return sc, err
}

// keepLease renews l every third of the TTL until stop is called; lost is
// called once if the lease was taken over meanwhile (this replica stalled
// for longer than the TTL).
func (s *Scans) keepLease(l lease, lost func()) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.leaseTTL() / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			n, err := s.store.Client.ScanLease.Update().
				Where(scanlease.VersionID(l.versionID), scanlease.Holder(l.holder)).
				SetExpiresAt(s.now().Add(s.leaseTTL())).Save(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.log.Warn("renew scan lease", "version_id", l.versionID, "err", err)
				}
				continue // the next tick tries again; the TTL leaves room for two misses
			}
			if n == 0 {
				s.log.Warn("scan lease lost to another replica", "version_id", l.versionID)
				lost()
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}

// releaseLease hands the lease back with the version's next due time
// (unchanged when this replica runs no schedule).
func (s *Scans) releaseLease(l lease) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := s.store.Client.ScanLease.Update().Where(scanlease.VersionID(l.versionID), scanlease.Holder(l.holder)).
		SetHolder("").ClearExpiresAt().ClearScanID()
	if s.scanInterval() > 0 {
		u = u.SetDueAt(s.dueAfterScan())
	}
	if err := u.Exec(ctx); err != nil {
		// The lease expires on its own; another replica takes it then.
		s.log.Warn("release scan lease", "version_id", l.versionID, "err", err)
	}
}

// errLeaseLost is the error of a scan whose lease another replica took.
var errLeaseLost = errors.New("scan lease lost to another replica")

// awaitOtherScan waits while another replica scans the version, then
// answers with the scan that finished after asked. It returns nil when the
// lease came free without such a scan (the caller scans itself).
func (s *Scans) awaitOtherScan(ctx context.Context, versionID int, asked time.Time, holder string) (*ent.Scan, error) {
	deadline := time.Now().Add(maxLeaseWait)
	for {
		sc, err := s.store.Client.Scan.Query().
			Where(scan.VersionID(versionID), scan.FinishedAtGTE(asked), scan.ErrorKindNEQ(string(states.ErrorKindAbandoned))).
			Order(ent.Desc(scan.FieldID)).First(ctx)
		if err == nil {
			return sc, nil
		} else if !ent.IsNotFound(err) {
			return nil, err
		}
		l, err := s.store.Client.ScanLease.Query().Where(scanlease.VersionID(versionID)).Only(ctx)
		if err != nil {
			return nil, err
		}
		if l.Holder == "" || l.ExpiresAt == nil || l.ExpiresAt.Before(s.now()) {
			return nil, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: replica %s has been scanning this version for longer than %s; try again later",
				ErrConflict, holder, maxLeaseWait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
