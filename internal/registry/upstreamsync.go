package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/ent"
	entfinding "github.com/mcpreg/mcpreg/internal/ent/finding"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	entupstream "github.com/mcpreg/mcpreg/internal/ent/upstream"
	"github.com/mcpreg/mcpreg/internal/ent/upstreamrecord"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/upstream"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
	"github.com/mcpreg/mcpreg/scan"
)

// Finding kinds of imported versions.
const (
	// KindUpstreamNoSnapshot: the version's tools could not be read; it
	// cannot be approved (nothing would be pinned) until a scan reads
	// them (firstread.go).
	KindUpstreamNoSnapshot = "upstream.no_snapshot"
	// KindUpstreamConflict: an upstream serves a name or version that
	// exists here from elsewhere, or changed a version after import.
	KindUpstreamConflict = "upstream.conflict"
	// KindUpstreamDeprecated: the upstream deprecated the version (a
	// warning; the version stays usable).
	KindUpstreamDeprecated = "upstream.deprecated"
	// KindUpstreamDeleted: the upstream deleted the version; it is not
	// admitted while the upstream says so.
	KindUpstreamDeleted = "upstream.deleted"
)

// Outcomes of an upstream record.
const (
	outcomeImported = "imported"
	outcomeConflict = "conflict"
	outcomeInvalid  = "invalid"
	outcomeDeleted  = "deleted"
)

// Counts of a pass.
const (
	countPages     = "pages"
	countListed    = "listed"
	countImported  = "imported"
	countSkipped   = "skipped" // outside the namespaces
	countUnchanged = "unchanged"
	countInvalid   = "invalid"
	countConflicts = "conflicts"
	countStatus    = "status_changes"
)

// maxPassErrors caps the per-entry errors a pass reports (all are
// counted and recorded).
const maxPassErrors = 100

// upstreamLease is how long a pass holds an upstream without renewing
// (it renews at every page and at least every leaseRenewal while it
// imports): another replica takes a dead one's pass over after it.
const (
	upstreamLease = 2 * time.Minute
	leaseRenewal  = 20 * time.Second
)

// SyncResult is what one pass did.
type SyncResult struct {
	Upstream *mcpregv1.Upstream
	Counts   map[string]int
	// Errors are per-entry problems; the pass went on past them.
	Errors []string
	// Stopped says why the pass ended early ("" when it completed); the
	// next pass resumes from its last good cursor.
	Stopped string
}

// upstreamImport is the provenance a sync hands a submission; the record
// is written in the version's own transaction, so a version is never
// imported without it (or twice).
type upstreamImport struct {
	up    *ent.Upstream
	entry upstream.Entry
	hash  string
	// noSnapshot says why the tools were not read ("" when they were).
	noSnapshot string
}

// SyncUpstream runs a pass of the named upstream now and answers when it
// ends. Admins only.
func (s *Upstreams) SyncUpstream(ctx context.Context, c *Caller, name string) (*SyncResult, error) {
	if c.Role != RoleAdmin {
		return nil, deniedf("only admins sync upstream registries")
	}
	return s.sync(ctx, c, name)
}

// StartSync claims the named upstream now and runs its pass in the
// background, under the context of this process's upstream schedule
// (RunUpstreamSchedule), so a long pass neither holds the request nor
// dies with it; a shutdown cuts it short and the next pass resumes. The
// answer is the upstream with the pass under way. Admins only.
func (s *Upstreams) StartSync(ctx context.Context, c *Caller, name string) (*mcpregv1.Upstream, error) {
	if c.Role != RoleAdmin {
		return nil, deniedf("only admins sync upstream registries")
	}
	u, err := s.claim(ctx, name)
	if err != nil {
		return nil, err
	}
	by := *c
	if !s.background.run(func(bg context.Context) {
		res, err := s.passClaimed(bg, &by, u)
		switch {
		case err != nil:
			s.log.WarnContext(bg, "upstream sync", "upstream", name, "err", err)
		case res.Stopped != "":
			s.log.WarnContext(bg, "upstream sync stopped early", "upstream", name, "reason", res.Stopped)
		}
	}) {
		s.releaseLease(context.WithoutCancel(ctx), u.ID)
		return nil, fmt.Errorf("%w: this process runs no background sync passes (mcpregd serve does); ask with wait, or run mcpregd upstream sync", ErrFailedPrecondition)
	}
	return upstreamProto(u, s.now()), nil
}

// passRunner runs passes started by requests under the schedule's context;
// the schedule waits for them as it ends.
type passRunner struct {
	mu  sync.Mutex
	ctx context.Context // nil while no schedule runs
	wg  sync.WaitGroup
}

// run starts f in the background; false when no schedule runs.
func (r *passRunner) run(f func(context.Context)) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx == nil {
		return false
	}
	ctx := r.ctx
	r.wg.Go(func() { f(ctx) })
	return true
}

// open lets run start passes under ctx until the returned function, which
// waits for them, is called.
func (r *passRunner) open(ctx context.Context) (closeAndWait func()) {
	r.mu.Lock()
	r.ctx = ctx
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.ctx = nil
		r.mu.Unlock()
		r.wg.Wait()
	}
}

// RunUpstreamSchedule syncs every upstream whose interval has passed,
// until ctx ends; replicas take turns through the upstream's lease. The
// passes StartSync hands it run beside it, and it returns when they have
// ended too.
func (s *Upstreams) RunUpstreamSchedule(ctx context.Context, poll time.Duration) error {
	defer s.background.open(ctx)()
	sys := &Caller{Principal: "system:upstream-schedule", Role: RoleAdmin}
	for {
		ups, err := s.store.Client.Upstream.Query().Where(entupstream.IntervalSecondsGT(0)).All(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "upstream schedule", "err", err)
		}
		for _, u := range ups {
			due := u.LastPassAt == nil || !s.now().Before(u.LastPassAt.Add(time.Duration(u.IntervalSeconds)*time.Second))
			if !due || ctx.Err() != nil {
				continue
			}
			res, err := s.sync(ctx, sys, u.Name)
			switch {
			case errors.Is(err, errUpstreamBusy):
			case err != nil:
				s.log.WarnContext(ctx, "upstream sync", "upstream", u.Name, "err", err)
			case res.Stopped != "":
				s.log.WarnContext(ctx, "upstream sync stopped early", "upstream", u.Name, "reason", res.Stopped)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(poll):
		}
	}
}

// sync claims the upstream's lease and runs one pass.
func (s *Upstreams) sync(ctx context.Context, c *Caller, name string) (*SyncResult, error) {
	u, err := s.claim(ctx, name)
	if err != nil {
		return nil, err
	}
	return s.passClaimed(ctx, c, u)
}

// passClaimed runs one pass of an upstream whose lease this replica has
// just claimed, audits it and releases the lease.
func (s *Upstreams) passClaimed(ctx context.Context, c *Caller, u *ent.Upstream) (*SyncResult, error) {
	defer s.releaseLease(context.WithoutCancel(ctx), u.ID)
	res := &SyncResult{Counts: map[string]int{}}
	stop := s.pass(ctx, c, u, res)
	if stop != nil {
		res.Stopped = printable(stop.Error())
	}
	err := s.store.WithTx(context.WithoutCancel(ctx), func(tx *ent.Tx) error {
		details := countsText(res.Counts)
		if res.Stopped != "" {
			details += "; stopped: " + res.Stopped
		}
		return s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "upstream.sync", Subject: "upstream/" + u.Name,
			RequestID: c.RequestID, Details: details})
	})
	if err != nil {
		return nil, err
	}
	if u, err = s.store.Client.Upstream.Get(context.WithoutCancel(ctx), u.ID); err != nil {
		return nil, err
	}
	res.Upstream = upstreamProto(u, time.Time{})
	return res, nil
}

func countsText(m map[string]int) string {
	var parts []string
	for _, k := range []string{countPages, countListed, countImported, countUnchanged, countSkipped, countInvalid, countConflicts, countStatus} {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// claim takes the upstream's lease for this replica.
func (s *Upstreams) claim(ctx context.Context, name string) (*ent.Upstream, error) {
	u, err := s.store.Client.Upstream.Query().Where(entupstream.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFoundf("upstream %s", name)
	} else if err != nil {
		return nil, err
	}
	busy := fmt.Errorf("%w: %w of upstream %s on %s; try again when it ends", ErrFailedPrecondition, errUpstreamBusy, name, u.LeaseOwner)
	id := u.ID
	if !s.markPassing(id, true) {
		return nil, busy
	}
	now := s.now()
	// A lease this replica holds is its own: a process restarted under
	// the same replica name (after a crash, a kill) resumes at once.
	n, err := s.store.Client.Upstream.Update().Where(entupstream.ID(id),
		entupstream.Or(entupstream.LeaseUntilIsNil(), entupstream.LeaseUntilLT(now), entupstream.LeaseOwner(s.replica))).
		SetLeaseOwner(s.replica).SetLeaseUntil(now.Add(upstreamLease)).Save(ctx)
	switch {
	case err != nil:
		s.releaseLease(context.WithoutCancel(ctx), id)
		return nil, err
	case n == 0: // another replica's: leave its lease alone
		s.markPassing(id, false)
		return nil, busy
	}
	if u, err = s.store.Client.Upstream.Get(ctx, id); err != nil {
		s.releaseLease(context.WithoutCancel(ctx), id)
		return nil, err
	}
	return u, nil
}

// markPassing marks (on) or clears the upstream's pass in this process;
// marking one already marked is false.
func (s *Upstreams) markPassing(id int, on bool) bool {
	s.passingMu.Lock()
	defer s.passingMu.Unlock()
	if on && s.passing[id] {
		return false
	}
	if on {
		s.passing[id] = true
	} else {
		delete(s.passing, id)
	}
	return true
}

// releaseLease gives up this replica's lease (if it still holds it) and
// its in-process mark.
func (s *Upstreams) releaseLease(ctx context.Context, id int) {
	defer s.markPassing(id, false)
	err := s.store.Client.Upstream.Update().Where(entupstream.ID(id), entupstream.LeaseOwner(s.replica)).
		ClearLeaseUntil().SetLeaseOwner("").Exec(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "upstream lease release", "err", err)
	}
}

// pass reads pages from where the last pass stopped (or from the
// watermark) and imports each entry. It returns why it stopped early; the
// pass state then keeps the last good cursor.
func (s *Upstreams) pass(ctx context.Context, c *Caller, u *ent.Upstream, res *SyncResult) error {
	start := s.now()
	since, passStart, cursor := u.Since, start, ""
	if u.PassStartedAt != nil { // resume a pass cut short
		since, passStart, cursor = u.PassSince, *u.PassStartedAt, u.Cursor
	}
	upd := s.store.Client.Upstream.UpdateOneID(u.ID).SetPassStartedAt(passStart).SetCursor(cursor)
	if since != nil {
		upd.SetPassSince(*since)
	}
	if err := upd.Exec(ctx); err != nil {
		return err
	}
	stop := s.pages(ctx, c, u, since, cursor, res)
	now := s.now()
	upd = s.store.Client.Upstream.UpdateOneID(u.ID).SetLastPassAt(now).SetLastCounts(res.Counts)
	if stop == nil {
		upd.SetSince(passStart.Add(-s.lim.Skew)).ClearPassStartedAt().ClearPassSince().SetCursor("").
			SetLastSuccessAt(now).SetLastError("")
	} else {
		upd.SetLastError(upstream.Truncate(printable(stop.Error()), 2000))
	}
	if err := upd.Exec(context.WithoutCancel(ctx)); err != nil {
		return errors.Join(stop, err)
	}
	return stop
}

func (s *Upstreams) pages(ctx context.Context, c *Caller, u *ent.Upstream, since *time.Time, cursor string, res *SyncResult) error {
	token, err := s.token(u)
	if err != nil {
		return err
	}
	allow, err := scan.ParseAllowList(u.Allow)
	if err != nil {
		return err
	}
	client, err := upstream.New(u.URL, token, allow, s.lim)
	if err != nil {
		return err
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(ctx, s.lim.PassTimeout)
	defer cancel()
	var from time.Time
	if since != nil {
		from = *since
	}
	seen := map[string]bool{cursor: true}
	var bytes int64
	for {
		if res.Counts[countPages] >= s.lim.MaxPages {
			return fmt.Errorf("upstream %s: more than %d pages in one pass; the next pass resumes where this one stopped", u.Name, s.lim.MaxPages)
		}
		page, err := client.List(ctx, from, cursor)
		if err != nil {
			return err
		}
		if bytes += page.Bytes; bytes > s.lim.MaxPassBytes {
			return fmt.Errorf("upstream %s: more than %d bytes in one pass; the next pass resumes where this one stopped", u.Name, s.lim.MaxPassBytes)
		}
		res.Counts[countPages]++
		renewed := time.Now()
		for _, e := range page.Entries {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("upstream %s: the pass ran out of time (%s); the next pass resumes at the last page: %w", u.Name, s.lim.PassTimeout, err)
			}
			if err := s.importEntry(ctx, c, u, e, res); err != nil {
				return err
			}
			if time.Since(renewed) > leaseRenewal {
				renewed = time.Now()
				if err := s.store.Client.Upstream.UpdateOneID(u.ID).SetLeaseUntil(s.now().Add(upstreamLease)).Exec(ctx); err != nil {
					return err
				}
			}
		}
		next := page.NextCursor
		if next == "" || len(page.Entries) == 0 {
			return nil
		}
		if seen[next] {
			return fmt.Errorf("%w: upstream %s repeated the cursor %q: it pages in a loop", upstream.ErrUpstream, u.Name, upstream.Truncate(next, 100))
		}
		seen[next] = true
		cursor = next
		err = s.store.Client.Upstream.UpdateOneID(u.ID).SetCursor(cursor).SetLeaseUntil(s.now().Add(upstreamLease)).Exec(ctx)
		if err != nil {
			return err
		}
	}
}

func (s *Upstreams) token(u *ent.Upstream) (string, error) {
	if len(u.TokenSealed) == 0 {
		return "", nil
	}
	key, err := s.secretsKey()
	if err != nil {
		return "", err
	}
	if key.ID() != u.KeyID {
		return "", fmt.Errorf("%w: the token of upstream %s was sealed with secrets key %s, this registry has %s: register it again", ErrFailedPrecondition, u.Name, u.KeyID, key.ID())
	}
	tok, err := key.Open(u.TokenSealed, upstreamAD(u.Name))
	if err != nil {
		return "", fmt.Errorf("%w: the token of upstream %s does not open: register it again", ErrFailedPrecondition, u.Name)
	}
	return string(tok), nil
}

// entryError records a per-entry problem. The text quotes what the
// upstream sent, so control and bidirectional characters are blanked:
// it is printed on admins' terminals.
func (r *SyncResult) entryError(count string, format string, args ...any) {
	r.Counts[count]++
	if len(r.Errors) < maxPassErrors {
		r.Errors = append(r.Errors, printable(fmt.Sprintf(format, args...)))
	}
}

// printable blanks control, format and bidirectional characters.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r) {
			return r
		}
		return ' '
	}, s)
}

// maxMetaBytes caps the upstream _meta kept per version (provenance).
const maxMetaBytes = 64 << 10

// contentHash is SHA-256 over the canonical (RFC 8785) server.json.
func contentHash(raw []byte) (string, error) {
	v := jsontext.Value(slices.Clone(raw))
	if err := v.Canonicalize(); err != nil {
		return "", err
	}
	sum := sha256.Sum256(v)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// importEntry handles one listed version: dedupes it against what this
// upstream listed before, refuses what collides with local servers, and
// submits the rest into review as the upstream's principal. Problems with
// the entry are recorded and the pass goes on; an error stops the pass.
func (s *Upstreams) importEntry(ctx context.Context, c *Caller, u *ent.Upstream, e upstream.Entry, res *SyncResult) error {
	res.Counts[countListed]++
	if e.Problem != "" {
		res.entryError(countInvalid, "%s", e.Problem)
		return nil
	}
	if !matchesUpstream(u, e.Name) {
		res.Counts[countSkipped]++
		return nil
	}
	subject := subjectOf(e.Name, e.Version)
	hash, err := contentHash(e.Server)
	if err != nil {
		res.entryError(countInvalid, "%s: server is not strict JSON: %v", subject, err)
		return nil
	}
	rec, err := s.store.Client.UpstreamRecord.Query().Where(upstreamrecord.Upstream(u.Name),
		upstreamrecord.ServerName(e.Name), upstreamrecord.Version(e.Version)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return err
	}
	switch {
	case rec != nil && rec.VersionID != nil:
		return s.seenAgain(ctx, c, u, rec, e, hash, res)
	case rec != nil && rec.ContentHash == hash && (rec.Outcome != outcomeDeleted || e.Status == upstream.StatusDeleted):
		// Refused before, or deleted before it was imported, and listed
		// unchanged: nothing new to do.
		res.Counts[countUnchanged]++
		return s.store.Client.UpstreamRecord.UpdateOne(rec).SetStatus(e.Status).SetStatusMessage(e.StatusMessage).
			SetLastSeenAt(s.now()).Exec(ctx)
	}
	imp := &upstreamImport{up: u, entry: e, hash: hash}
	if e.Status == upstream.StatusDeleted {
		res.Counts[countUnchanged]++
		return s.record(ctx, imp, rec, outcomeDeleted, "listed as deleted before it was imported")
	}
	if msg, err := s.foreignName(ctx, u, e.Name, e.Version); err != nil {
		return err
	} else if msg != "" {
		res.entryError(countConflicts, "%s: %s", subject, msg)
		if err := s.conflictFinding(ctx, e.Name, e.Version, msg); err != nil {
			return err
		}
		return s.record(ctx, imp, rec, outcomeConflict, msg)
	}
	err = s.submitImport(ctx, c, imp)
	switch {
	case err == nil:
		res.Counts[countImported]++
		return nil
	case errors.Is(err, ErrAlreadyExists) || errors.Is(err, ErrInvalid) || errors.Is(err, ErrPermissionDenied) || errors.Is(err, ErrTooLarge):
		// ErrAlreadyExists: a case variant of a local name, or a version
		// submitted here meanwhile.
		res.entryError(countInvalid, "%s: %v", subject, err)
		return s.record(ctx, imp, rec, outcomeInvalid, upstream.Truncate(err.Error(), 2000))
	default:
		return fmt.Errorf("importing %s from upstream %s: %w", subject, u.Name, err)
	}
}

// foreignName says why name@ver cannot be imported from u: the server
// exists here under another owner, or the version exists here already.
func (s *Upstreams) foreignName(ctx context.Context, u *ent.Upstream, name, ver string) (string, error) {
	srv, err := s.store.Client.Server.Query().Where(server.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	if srv.Owner != UpstreamPrincipal(u.Name) {
		return fmt.Sprintf("server %s exists here, owned by %s; upstream %s's copy is not merged into it", name, srv.Owner, u.Name), nil
	}
	n, err := s.store.Client.Version.Query().Where(version.ServerID(srv.ID), version.Version(ver)).Count(ctx)
	if err != nil {
		return "", err
	}
	if n > 0 {
		return fmt.Sprintf("version %s of %s exists here already, not imported from upstream %s; versions are immutable, the upstream copy is not imported", ver, name, u.Name), nil
	}
	return "", nil
}

// conflictFinding puts a conflict before reviewers on the local server's
// newest version (the version itself when it exists).
func (s *Upstreams) conflictFinding(ctx context.Context, name, ver, msg string) error {
	v, err := s.store.Client.Version.Query().Where(version.HasServerWith(server.Name(name))).
		Order(ent.Desc(version.FieldID)).All(ctx)
	if err != nil || len(v) == 0 {
		return err
	}
	target := v[0]
	for _, x := range v {
		if x.Version == ver {
			target = x
		}
	}
	return s.addFindingOnce(ctx, target.ID, finding.Finding{Kind: KindUpstreamConflict, Severity: finding.Medium, Message: msg})
}

// addFindingOnce stores f on a version unless an equal one is there.
func (s *Upstreams) addFindingOnce(ctx context.Context, versionID int, f finding.Finding) error {
	return s.store.WithTx(ctx, func(tx *ent.Tx) error {
		n, err := tx.Finding.Query().Where(entfinding.VersionID(versionID), entfinding.Kind(f.Kind), entfinding.Message(f.Message)).Count(ctx)
		if err != nil || n > 0 {
			return err
		}
		return saveFindings(ctx, tx, versionID, []recorded{{Finding: f, Source: SourceUpstream}})
	})
}

// SnapshotSourceNone is the source of the empty snapshot of a version
// imported without its tools ("no tool snapshot").
const SnapshotSourceNone = "none"

// findings are what an import brings to review besides the detectors':
// no tool snapshot, and a version the upstream lists as deprecated
// already. None for a version submitted here (imp nil).
func (imp *upstreamImport) findings() []recorded {
	if imp == nil {
		return nil
	}
	var out []recorded
	if imp.noSnapshot != "" {
		out = append(out, recorded{Source: SourceUpstream, Finding: finding.Finding{Kind: KindUpstreamNoSnapshot, Severity: finding.High,
			Message: "no tool snapshot: the registry could not read this version's tools (" + upstream.Truncate(printable(imp.noSnapshot), 500) +
				"); it cannot be approved, since nothing would be pinned"}})
	}
	if imp.entry.Status == upstream.StatusDeprecated {
		msg := fmt.Sprintf("upstream %s lists %s as deprecated", imp.up.Name, subjectOf(imp.entry.Name, imp.entry.Version))
		if imp.entry.StatusMessage != "" {
			msg += ": " + upstream.Truncate(printable(imp.entry.StatusMessage), 500)
		}
		out = append(out, recorded{Source: SourceUpstream, Finding: finding.Finding{Kind: KindUpstreamDeprecated, Severity: finding.Medium, Message: msg}})
	}
	return out
}

// upstreamSummary is the audit detail of an imported version.
func upstreamSummary(imp *upstreamImport) string {
	if imp == nil {
		return ""
	}
	out := fmt.Sprintf(" upstream=%s url=%s contentHash=%s", imp.up.Name, imp.up.URL, imp.hash)
	if imp.noSnapshot != "" {
		out += " snapshot=none"
	}
	return out
}

// SourceUpstream marks findings a sync raised.
const SourceUpstream = "upstream"

// record stores what became of an entry that was not imported.
func (s *Upstreams) record(ctx context.Context, imp *upstreamImport, rec *ent.UpstreamRecord, outcome, detail string) error {
	return s.store.WithTx(ctx, func(tx *ent.Tx) error {
		return s.writeRecord(ctx, tx, imp, rec, nil, outcome, detail)
	})
}

// writeRecord creates or updates the record of imp.
func (s *core) writeRecord(ctx context.Context, tx *ent.Tx, imp *upstreamImport, rec *ent.UpstreamRecord, versionID *int, outcome, detail string) error {
	e, now := imp.entry, s.now()
	meta := keptMeta(e.Meta)
	if rec == nil {
		var err error
		rec, err = tx.UpstreamRecord.Query().Where(upstreamrecord.Upstream(imp.up.Name),
			upstreamrecord.ServerName(e.Name), upstreamrecord.Version(e.Version)).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
	}
	if rec == nil {
		create := tx.UpstreamRecord.Create().SetUpstream(imp.up.Name).SetUpstreamURL(imp.up.URL).SetServerName(e.Name).
			SetVersion(e.Version).SetContentHash(imp.hash).SetStatus(e.Status).SetStatusMessage(e.StatusMessage).
			SetMeta(meta).SetOutcome(outcome).SetDetail(detail).SetFirstSeenAt(now).SetLastSeenAt(now).
			SetNillablePublishedAt(timePtr(e.PublishedAt)).SetNillableUpstreamUpdatedAt(timePtr(e.UpdatedAt)).
			SetNillableVersionID(versionID)
		return create.Exec(ctx)
	}
	return tx.UpstreamRecord.UpdateOne(rec).SetContentHash(imp.hash).SetStatus(e.Status).SetStatusMessage(e.StatusMessage).
		SetMeta(meta).SetOutcome(outcome).SetDetail(detail).SetLastSeenAt(now).
		SetNillablePublishedAt(timePtr(e.PublishedAt)).SetNillableUpstreamUpdatedAt(timePtr(e.UpdatedAt)).
		SetNillableVersionID(versionID).Exec(ctx)
}

// keptMeta is an upstream's _meta as stored: as received, unless larger
// than maxMetaBytes.
func keptMeta(m []byte) []byte {
	if len(m) <= maxMetaBytes {
		return m
	}
	return fmt.Appendf(nil, `{"io.mcpreg/registry":{"note":"the upstream's _meta was %d bytes, more than %d: not kept"}}`, len(m), maxMetaBytes)
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC().Truncate(time.Microsecond)
	return &t
}

// seenAgain handles an entry this upstream listed before: unchanged, a
// changed copy of an imported version (a conflict: versions are
// immutable), or a new status.
func (s *Upstreams) seenAgain(ctx context.Context, c *Caller, u *ent.Upstream, rec *ent.UpstreamRecord, e upstream.Entry, hash string, res *SyncResult) error {
	subject := subjectOf(e.Name, e.Version)
	if rec.ContentHash != hash && rec.VersionID != nil {
		msg := fmt.Sprintf("upstream %s now serves a different server.json for %s (%s, imported as %s); versions are immutable: the imported copy stays, the new one is not imported",
			u.Name, subject, hash, rec.ContentHash)
		res.entryError(countConflicts, "%s", msg)
		if err := s.addFindingOnce(ctx, *rec.VersionID, finding.Finding{Kind: KindUpstreamConflict, Severity: finding.Medium, Message: msg}); err != nil {
			return err
		}
	}
	if rec.Status == e.Status && rec.StatusMessage == e.StatusMessage {
		res.Counts[countUnchanged]++
		return s.store.Client.UpstreamRecord.UpdateOne(rec).SetLastSeenAt(s.now()).Exec(ctx)
	}
	res.Counts[countStatus]++
	return s.statusChanged(ctx, c, u, rec, e)
}

// statusChanged records an upstream's new status of an imported version
// and lets it flow down: deprecated warns (a finding; the review page
// shows a banner); deleted quarantines an approved version (kind
// upstream, the upstream's message as the reason) and blocks a pending
// one (a high finding; checkUpstreamFindings). Only an explicit deleted
// status counts: a version missing from an incremental pass is not
// deleted. An upstream that reinstates a version releases nothing.
func (s *Upstreams) statusChanged(ctx context.Context, c *Caller, u *ent.Upstream, rec *ent.UpstreamRecord, e upstream.Entry) error {
	actor := UpstreamPrincipal(u.Name)
	subject := subjectOf(e.Name, e.Version)
	return s.store.WithTx(ctx, func(tx *ent.Tx) error {
		err := tx.UpstreamRecord.UpdateOne(rec).SetStatus(e.Status).SetStatusMessage(e.StatusMessage).
			SetNillableUpstreamUpdatedAt(timePtr(e.UpdatedAt)).SetMeta(keptMeta(e.Meta)).SetLastSeenAt(s.now()).Exec(ctx)
		if err != nil {
			return err
		}
		err = s.appendAudit(ctx, tx, AuditRecord{Actor: actor, Action: "upstream.status",
			Subject: subject, Before: rec.Status, After: e.Status, Reason: e.StatusMessage, RequestID: c.RequestID})
		if err != nil || rec.VersionID == nil || e.Status == rec.Status {
			return err
		}
		v, err := tx.Version.Get(ctx, *rec.VersionID)
		if err != nil {
			return err
		}
		said := ""
		if e.StatusMessage != "" {
			said = ": " + upstream.Truncate(printable(e.StatusMessage), 500)
		}
		switch e.Status {
		case upstream.StatusDeprecated:
			return saveFindings(ctx, tx, v.ID, []recorded{{Source: SourceUpstream, Finding: finding.Finding{Kind: KindUpstreamDeprecated,
				Severity: finding.Medium, Message: fmt.Sprintf("upstream %s deprecated %s%s", u.Name, subject, said)}}})
		case upstream.StatusDeleted:
			f := finding.Finding{Kind: KindUpstreamDeleted, Severity: finding.High,
				Message: fmt.Sprintf("upstream %s deleted %s%s; it is not admitted while the upstream says so", u.Name, subject, said)}
			if err := saveFindings(ctx, tx, v.ID, []recorded{{Source: SourceUpstream, Finding: f}}); err != nil {
				return err
			}
			if v.State != version.StateApproved {
				return nil
			}
			reason := fmt.Sprintf("deleted upstream (%s)%s", u.Name, said)
			return s.review.attest.quarantine(ctx, tx, actor, c.RequestID, v, subject, states.QuarantineUpstream, reason)
		}
		return nil
	})
}

// submitImport submits an entry as the upstream's principal, its tools
// read live under the scanner's rules where the upstream says so and the
// version can be read; otherwise without a tool snapshot.
func (s *Upstreams) submitImport(ctx context.Context, c *Caller, imp *upstreamImport) error {
	u := imp.up
	by := &Caller{Principal: UpstreamPrincipal(u.Name), Role: RoleOwner, Namespaces: u.Namespaces, RequestID: c.RequestID}
	sub := Submission{ServerJSON: imp.entry.Server, upstream: imp}
	if _, err := s.review.parseServerJSON(sub.ServerJSON); err != nil {
		return err // refused before anything is read
	}
	if u.Tools == UpstreamToolsLive {
		if err := s.readLiveCapped(ctx, by, &sub); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			imp.noSnapshot = err.Error()
		}
	} else {
		imp.noSnapshot = "upstream " + u.Name + " is imported without reading tools (tools=none)"
	}
	if imp.noSnapshot != "" {
		sub.Tools, sub.InitializeResult = []byte(`{"tools":[]}`), nil
	}
	_, err := s.review.Submit(ctx, by, sub)
	return err
}

// readLiveCapped reads an import's tools live as an on-demand scan of the
// upstream's principal: within its --scan-rate and this replica's
// on-demand slots, waiting for them rather than skipping the read.
func (s *Upstreams) readLiveCapped(ctx context.Context, by *Caller, sub *Submission) error {
	gate := s.review.scans.gate
	for {
		err := gate.allow(by.Principal, time.Now())
		if err == nil {
			var release func()
			if release, err = gate.acquire(); err == nil {
				defer release()
				return s.review.readLive(ctx, by, sub)
			}
		}
		wait, ok := RetryAfter(err)
		if !ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// checkUpstreamFindings refuses to admit an imported version whose tools
// were never read (its pins would cover no tool at all; a first reading,
// firstread.go, resolves that finding), or that its
// upstream says is deleted (approving, releasing or accepting its drift
// alike; once the upstream reinstates it a reviewer may).
func checkUpstreamFindings(ctx context.Context, tx *ent.Tx, v *ent.Version, a Action, subject string) error {
	f, err := tx.Finding.Query().Where(entfinding.VersionID(v.ID), entfinding.KindIn(KindUpstreamNoSnapshot), entfinding.ResolvedAtIsNil()).
		Order(ent.Asc(entfinding.FieldID)).First(ctx)
	if err == nil {
		return fmt.Errorf("%w: cannot %s %s: %s", ErrFailedPrecondition, a, subject, f.Message)
	} else if !ent.IsNotFound(err) {
		return err
	}
	recs, err := tx.UpstreamRecord.Query().Where(upstreamrecord.VersionID(v.ID), upstreamrecord.Status(upstream.StatusDeleted)).All(ctx)
	if err != nil || len(recs) == 0 {
		return err
	}
	msg := ""
	if recs[0].StatusMessage != "" {
		msg = ": " + upstream.Truncate(printable(recs[0].StatusMessage), 500)
	}
	return fmt.Errorf("%w: cannot %s %s: upstream %s deleted it%s; it is admitted only once the upstream reinstates it",
		ErrFailedPrecondition, a, subject, recs[0].Upstream, msg)
}

// provenance is where an imported version came from; nil for versions
// submitted here.
func (s *core) provenance(ctx context.Context, versionID int) (*mcpregv1.UpstreamProvenance, error) {
	rec, err := s.store.Client.UpstreamRecord.Query().Where(upstreamrecord.VersionID(versionID)).
		Order(ent.Asc(upstreamrecord.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return &mcpregv1.UpstreamProvenance{Upstream: rec.Upstream, Url: rec.UpstreamURL, PublishedAt: tsPtr(rec.PublishedAt),
		UpdatedAt: tsPtr(rec.UpstreamUpdatedAt), Status: rec.Status, StatusMessage: rec.StatusMessage, Meta: string(rec.Meta),
		ContentHash: rec.ContentHash}, nil
}
