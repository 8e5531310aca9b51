package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apiv0 "github.com/modelcontextprotocol/registry/pkg/api/v0"
	"github.com/modelcontextprotocol/registry/pkg/model"
	"golang.org/x/sync/singleflight"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/attestation"
	"github.com/mcpreg/mcpreg/internal/ent/auditevent"
	"github.com/mcpreg/mcpreg/internal/ent/audithead"
	"github.com/mcpreg/mcpreg/internal/ent/pinrevision"
	"github.com/mcpreg/mcpreg/internal/ent/reviewdecision"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/version"
)

// discoveryIndex is the in-memory answer to discovery reads: every
// approved version (quarantined and revoked ones are not approved), as of
// audit sequence seq. It is immutable once built.
type discoveryIndex struct {
	// gen is the invalidation count read before building it.
	gen int64
	seq int64
	// servers are sorted by name: a change replaces the servers it
	// touches in copies of their chunks, sharing the rest.
	servers serverList
	// counts say how many servers a host sees without reading them all.
	counts serverCounts
	// gone are the revoked and quarantined versions, sorted by name then
	// version text: /v0.1 lists them as deleted when asked to.
	gone []*goneVersion

	// shadow indexes the approved tools for the shadowing check, built on
	// first use and then carried from index to index, following the
	// servers each delta touches.
	shadowMu sync.Mutex
	shadow   *diffreview.Index
}

type discoveryServer struct {
	name, namespace, owner string
	versions               []*discoveryVersion // highest version first
	// byText are the versions in the official list's order: version
	// text ascending.
	byText []*discoveryVersion
}

// goneVersion is a revoked or quarantined version, as /v0.1 lists it
// with include_deleted.
type goneVersion struct {
	id            int
	name, version string
	serverJSON    json.RawMessage
	publishedAt   time.Time
	stateChanged  time.Time
	restricted    bool
	allow         []string
}

// visibleTo reports whether a caller with env labels may use the version:
// the contract does not restrict environments, or one of the labels is
// allowed. Callers without labels see only unrestricted versions.
func (v *discoveryVersion) visibleTo(labels []string) bool {
	return environmentVisible(v.restricted, v.allow, labels)
}

// environmentVisible is the host-environment rule of a contract: an
// unrestricted version is visible to every host, a restricted one to a
// host carrying one of its allowed labels.
func environmentVisible(restricted bool, allow, labels []string) bool {
	if !restricted {
		return true
	}
	for _, l := range labels {
		if slices.Contains(allow, l) {
			return true
		}
	}
	return false
}

// discoveryCache holds the current index. Every committed audited change
// counts as an invalidation (appendAudit registers a commit hook), and the
// next read rebuilds the index, so a quarantine is gone from the very next
// answer.
type discoveryCache struct {
	cur atomic.Pointer[discoveryIndex]
	// changes counts invalidations; an index built after reading n
	// includes every change counted up to n.
	changes atomic.Int64
	full    atomic.Bool // rebuild every version, not only changed ones
	group   singleflight.Group
	version atomic.Int64 // bumps on every rebuild, for caches built on the index
}

func newDiscoveryCache() *discoveryCache { return &discoveryCache{} }

// invalidate marks the index stale; full asks for every entry to be
// read again.
func (c *discoveryCache) invalidate(full bool) {
	if full {
		c.full.Store(true)
	}
	c.changes.Add(1)
}

// InvalidateDiscovery marks the discovery index stale, e.g. after a change
// made by another replica.
func (s *Discovery) InvalidateDiscovery() { s.disc.invalidate(true) }

// DiscoveryView names what a caller sees of the discovery index right
// now: the index generation and the caller's visibility. Answers computed
// for equal views are equal, so callers may cache them under it. It
// brings a stale index up to date first.
func (s *Discovery) DiscoveryView(ctx context.Context, c *Caller) (string, error) {
	if _, err := s.discoveryIndex(ctx); err != nil {
		return "", err
	}
	vis := "public"
	if c != nil {
		vis = fmt.Sprintf("%t|%s", c.Role != RoleHost, strings.Join(c.EnvLabels, ","))
	}
	return fmt.Sprintf("%d|%s", s.disc.version.Load(), vis), nil
}

// discoveryIndex returns an index that includes every change committed
// before the call, building one if needed. Concurrent callers share one
// build; a caller whose change came after a running build started waits
// for the next one, so no answer misses a change made before it was asked.
func (s *Discovery) discoveryIndex(ctx context.Context) (*discoveryIndex, error) {
	for {
		want := s.disc.changes.Load()
		if idx := s.disc.cur.Load(); idx != nil && idx.gen >= want {
			return idx, nil
		}
		v, err, _ := s.disc.group.Do("build", func() (any, error) {
			gen := s.disc.changes.Load()
			idx, err := s.buildDiscovery(context.WithoutCancel(ctx), s.disc.cur.Load(), s.disc.full.Swap(false))
			if err != nil {
				s.disc.full.Store(true)
				return nil, err
			}
			idx.gen = gen
			s.disc.cur.Store(idx)
			s.disc.version.Add(1)
			return idx, nil
		})
		if err != nil {
			return nil, fmt.Errorf("discovery index: %w", err)
		}
		if idx := v.(*discoveryIndex); idx.gen >= want {
			return idx, nil
		}
	}
}

// buildDiscovery reads every approved version with its current pins,
// verified attestations and approval. Versions unchanged since prev (same
// approval time and pin revision) are reused, so a change costs one
// narrow query of the approved set plus the changed versions, not a
// rebuild of the fleet; full forces a complete rebuild (attestations
// changed).
func (s *Discovery) buildDiscovery(ctx context.Context, prev *discoveryIndex, full bool) (*discoveryIndex, error) {
	c := s.store.Client
	head, err := c.AuditHead.Query().Where(audithead.ID(auditHeadID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	if prev != nil && !full {
		if idx, err := s.buildDelta(ctx, prev, int64(head.Seq)); err != nil || idx != nil {
			return idx, err
		}
	}
	rows, err := c.Version.Query().Where(version.StateEQ(version.StateApproved)).
		Select(version.FieldID, version.FieldServerID, version.FieldStateChangedAt, version.FieldPinRevision, version.FieldStatusChangedAt).All(ctx)
	if err != nil {
		return nil, err
	}
	old := map[int]*discoveryVersion{}
	if prev != nil && !full {
		for ds := range prev.servers.all() {
			for _, dv := range ds.versions {
				old[dv.id] = dv
			}
		}
	}
	var keep []*discoveryVersion
	var load []int
	for _, r := range rows {
		if dv := old[r.ID]; dv != nil && dv.stateChanged.Equal(r.StateChangedAt) && dv.pinRevision == r.PinRevision &&
			dv.statusChanged.Equal(derefTime(r.StatusChangedAt)) {
			keep = append(keep, dv)
		} else {
			load = append(load, r.ID)
		}
	}
	loaded, err := s.loadDiscoveryVersions(ctx, load)
	if err != nil {
		return nil, err
	}
	byServer := map[string]*discoveryServer{}
	for _, dv := range append(keep, loaded...) {
		ds := byServer[dv.name]
		if ds == nil {
			ds = &discoveryServer{name: dv.name}
			ds.namespace, ds.owner = dv.serverFields()
			byServer[dv.name] = ds
		}
		ds.versions = append(ds.versions, dv)
	}
	idx := &discoveryIndex{seq: int64(head.Seq)}
	if idx.gone, err = s.buildGone(ctx, prev, full); err != nil {
		return nil, err
	}
	servers := make([]*discoveryServer, 0, len(byServer))
	for _, ds := range byServer {
		sortDiscoveryServer(ds)
		servers = append(servers, ds)
	}
	slices.SortFunc(servers, func(a, b *discoveryServer) int { return strings.Compare(a.name, b.name) })
	idx.servers = newServerList(servers, serverChunk)
	idx.counts = countServers(idx.servers.all())
	return idx, nil
}

// loadDiscoveryVersions reads the given approved versions in full.
func (s *Discovery) loadDiscoveryVersions(ctx context.Context, ids []int) ([]*discoveryVersion, error) {
	c := s.store.Client
	var out []*discoveryVersion
	for chunk := range slices.Chunk(ids, 500) {
		vs, err := c.Version.Query().Where(version.IDIn(chunk...)).WithServer().All(ctx)
		if err != nil {
			return nil, err
		}
		pins := map[int][]*ent.PinRevision{}
		atts := map[int][]*ent.Attestation{}
		approvals := map[int]*ent.ReviewDecision{}
		prs, err := c.PinRevision.Query().Where(pinrevision.VersionIDIn(chunk...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range prs {
			pins[p.VersionID] = append(pins[p.VersionID], p)
		}
		as, err := c.Attestation.Query().Where(attestation.VersionIDIn(chunk...), attestation.Verified(true), attestation.Pending(false)).
			Order(ent.Asc(attestation.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			atts[a.VersionID] = append(atts[a.VersionID], a)
		}
		ds, err := c.ReviewDecision.Query().Where(reviewdecision.VersionIDIn(chunk...), reviewdecision.Action(string(ActionApprove))).
			Order(ent.Asc(reviewdecision.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			approvals[d.VersionID] = d
		}
		for _, v := range vs {
			if v.State != version.StateApproved {
				continue // changed since the narrow query; the next build sees it
			}
			dv, err := discoveryVersionOf(v, pinsAt(pins[v.ID], v.PinRevision), atts[v.ID], approvals[v.ID])
			if err != nil {
				s.log.WarnContext(ctx, "discovery: version left out", "version", subjectOf(v.Edges.Server.Name, v.Version), "err", err)
				continue
			}
			out = append(out, dv)
		}
	}
	return out, nil
}

func pinsAt(prs []*ent.PinRevision, rev int) *ent.PinRevision {
	for _, p := range prs {
		if p.Revision == rev {
			return p
		}
	}
	return nil
}

// discoveryVersionOf builds the entry hosts get for one approved version.
func discoveryVersionOf(v *ent.Version, pr *ent.PinRevision, atts []*ent.Attestation, approval *ent.ReviewDecision) (*discoveryVersion, error) {
	if pr == nil {
		return nil, fmt.Errorf("no pin revision %d", v.PinRevision)
	}
	// Stored documents were validated at submission: decode only.
	var doc struct{ Server apiv0.ServerJSON }
	if err := json.Unmarshal(v.ServerJSON, &doc.Server); err != nil {
		return nil, fmt.Errorf("stored server.json: %w", err)
	}
	meta, err := registryMeta(v.ServerJSON)
	if err != nil {
		return nil, err
	}
	srv := v.Edges.Server
	e := discovery.Entry{Name: srv.Name, Version: v.Version, Title: doc.Server.Title, Description: doc.Server.Description,
		Namespace: srv.Namespace, Owner: srv.Owner, Contract: json.RawMessage(v.Contract), Attestations: []discovery.Attestation{},
		Pins: discovery.Pins{SpecVersion: pr.SpecVersion, Revision: pr.Revision, ToolDefinitionHash: pr.ToolDefinitionHash,
			SchemaHash: pr.SchemaHash, InstructionsHash: pr.InstructionsHash, ContractHash: pr.ContractHash,
			PromptsHash: pr.PromptsHash, ResourcesHash: pr.ResourcesHash, Tools: make([]discovery.ToolPin, len(pr.Tools))}}
	if len(e.Contract) == 0 {
		e.Contract = json.RawMessage("null")
	}
	for i, t := range pr.Tools {
		e.Pins.Tools[i] = discovery.ToolPin{Name: t.Name, Hash: t.Hash, Scopes: t.Scopes}
	}
	for _, p := range pr.Prompts {
		e.Pins.Prompts = append(e.Pins.Prompts, discovery.ToolPin{Name: p.Name, Hash: p.Hash})
	}
	attested := map[int]*ent.Attestation{}
	for _, a := range atts {
		if attested[a.PackageIndex] == nil {
			attested[a.PackageIndex] = a
		}
		e.Attestations = append(e.Attestations, discoveryAttestation(a))
	}
	for i, p := range doc.Server.Packages {
		e.Packages = append(e.Packages, discoveryPackage(p, meta, attested[i]))
	}
	for _, r := range doc.Server.Remotes {
		e.Remotes = append(e.Remotes, discovery.Remote{Type: r.Type, URL: r.URL})
	}
	e.Approval = discovery.Approval{ApprovedAt: v.StateChangedAt, SubmittedBy: v.SubmittedBy}
	if approval != nil {
		e.Approval.ApprovedAt, e.Approval.ApprovedBy, e.Approval.Reason = approval.CreatedAt, approval.Actor, approval.Reason
	}
	if v.Status == version.StatusDeprecated {
		e.Status, e.StatusMessage = StatusDeprecated, v.StatusMessage
	}
	dv := newDiscoveryVersion(v.ID, &e, v.ServerJSON)
	dv.publishedAt, dv.stateChanged, dv.statusChanged = v.SubmittedAt, v.StateChangedAt, derefTime(v.StatusChangedAt)
	if len(v.Contract) > 0 {
		n, err := contract.DecodeNormalized(v.Contract)
		if err != nil {
			return nil, fmt.Errorf("stored contract: %w", err)
		}
		dv.restricted, dv.allow = n.HostEnvironments.Restricted, n.HostEnvironments.Allow
	}
	return dv, nil
}

// discoveryPackage gives a package's connection details and the digest its
// artifact must have: server.json's own, else a verified attestation's.
func discoveryPackage(p model.Package, meta []metaPackage, att *ent.Attestation) discovery.Package {
	out := discovery.Package{RegistryType: p.RegistryType, Identifier: p.Identifier, Version: p.Version, Transport: p.Transport.Type}
	if text, source := documentDigest(p, meta); text != "" {
		if d, err := attest.ParseDigest(text); err == nil {
			out.Digest, out.DigestSource = d.String(), source
		}
	}
	if out.Digest == "" && att != nil {
		out.Digest, out.DigestSource = att.ArtifactDigest, att.DigestSource
	}
	return out
}

func discoveryAttestation(a *ent.Attestation) discovery.Attestation {
	out := discovery.Attestation{PackageIndex: a.PackageIndex, ArtifactDigest: a.ArtifactDigest, CheckedAt: a.CheckedAt}
	var r attest.Receipt
	if len(a.Receipt) == 0 || json.Unmarshal(a.Receipt, &r) != nil {
		return out
	}
	if r.Identity != nil {
		out.Issuer, out.SAN, out.SourceRepository = r.Identity.Issuer, r.Identity.SAN, r.Identity.SourceRepositoryURI
	}
	out.KeyFingerprint = r.KeyFingerprint
	if len(r.TlogEntries) > 0 {
		out.IntegratedTime = r.TlogEntries[0].IntegratedTime
	}
	return out
}

// changed invalidates the index after an audited action. Attestation
// changes leave version rows as they were: the index cannot tell which
// entries changed, so it rebuilds them all.
func (s *Discovery) changed(action string) {
	s.disc.invalidate(strings.HasPrefix(action, "attestation."))
}

func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// buildGone reads the revoked and quarantined versions, reusing those of
// prev whose state has not changed since.
func (s *Discovery) buildGone(ctx context.Context, prev *discoveryIndex, full bool) ([]*goneVersion, error) {
	c := s.store.Client
	rows, err := c.Version.Query().Where(version.StateIn(version.StateRevoked, version.StateQuarantined)).
		Select(version.FieldID, version.FieldStateChangedAt).All(ctx)
	if err != nil {
		return nil, err
	}
	old := map[int]*goneVersion{}
	if prev != nil && !full {
		for _, g := range prev.gone {
			old[g.id] = g
		}
	}
	var out []*goneVersion
	var load []int
	for _, r := range rows {
		if g := old[r.ID]; g != nil && g.stateChanged.Equal(r.StateChangedAt) {
			out = append(out, g)
		} else {
			load = append(load, r.ID)
		}
	}
	loaded, err := s.loadGone(ctx, load)
	if err != nil {
		return nil, err
	}
	out = append(out, loaded...)
	sortGone(out)
	return out, nil
}

// loadGone reads the given versions that are revoked or quarantined.
func (s *Discovery) loadGone(ctx context.Context, ids []int) ([]*goneVersion, error) {
	var out []*goneVersion
	for chunk := range slices.Chunk(ids, 500) {
		vs, err := s.store.Client.Version.Query().Where(version.IDIn(chunk...), version.StateIn(version.StateRevoked, version.StateQuarantined)).
			WithServer().All(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			g := &goneVersion{id: v.ID, name: v.Edges.Server.Name, version: v.Version, serverJSON: json.RawMessage(v.ServerJSON),
				publishedAt: v.SubmittedAt, stateChanged: v.StateChangedAt}
			if len(v.Contract) > 0 {
				n, err := contract.DecodeNormalized(v.Contract)
				if err != nil {
					s.log.WarnContext(ctx, "discovery: deleted version left out", "version", subjectOf(g.name, g.version), "err", err)
					continue
				}
				g.restricted, g.allow = n.HostEnvironments.Restricted, n.HostEnvironments.Allow
			}
			out = append(out, g)
		}
	}
	return out, nil
}

// deltaActions are the audited actions whose subject (NAME@VERSION) names
// the one version whose place in discovery they may change; the index
// follows them without reading the whole approved set.
var deltaActions = map[string]bool{"version.approve": true, "version.quarantine": true, "version.release": true,
	"version.revoke": true, "version.repin": true, "version.deprecate": true, "version.undeprecate": true, "upstream.status": true}

// maxDelta is the most audit events an index follows one by one; past it
// (or on any other action) it reads the approved set again.
const maxDelta = 256

// buildDelta makes the next index from prev and the audit events since
// it: only the versions those events name are read again, so an approval
// costs its own version, not the fleet. It returns nil (and no error)
// when the events are not all version changes it can follow.
func (s *Discovery) buildDelta(ctx context.Context, prev *discoveryIndex, seq int64) (*discoveryIndex, error) {
	c := s.store.Client
	if seq == prev.seq {
		return prev.next(), nil
	}
	evs, err := c.AuditEvent.Query().Where(auditevent.SeqGT(prev.seq), auditevent.SeqLTE(seq)).Limit(maxDelta+1).
		Select(auditevent.FieldAction, auditevent.FieldSubject).All(ctx)
	if err != nil || len(evs) > maxDelta || int64(len(evs)) != seq-prev.seq {
		return nil, err
	}
	touched := map[[2]string]bool{}
	for _, ev := range evs {
		if discoveryNeutral[ev.Action] {
			continue
		}
		name, ver, ok := strings.Cut(ev.Subject, "@")
		if !deltaActions[ev.Action] || !ok || !serverNameRE.MatchString(name) {
			return nil, nil
		}
		touched[[2]string{name, ver}] = true
	}
	servers := map[string]bool{}
	var approvedIDs, goneIDs []int
	for k := range touched {
		servers[k[0]] = true
		// By the server's id, then (server_id, version): the unique
		// index answers it, whatever the fleet's size.
		sid, err := c.Server.Query().Where(server.Name(k[0])).OnlyID(ctx)
		if ent.IsNotFound(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		v, err := c.Version.Query().Where(version.ServerID(sid), version.Version(k[1])).
			Select(version.FieldID, version.FieldState).Only(ctx)
		if ent.IsNotFound(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		switch v.State {
		case version.StateApproved:
			approvedIDs = append(approvedIDs, v.ID)
		case version.StateRevoked, version.StateQuarantined:
			goneIDs = append(goneIDs, v.ID)
		}
	}
	loaded, err := s.loadDiscoveryVersions(ctx, approvedIDs)
	if err != nil {
		return nil, err
	}
	gone, err := s.loadGone(ctx, goneIDs)
	if err != nil {
		return nil, err
	}
	idx := &discoveryIndex{seq: seq}
	// The touched servers' versions: prev's minus the touched ones, plus
	// those approved now.
	changed := map[string]*discoveryServer{}
	for name := range servers {
		ds := &discoveryServer{name: name}
		if p := prev.server(name); p != nil {
			ds.namespace, ds.owner = p.namespace, p.owner
			for _, v := range p.versions {
				if !touched[[2]string{name, v.version}] {
					ds.versions = append(ds.versions, v)
				}
			}
		}
		changed[name] = ds
	}
	for _, dv := range loaded {
		ds := changed[dv.name]
		ds.namespace, ds.owner = dv.serverFields()
		ds.versions = append(ds.versions, dv)
	}
	idx.servers = prev.servers.merge(changed)
	idx.counts = prev.counts.apply(prev, changed)
	idx.gone = make([]*goneVersion, 0, len(prev.gone)+len(gone))
	for _, g := range prev.gone {
		if !touched[[2]string{g.name, g.version}] {
			idx.gone = append(idx.gone, g)
		}
	}
	idx.gone = append(idx.gone, gone...)
	sortGone(idx.gone)
	// The shadowing index follows the touched servers' highest versions.
	if sh := prev.shadowIfBuilt(); sh != nil {
		for name := range servers {
			var tools []string
			if ds := idx.server(name); ds != nil {
				tools = ds.versions[0].toolNames()
			}
			sh.Replace(name, tools)
		}
		idx.setShadow(sh)
	}
	return idx, nil
}

// next is a copy of idx at the same sequence, sharing its shadowing index.
func (idx *discoveryIndex) next() *discoveryIndex {
	out := &discoveryIndex{seq: idx.seq, servers: idx.servers, counts: idx.counts, gone: idx.gone}
	if sh := idx.shadowIfBuilt(); sh != nil {
		out.setShadow(sh)
	}
	return out
}

// server is the server named name, or nil.
func (idx *discoveryIndex) server(name string) *discoveryServer {
	if i, ok := idx.servers.search(name); ok {
		return idx.servers.at(i)
	}
	return nil
}

// serverCounts count the servers of an index by who may see them: open
// is how many have a version every host may use (no environment
// restriction); closed are the others, which a host sees only through
// its labels. Usually almost every server is open, so counting what a
// host sees costs the closed ones, not the fleet.
type serverCounts struct {
	open   int
	closed []*discoveryServer
}

// openServer reports whether a version of ds is unrestricted.
func openServer(ds *discoveryServer) bool {
	return slices.ContainsFunc(ds.versions, func(v *discoveryVersion) bool { return !v.restricted })
}

func countServers(servers iter.Seq[*discoveryServer]) serverCounts {
	var c serverCounts
	for ds := range servers {
		if openServer(ds) {
			c.open++
		} else {
			c.closed = append(c.closed, ds)
		}
	}
	return c
}

// apply is c after the changed servers replaced prev's (mergeServers).
func (c serverCounts) apply(prev *discoveryIndex, changed map[string]*discoveryServer) serverCounts {
	out := serverCounts{open: c.open, closed: slices.DeleteFunc(slices.Clone(c.closed), func(ds *discoveryServer) bool {
		_, ok := changed[ds.name]
		return ok
	})}
	for name, ds := range changed {
		if p := prev.server(name); p != nil && openServer(p) {
			out.open--
		}
		switch {
		case len(ds.versions) == 0:
		case openServer(ds):
			out.open++
		default:
			out.closed = append(out.closed, ds)
		}
	}
	return out
}

// visible is how many of the index's servers a caller with labels (all:
// every environment) may use a version of.
func (idx *discoveryIndex) visible(labels []string, all bool) int {
	if all {
		return idx.servers.len()
	}
	n := idx.counts.open
	for _, ds := range idx.counts.closed {
		if ds.pick("", labels, false) != nil {
			n++
		}
	}
	return n
}

// sortDiscoveryServer orders a server's versions highest first and by text.
func sortDiscoveryServer(ds *discoveryServer) {
	slices.SortFunc(ds.versions, func(a, b *discoveryVersion) int {
		switch {
		case higherVersion(a.version, b.version):
			return -1
		case higherVersion(b.version, a.version):
			return 1
		}
		return 0
	})
	ds.byText = slices.SortedFunc(slices.Values(ds.versions), func(a, b *discoveryVersion) int {
		return strings.Compare(a.version, b.version)
	})
}

func sortGone(gs []*goneVersion) {
	slices.SortFunc(gs, func(a, b *goneVersion) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.version, b.version)
	})
}
