package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/ent"
	entfinding "github.com/mcpreg/mcpreg/internal/ent/finding"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/pin"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Connect-time verdicts.
const (
	VerdictAllowed = "allowed"
	VerdictDrifted = "drifted"
	VerdictUnknown = "unknown"
)

// CheckInput is what a host observed on a server.
type CheckInput struct {
	Name, Version    string
	Tools            []byte
	InitializeResult []byte
}

// CheckConnection compares what a host observed with the pins of the
// version it may use (the one it names, else the latest), per tool, with
// the drift policy's classes and severities. The observation is stored;
// a mismatch makes the registry scan the version itself, since a host's
// word alone never changes a version's state. A server the host may not
// use is verdict unknown, not an error.
func (s *Scans) CheckConnection(ctx context.Context, c *Caller, in CheckInput) (*mcpregv1.CheckConnectionResponse, error) {
	if c.Role != RoleHost && c.Role != RoleAdmin {
		return nil, deniedf("role %s does not post connect-time checks (hosts do)", c.Role)
	}
	if !serverNameRE.MatchString(in.Name) {
		return nil, invalidf("server name %q does not match ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", in.Name)
	}
	observed, init, err := s.parseSnapshot(in.Tools, in.InitializeResult)
	if err != nil {
		return nil, err
	}
	observedPins, err := pin.Compute(observed)
	if err != nil {
		return nil, invalidf("tools: %v", err)
	}
	idx, err := s.discovery.discoveryIndex(ctx)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.CheckConnectionResponse{Name: in.Name, Version: in.Version, Receipt: &mcpregv1.CheckReceipt{
		ObservedToolDefinitionHash: observedPins.ToolDefinitionHash, ObservedDigest: sha256Text(in.Tools), CheckedAt: ts(s.now())}}
	var dv *discoveryVersion
	if ds := idx.server(in.Name); ds != nil {
		ver := in.Version
		if ver == "latest" {
			ver = ""
		}
		dv = ds.pick(ver, c.EnvLabels, c.Role != RoleHost)
	}
	if dv == nil {
		out.Verdict, out.Message = VerdictUnknown, fmt.Sprintf("%s has no approved version this host may use%s", in.Name, versionNote(in.Version))
		if err := s.unknownStatus(ctx, c, in, out); err != nil {
			return nil, err
		}
		return out, s.recordCheck(ctx, c, in, nil, out)
	}
	out.Version = dv.version
	if err := s.compareObserved(ctx, dv, observed, init, out); err != nil {
		return nil, err
	}
	if err := s.recordCheck(ctx, c, in, dv, out); err != nil {
		return nil, err
	}
	if out.Verdict == VerdictDrifted && s.scanning != nil {
		s.requestReportScan(ctx, c, in.Name, dv.version, out)
	}
	return out, nil
}

func versionNote(v string) string {
	if v == "" || v == "latest" {
		return ""
	}
	return " at version " + v
}

// compareObserved fills out's verdicts from the drift between the approved
// snapshot and the observation. Without an initialize result the host's
// instructions and serverInfo are unknown, so they are not compared.
func (s *Scans) compareObserved(ctx context.Context, dv *discoveryVersion, observed *pin.ToolsList, init *InitializeFacts, out *mcpregv1.CheckConnectionResponse) error {
	v, err := s.store.Client.Version.Get(ctx, dv.id)
	if err != nil {
		return err
	}
	ap, err := s.approvedSnapshot(ctx, s.store.Client, v)
	if err != nil {
		return err
	}
	approved, approvedInfo := ap.list, ap.serverInfo
	var liveInfo []byte
	if init.InstructionsSet || init.ServerInfo != nil {
		liveInfo = init.ServerInfo
	} else {
		observed.Instructions, approvedInfo = approved.Instructions, nil
	}
	// What the host did not list (no "prompts" member in its tools file)
	// it did not observe: only what it sent is compared.
	if observed.Prompts == nil {
		observed.Prompts = approved.Prompts
	}
	if observed.Resources == nil {
		observed.Resources = approved.Resources
	}
	if observed.ResourceTemplates == nil {
		observed.ResourceTemplates = approved.ResourceTemplates
	}
	pins := dv.entry().Pins
	changes := outOfScope(s.driftUnder(ap.spec, approved, observed, approvedInfo, liveInfo), pins.Tools)
	out.Receipt.PinRevision = int32(pins.Revision)
	out.Receipt.ToolDefinitionHash = pins.ToolDefinitionHash
	out.Tools = toolVerdicts(pins.Tools, observed, changes)
	for _, c := range storedChanges(changes) {
		out.Changes = append(out.Changes, driftChangeProto(c))
	}
	if len(changes) == 0 {
		out.Verdict, out.Message = VerdictAllowed, "every tool matches the approved pins"
		return nil
	}
	out.Verdict, out.Action = VerdictDrifted, string(diffreview.Verdict(changes))
	out.Message = fmt.Sprintf("%d change(s) from the approved pins (revision %d); the strictest says %s; the registry is checking the server",
		len(changes), pins.Revision, out.Action)
	return nil
}

// outOfScope drops the removal of tools the scanner saw only with scopes:
// a host whose token lacks them is not shown them, which is not drift.
func outOfScope(changes []diffreview.Change, pinned []discovery.ToolPin) []diffreview.Change {
	return slices.DeleteFunc(changes, func(c diffreview.Change) bool {
		return c.Class == diffreview.ClassToolRemoved && slices.ContainsFunc(pinned, func(p discovery.ToolPin) bool {
			return p.Name == c.Tool && len(p.Scopes) > 0
		})
	})
}

// toolVerdicts gives one verdict per tool, approved or observed, in name
// order.
func toolVerdicts(pinned []discovery.ToolPin, observed *pin.ToolsList, changes []diffreview.Change) []*mcpregv1.ToolVerdict {
	byName := map[string]*mcpregv1.ToolVerdict{}
	for _, p := range pinned {
		byName[p.Name] = &mcpregv1.ToolVerdict{Name: p.Name, Verdict: VerdictAllowed, PinnedHash: p.Hash}
	}
	for _, t := range observed.Tools {
		tv := byName[t.Name]
		if tv == nil {
			tv = &mcpregv1.ToolVerdict{Name: t.Name, Verdict: VerdictAllowed}
			byName[t.Name] = tv
		}
		if h, err := pin.ToolHash(t.Raw); err == nil {
			tv.ObservedHash = h
		}
	}
	for _, c := range changes {
		tv := byName[c.Tool]
		if c.Tool == "" || tv == nil {
			continue
		}
		tv.Verdict = VerdictDrifted
		if !slices.Contains(tv.Classes, string(c.Class)) {
			tv.Classes = append(tv.Classes, string(c.Class))
		}
		if finding.Severity(tv.Severity).Rank() < c.Severity.Rank() || tv.Severity == "" {
			tv.Severity = string(c.Severity)
		}
		if tv.Action != string(diffreview.ActionQuarantine) {
			tv.Action = string(c.Action)
		}
	}
	out := make([]*mcpregv1.ToolVerdict, 0, len(byName))
	for _, tv := range byName {
		out = append(out, tv)
	}
	slices.SortFunc(out, func(a, b *mcpregv1.ToolVerdict) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// recordCheck stores the observation (its raw bodies only within
// Limits.HostChecks.MaxBytes), fills the receipt's id and prunes the
// host's older observations of the version.
func (s *Scans) recordCheck(ctx context.Context, c *Caller, in CheckInput, dv *discoveryVersion, out *mcpregv1.CheckConnectionResponse) error {
	tools, init, note := s.storedBody(in)
	out.Message += note
	q := s.store.Client.HostCheck.Create().SetPrincipal(c.Principal).SetServerName(in.Name).SetVersion(out.Version).
		SetVerdict(out.Verdict).SetAction(out.Action).SetObservedDigest(out.Receipt.ObservedDigest).
		SetObservedToolDefinitionHash(out.Receipt.ObservedToolDefinitionHash).SetTools(tools).
		SetRequestID(c.RequestID).SetCreatedAt(s.now())
	if len(init) > 0 {
		q = q.SetInitializeResult(init)
	}
	if dv != nil {
		q = q.SetVersionID(dv.id).SetPinRevision(dv.pinRevision)
	}
	hc, err := q.Save(ctx)
	if err != nil {
		return fmt.Errorf("record host check: %w", err)
	}
	out.Receipt.ObservationId = int64(hc.ID)
	if err := s.pruneHostChecks(ctx, c.Principal, in.Name, out.Version); err != nil {
		s.log.WarnContext(ctx, "prune host checks", "err", err)
	}
	return nil
}

// requestReportScan starts the registry's own scan of a version a host
// reported as drifted, if the host's principal has an on-demand scan left
// (Limits.ScanRate). Over the rate the host still gets its verdict; the
// message says that no scan was started and when to report again.
func (s *Scans) requestReportScan(ctx context.Context, c *Caller, name, ver string, out *mcpregv1.CheckConnectionResponse) {
	if err := s.gate.allow(c.Principal, time.Now()); err != nil {
		d, _ := RetryAfter(err)
		out.Message += fmt.Sprintf("; no registry scan started: %s (retry after %s)", strings.TrimPrefix(err.Error(), ErrRateLimited.Error()+": "), d)
		return
	}
	out.ScanRequested = true
	go s.scanForReport(context.WithoutCancel(ctx), c, name, ver, out.GetReceipt().GetObservedDigest(), reportSummary(out))
}

// reportSummary names what a host's report says changed, for a finding.
func reportSummary(out *mcpregv1.CheckConnectionResponse) string {
	var parts []string
	for _, t := range out.GetTools() {
		if t.GetVerdict() == VerdictDrifted {
			parts = append(parts, t.GetName()+" ("+strings.Join(t.GetClasses(), ", ")+")")
		}
	}
	if len(parts) == 0 {
		return "the tool list differs"
	}
	return strings.Join(parts, "; ")
}

// scanForReport scans a version a host reported as drifted. Reports for
// one version merge into one scan, and the cooldown answers repeats. When
// the registry's own scan matches the pins, the version stays approved
// and gets a host_report.unconfirmed_mismatch finding: a server may show
// the scanner one face and real clients another.
func (s *Scans) scanForReport(ctx context.Context, c *Caller, name, ver, observed, summary string) {
	v, err := s.store.Client.Version.Query().Where(versionNamed(name, ver)...).Only(ctx)
	if err != nil || v.State != version.StateApproved {
		return
	}
	res, err := s.ScanVersion(ctx, c, name, ver, states.TriggerHostReport, func(o *scanOptions) { o.paid = true })
	if err != nil {
		s.log.WarnContext(ctx, "scan after a host report", "version", subjectOf(name, ver), "host", c.Principal, "err", err)
		return
	}
	if states.ScanOutcome(res.GetScan().GetOutcome()) != states.OutcomeMatch {
		return
	}
	if err := s.recordUnconfirmed(ctx, v.ID, int(res.GetScan().GetId()), c.Principal, observed, summary); err != nil {
		s.log.WarnContext(ctx, "record an unconfirmed host report", "version", subjectOf(name, ver), "err", err)
	}
}

// KindUnconfirmedMismatch is the finding of a host report the registry's
// own scan did not confirm.
const KindUnconfirmedMismatch = "host_report.unconfirmed_mismatch"

// SourceHostReport is the source of findings raised by hosts' reports.
const SourceHostReport = "host_report"

// recordUnconfirmed adds the finding once per host and version: one host
// posting ever more tool lists (each answered by a scan, within its
// scan rate) cannot flood the review page; the first is the signal.
func (s *Scans) recordUnconfirmed(ctx context.Context, versionID, scanID int, host, observed, summary string) error {
	byHost := fmt.Sprintf("host %s observed tools/list ", host)
	evidence := byHost + observed
	return s.store.WithTx(ctx, func(tx *ent.Tx) error {
		n, err := tx.Finding.Query().Where(entfinding.VersionID(versionID), entfinding.Kind(KindUnconfirmedMismatch),
			entfinding.EvidenceHasPrefix(byHost)).Count(ctx)
		if err != nil || n > 0 {
			return err
		}
		msg := fmt.Sprintf("host %s reported tools that differ from the pins (%s), and the registry's own scan %d matched the pins: "+
			"the server may serve the scanner its approved tools and real clients others", host, summary, scanID)
		return saveFindings(ctx, tx, versionID, []recorded{{Finding: finding.Finding{Kind: KindUnconfirmedMismatch,
			Severity: finding.High, Message: msg, Evidence: evidence}, Source: SourceHostReport, ScanID: scanID}})
	})
}

// Statuses of an unknown connection check (CheckConnectionResponse.status).
const (
	CheckStatusQuarantined = "quarantined"
	CheckStatusRevoked     = "revoked"
	CheckStatusNotApproved = "not_approved"
)

// unknownStatus says why a server has no version this host may use: the
// state of the version asked for (or, for latest, the highest version)
// among those the host's environment labels could resolve were they
// approved. Versions restricted to other environments stay invisible, and
// no reason text is given.
func (s *Scans) unknownStatus(ctx context.Context, c *Caller, in CheckInput, out *mcpregv1.CheckConnectionResponse) error {
	vs, err := s.store.Client.Version.Query().Where(serverIn(server.Name(in.Name))).
		Select(version.FieldVersion, version.FieldState, version.FieldStateChangedAt, version.FieldQuarantineKind, version.FieldContract).All(ctx)
	if err != nil {
		return fmt.Errorf("versions of %s: %w", in.Name, err)
	}
	// For latest, a version that was approved (now quarantined or
	// revoked) explains more than a newer one never approved.
	wasApproved := func(v *ent.Version) bool {
		return v.State == version.StateQuarantined || v.State == version.StateRevoked
	}
	var best *ent.Version
	for _, v := range vs {
		if (in.Version != "" && in.Version != "latest" && v.Version != in.Version) || !environmentAllows(v.Contract, c) {
			continue
		}
		switch {
		case best == nil, wasApproved(v) && !wasApproved(best),
			wasApproved(v) == wasApproved(best) && higherVersion(v.Version, best.Version):
			best = v
		}
	}
	if best == nil {
		return nil
	}
	out.Version = best.Version
	switch best.State {
	case version.StateQuarantined:
		out.Status, out.StatusSince, out.QuarantineKind = CheckStatusQuarantined, ts(best.StateChangedAt), best.QuarantineKind
		out.Message += fmt.Sprintf(": %s is quarantined (%s) since %s", best.Version, best.QuarantineKind,
			best.StateChangedAt.UTC().Format(time.RFC3339))
	case version.StateRevoked:
		out.Status, out.StatusSince = CheckStatusRevoked, ts(best.StateChangedAt)
		out.Message += fmt.Sprintf(": %s is revoked", best.Version)
	case version.StatePendingReview, version.StateRejected:
		out.Status = CheckStatusNotApproved
		out.Message += fmt.Sprintf(": %s is not approved", best.Version)
	}
	return nil
}

// environmentAllows reports whether a version's contract lets c's
// environment labels resolve it (reviewers and admins: every version).
func environmentAllows(contractJSON []byte, c *Caller) bool {
	if c.Role != RoleHost || len(contractJSON) == 0 {
		return true
	}
	n, err := contract.DecodeNormalized(contractJSON)
	if err != nil {
		return false
	}
	return environmentVisible(n.HostEnvironments.Restricted, n.HostEnvironments.Allow, c.EnvLabels)
}
