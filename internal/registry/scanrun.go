package registry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/predicate"
	"github.com/mcpreg/mcpreg/internal/ent/scan"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/serverjson"
	"github.com/mcpreg/mcpreg/internal/states"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
	livescan "github.com/mcpreg/mcpreg/scan"
)

// ScanOption changes how ScanVersion treats one request.
type ScanOption func(*scanOptions)

type scanOptions struct {
	fresh bool
	// paid: the caller already spent the principal's scan (host reports
	// do so before answering the host).
	paid bool
}

// Fresh asks for a new reading even when a scan finished within the
// cooldown (reviewers and admins only).
func Fresh(fresh bool) ScanOption { return func(o *scanOptions) { o.fresh = fresh } }

// ScanVersion reads a version's server now and compares it with its pins.
// Requests for one version are merged; a scan finished moments ago is
// returned as is (the answer says so), so callers cannot cause a storm.
// On-demand scans (every trigger but the schedule) spend one of the
// principal's scans (Limits.ScanRate) and need one of this replica's
// on-demand slots; over either the answer is a RetryError.
func (s *Scans) ScanVersion(ctx context.Context, c *Caller, name, ver string, trigger states.ScanTrigger, opts ...ScanOption) (*mcpregv1.ScanResult, error) {
	var o scanOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.fresh && c.Role != RoleReviewer && c.Role != RoleAdmin {
		return nil, deniedf("role %s may not ask for a fresh scan (reviewers and admins may); ask without fresh", c.Role)
	}
	if c.Role == RoleOwner {
		if err := checkReadName(c, name); err != nil {
			return nil, err
		}
	}
	v, err := s.findVersion(ctx, name, ver)
	if err != nil {
		return nil, err
	}
	if c.Role == RoleHost {
		if err := s.hostMayScan(ctx, c, name, ver); err != nil {
			return nil, err
		}
	}
	onDemand := trigger != states.TriggerSchedule
	merge := onDemand && !o.fresh && s.limits.ScanCooldown > 0
	if merge {
		if recent, err := s.recentScan(ctx, v.ID); err != nil || recent != nil {
			return recent, err
		}
	}
	if onDemand && !o.paid {
		if err := s.gate.allow(c.Principal, time.Now()); err != nil {
			return nil, err
		}
	}
	key := strconv.Itoa(v.ID)
	if o.fresh {
		key = "fresh:" + key
	}
	res, err, _ := s.merge.Do(key, func() (any, error) {
		// Again inside the merge: a request that passed the check above
		// while another scan was finishing must not start a second one.
		if merge {
			if recent, err := s.recentScan(ctx, v.ID); err != nil || recent != nil {
				return recent, err
			}
		}
		if onDemand {
			release, err := s.gate.acquire()
			if err != nil {
				return nil, err
			}
			defer release()
		}
		return s.scanLeased(context.WithoutCancel(ctx), v.ID, c.Principal, trigger)
	})
	if err != nil {
		return nil, err
	}
	return res.(*mcpregv1.ScanResult), nil
}

// scanLeased scans a version under its lease. While another replica holds
// the lease, it waits for that scan and answers with it: requests are
// merged across replicas as they are within one.
func (s *Scans) scanLeased(ctx context.Context, versionID int, by string, trigger states.ScanTrigger) (*mcpregv1.ScanResult, error) {
	asked := s.now()
	for {
		l, holder, err := s.acquireLease(ctx, versionID)
		if err != nil {
			return nil, err
		}
		if holder == "" {
			return s.runScan(ctx, l, by, trigger)
		}
		sc, err := s.awaitOtherScan(ctx, versionID, asked, holder)
		if err != nil {
			return nil, err
		}
		if sc != nil {
			return s.scanResult(ctx, sc.ID)
		}
	}
}

// hostMayScan lets a host scan only a version it may resolve: approved,
// not quarantined or revoked, and allowed in one of its environments. A
// scan's outcome and stderr are no business of a host otherwise.
func (s *Scans) hostMayScan(ctx context.Context, c *Caller, name, ver string) error {
	idx, err := s.discovery.discoveryIndex(ctx)
	if err != nil {
		return err
	}
	if ds := idx.server(name); ds != nil && ds.pick(ver, c.EnvLabels, false) != nil {
		return nil
	}
	return deniedf("host %s may scan only versions it may resolve, and %s is not one of them", c.Principal, subjectOf(name, ver))
}

func (s *core) findVersion(ctx context.Context, name, ver string) (*ent.Version, error) {
	if !serverNameRE.MatchString(name) {
		return nil, invalidf("server name %q does not match ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", name)
	}
	v, err := s.store.Client.Version.Query().Where(versionNamed(name, ver)...).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFoundf("version %s", subjectOf(name, ver))
	}
	return v, err
}

// versionNamed matches one version of one server by their names.
func versionNamed(name, ver string) []predicate.Version {
	return []predicate.Version{serverIn(server.Name(name)), version.Version(ver)}
}

// recentScan is the version's latest scan if it finished within the
// cooldown, marked as merged (nil if there is none).
func (s *Scans) recentScan(ctx context.Context, versionID int) (*mcpregv1.ScanResult, error) {
	now := s.now()
	sc, err := s.store.Client.Scan.Query().Where(scan.VersionID(versionID), scan.FinishedAtGT(now.Add(-s.limits.ScanCooldown))).
		Order(ent.Desc(scan.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	res, err := s.scanResult(ctx, sc.ID)
	if err != nil {
		return nil, err
	}
	age := now.Sub(*sc.FinishedAt)
	res.Merged = &mcpregv1.ScanMerge{ScanId: int64(sc.ID), AgeSeconds: age.Seconds(),
		Message: fmt.Sprintf("answered with scan %d, which finished %s ago, within the %s cooldown; reviewers and admins can ask for a fresh scan",
			sc.ID, age.Round(time.Millisecond), s.limits.ScanCooldown)}
	return res, nil
}

// runScan records a scan, reads the server, and settles the outcome, under
// the version's lease l, which it keeps renewed and hands back at the end.
func (s *Scans) runScan(ctx context.Context, l lease, by string, trigger states.ScanTrigger) (*mcpregv1.ScanResult, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := s.keepLease(l, func() { cancel(errLeaseLost) })
	defer s.releaseLease(l)
	defer stop()
	v, err := s.store.Client.Version.Query().Where(version.ID(l.versionID)).WithServer().Only(ctx)
	if err != nil {
		return nil, err
	}
	doc, err := serverjson.Parse(v.ServerJSON)
	if err != nil {
		return nil, fmt.Errorf("stored server.json of %s: %w", subjectOf(v.Edges.Server.Name, v.Version), err)
	}
	digests, err := s.attest.attestedDigests(ctx, v.ID)
	if err != nil {
		return nil, err
	}
	target, ran, fetchErr := s.liveTarget(ctx, doc, digests)
	var mismatch *fetch.DigestMismatchError
	if fetchErr != nil && !errors.As(fetchErr, &mismatch) && !errors.Is(fetchErr, fetch.ErrFetch) {
		return nil, fetchErr
	}
	sc, err := s.startScan(ctx, l, trigger, by)
	if err != nil {
		return nil, err
	}
	if ran.digest != "" {
		err := s.store.Client.Scan.UpdateOneID(sc.ID).SetArtifactDigest(ran.digest).SetDigestSource(ran.source).Exec(ctx)
		if err != nil {
			return nil, err
		}
	}
	if mismatch != nil {
		if err := s.attest.artifactMismatch(ctx, v, mismatch); err != nil {
			return nil, err
		}
	}
	if depErr := (*fetch.DependencySpecError)(nil); errors.As(fetchErr, &depErr) {
		if err := s.attest.dependencyRefused(ctx, v, depErr); err != nil {
			return nil, err
		}
	}
	var rd reading
	readErr := fetchErr
	if readErr == nil {
		rd, readErr = s.readServer(ctx, doc, target)
		if readErr != nil {
			readErr = fmt.Errorf("%w%s", readErr, stderrNote(rd.snap))
		}
	}
	var res *mcpregv1.ScanResult
	if cause := context.Cause(ctx); errors.Is(cause, errLeaseLost) {
		// The replica that took the lease marked this scan abandoned
		// and scans again; settling here would do the work twice.
		return nil, fmt.Errorf("scan of %s: %w", subjectOf(v.Edges.Server.Name, v.Version), cause)
	}
	if readErr != nil {
		res, err = s.scanFailed(ctx, v.ID, sc.ID, readErr)
	} else if err = s.settleScan(ctx, v, sc.ID, rd, by); err == nil {
		res, err = s.scanResult(ctx, sc.ID)
	}
	if err != nil {
		return nil, err
	}
	s.observeScan(trigger, res)
	return res, nil
}

// scanFailed records a scan that could not read its server. It never
// changes the version's state.
func (s *Scans) scanFailed(ctx context.Context, versionID, scanID int, readErr error) (*mcpregv1.ScanResult, error) {
	err := s.store.Client.Scan.UpdateOneID(scanID).SetOutcome(string(states.OutcomeError)).SetError(readErr.Error()).
		SetErrorKind(string(scanErrorKind(readErr))).SetFinishedAt(s.now()).Exec(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.noteRepeatedFailures(ctx, versionID, readErr.Error()); err != nil {
		return nil, err
	}
	return s.scanResult(ctx, scanID)
}

func scanErrorKind(err error) states.ScanErrorKind {
	var mm *fetch.DigestMismatchError
	if errors.As(err, &mm) {
		return states.ErrorKindDigestMismatch
	}
	var de *fetch.DependencySpecError
	if errors.As(err, &de) {
		return states.ErrorKindDependencySpec
	}
	for _, k := range []struct {
		err  error
		kind states.ScanErrorKind
	}{{fetch.ErrFetch, states.ErrorKindFetch}, {livescan.ErrTimeout, states.ErrorKindTimeout}, {livescan.ErrLimit, states.ErrorKindLimit},
		{livescan.ErrDenied, states.ErrorKindDenied}, {livescan.ErrInvalid, states.ErrorKindInvalid}, {livescan.ErrProtocol, states.ErrorKindProtocol}} {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return states.ErrorKindUnreachable
}

// scanResult loads a scan with its drift event and the version's state.
func (s *Scans) scanResult(ctx context.Context, scanID int) (*mcpregv1.ScanResult, error) {
	sc, err := s.store.Client.Scan.Query().Where(scan.ID(scanID)).
		WithVersion(func(q *ent.VersionQuery) { q.WithServer() }).Only(ctx)
	if err != nil {
		return nil, err
	}
	v := sc.Edges.Version
	out := &mcpregv1.ScanResult{Scan: scanProto(sc, v.Edges.Server.Name, v.Version), State: string(v.State)}
	if sc.DriftEventID != nil {
		ev, err := s.store.Client.DriftEvent.Get(ctx, *sc.DriftEventID)
		if err != nil {
			return nil, err
		}
		out.DriftEvent = driftProto(ev, v.Edges.Server.Name, v.Version)
	}
	return out, nil
}

func (s *Scans) observeScan(trigger states.ScanTrigger, res *mcpregv1.ScanResult) {
	sc := res.GetScan()
	s.metrics.scanned(trigger, states.ScanOutcome(sc.GetOutcome()), states.ScanErrorKind(sc.GetErrorKind()),
		sc.GetFinishedAt().AsTime().Sub(sc.GetStartedAt().AsTime()))
	if ev := res.GetDriftEvent(); ev.GetScanId() == sc.GetId() { // new, not a repeat of an open event
		for _, c := range ev.GetChanges() {
			s.metrics.drift.WithLabelValues(c.GetClass()).Inc()
		}
	}
}

// stderrNote is the end of what a failed stdio server wrote to standard
// error, for the error message: usually the reason it failed.
func stderrNote(snap *livescan.Snapshot) string {
	const keep = 600
	if snap == nil {
		return ""
	}
	text := strings.TrimSpace(snap.Stderr)
	if text == "" {
		return ""
	}
	if len(text) > keep {
		text = "..." + strings.ToValidUTF8(text[len(text)-keep:], "")
	}
	return "; the server's standard error ends: " + text
}
