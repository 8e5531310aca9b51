package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/idempotencykey"
	"github.com/mcpreg/mcpreg/internal/ent/schema"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/pkgref"
	"github.com/mcpreg/mcpreg/internal/serverjson"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/upstream"
	"github.com/mcpreg/mcpreg/pin"
	livescan "github.com/mcpreg/mcpreg/scan"
)

// Submission is a version as an integration owner sends it: JSON texts, read
// strictly.
type Submission struct {
	ServerJSON       []byte
	Tools            []byte
	InitializeResult []byte
	// Contract is the capability contract, YAML or JSON; empty means the
	// one in server.json _meta, else the default contract.
	Contract       []byte
	IdempotencyKey string
	// Live asks the registry to read the tools from the server itself.
	Live bool
	// Attestations are sigstore bundles about the package artifacts.
	Attestations []AttestationInput

	// live are the findings of the live read (Live): listings that
	// differed, protocol variance; scopes each tool's scopes when it was
	// read with scan credentials.
	live   []finding.Finding
	scopes map[string][]string
	auth   []byte
	oauth  *livescan.AuthMetadata
	// upstream is the provenance of a version a sync imports.
	upstream *upstreamImport
}

// parsedSubmission is a Submission that passed every check.
type parsedSubmission struct {
	doc      *serverjson.Document
	tools    *pin.ToolsList
	init     *InitializeFacts
	pins     pinSet
	contract *parsedContract
	reqHash  string
	subject  string
	versionS string
	// text are the poisoning and shadowing findings, found before the
	// transaction (shadowing reads the discovery index).
	text []recorded
	// attestations and their verifications under the server's policy.
	attestations  []attestationItem
	verifications []verification
	// upstream is the provenance of an imported version.
	upstream *upstreamImport
}

const maxIdempotencyKey = 200

// Submit stores a new version in pending_review with its snapshot and pins.
func (s *Review) Submit(ctx context.Context, c *Caller, sub Submission) (*VersionView, error) {
	if len(sub.IdempotencyKey) > maxIdempotencyKey {
		return nil, invalidf("idempotency key longer than %d characters", maxIdempotencyKey)
	}
	reqHash := requestHash(sub)
	if sub.Live {
		if err := s.readLive(ctx, c, &sub); err != nil {
			return nil, err
		}
	}
	p, err := s.parseSubmission(sub)
	if err != nil {
		return nil, err
	}
	p.reqHash, p.upstream = reqHash, sub.upstream
	if !c.OwnsNamespace(p.doc.Namespace) {
		return nil, deniedf("%s may not submit in namespace %q", c.Principal, p.doc.Namespace)
	}
	if sub.IdempotencyKey != "" {
		if v, err := s.replay(ctx, c, sub.IdempotencyKey, p.reqHash); v != nil || err != nil {
			return v, err
		}
	}
	if err := s.checkSubmittedAttestations(ctx, p, sub.Attestations); err != nil {
		return nil, err
	}
	if p.text, err = s.discovery.textFindings(ctx, p.doc.Server.Name, p.tools); err != nil {
		return nil, err
	}
	p.pins.scopes, p.pins.auth = sub.scopes, sub.auth
	for _, f := range authFindings(p.contract.normalized, sub.oauth) {
		p.text = append(p.text, recorded{Finding: f, Source: SourceScan})
	}
	for _, f := range sub.live {
		p.text = append(p.text, recorded{Finding: f, Source: SourceScan})
	}
	p.text = append(p.text, p.upstream.findings()...)
	id, err := s.storeSubmission(ctx, c, sub.IdempotencyKey, p)
	if err != nil {
		if sub.IdempotencyKey != "" && store.IsUniqueViolation(err) {
			// A concurrent retry with the same key won the race.
			if v, rerr := s.replay(ctx, c, sub.IdempotencyKey, p.reqHash); v != nil || rerr != nil {
				return v, rerr
			}
		}
		return nil, s.submitError(err, p)
	}
	return s.versionByID(ctx, id)
}

func (s *Review) submitError(err error, p *parsedSubmission) error {
	if store.IsUniqueViolation(err) {
		return fmt.Errorf("%w: version %s already exists (versions are immutable)", ErrAlreadyExists, p.subject)
	}
	return err
}

func (s *Review) parseSubmission(sub Submission) (*parsedSubmission, error) {
	if len(sub.ServerJSON) == 0 {
		return nil, invalidf("serverJson is required")
	}
	for _, f := range []struct {
		name string
		raw  []byte
	}{{"serverJson", sub.ServerJSON}, {"tools", sub.Tools}, {"initializeResult", sub.InitializeResult}, {"contract", sub.Contract}} {
		if err := refuseNUL(f.name, f.raw); err != nil {
			return nil, err
		}
	}
	doc, err := s.parseServerJSON(sub.ServerJSON)
	if err != nil {
		return nil, err
	}
	if !versionRE.MatchString(doc.Server.Version) {
		return nil, invalidf("serverJson /version %q: want 1-255 characters of letters, digits and . + _ ~ - starting with a letter or digit (semantic versions recommended)", doc.Server.Version)
	}
	for i, pk := range doc.Server.Packages {
		if err := pkgref.Validate(pk.RegistryType, pk.Identifier, pk.Version); err != nil {
			return nil, fmt.Errorf("%w: serverJson /packages/%d: %w", ErrInvalid, i, err)
		}
	}
	tools, init, err := s.parseSnapshot(sub.Tools, sub.InitializeResult)
	if err != nil {
		return nil, err
	}
	// New submissions are pinned under mcpreg-pin-v2: prompts and
	// resources too.
	pins, err := computePins(pin.SpecVersionV2, tools)
	if err != nil {
		return nil, fmt.Errorf("%w: tools: %w", ErrInvalid, err)
	}
	pc, err := s.parseContract(sub.Contract, sub.ServerJSON, tools)
	if err != nil {
		return nil, err
	}
	return &parsedSubmission{doc: doc, tools: tools, init: init, pins: pins, contract: pc,
		reqHash: requestHash(sub), subject: doc.Server.Name + "@" + doc.Server.Version, versionS: doc.Server.Version}, nil
}

// parseServerJSON reads a submitted server.json within its size limit. A
// submission must also pass the official registry's rules beyond its
// schema (serverjson.CheckSubmission); stored versions are read with
// serverjson.Parse alone, so they stay readable.
func (s *Review) parseServerJSON(raw []byte) (*serverjson.Document, error) {
	if len(raw) > s.limits.MaxServerJSONBytes {
		return nil, fmt.Errorf("%w: serverJson is %d bytes, the limit is %d", ErrTooLarge, len(raw), s.limits.MaxServerJSONBytes)
	}
	doc, err := serverjson.Parse(raw)
	if err == nil {
		err = serverjson.CheckSubmission(doc)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: serverJson: %w", ErrInvalid, err)
	}
	return doc, nil
}

func (s *core) parseSnapshot(toolsJSON, initJSON []byte) (*pin.ToolsList, *InitializeFacts, error) {
	if len(toolsJSON) == 0 {
		return nil, nil, invalidf("tools is required (a tools/list result or an array of tools)")
	}
	tools, err := pin.ParseToolsList(toolsJSON, s.limits.Pin)
	if err != nil {
		return nil, nil, pinError("tools", err)
	}
	init, err := ParseInitializeResult(initJSON, s.limits.Pin)
	if err != nil {
		return nil, nil, err
	}
	if init.InstructionsSet {
		if tools.Instructions != nil && !sameInstructions(tools.Instructions, init.Instructions) {
			return nil, nil, invalidf("instructions differ between the tools file and initializeResult")
		}
		tools.Instructions = init.Instructions
	}
	return tools, init, nil
}

func sameInstructions(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

func pinError(field string, err error) error {
	if errors.Is(err, pin.ErrTooLarge) {
		return fmt.Errorf("%w: %s: %w", ErrTooLarge, field, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrInvalid, field, err)
}

// requestHash identifies a submission's content for idempotent retries.
func requestHash(sub Submission) string {
	h := sha256.New()
	fmt.Fprintf(h, "live=%t;", sub.Live)
	for _, part := range [][]byte{sub.ServerJSON, sub.Tools, sub.InitializeResult, sub.Contract} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	for _, a := range sub.Attestations {
		fmt.Fprintf(h, "attestation=%d;%q;%q;%d:", a.PackageIndex, a.PackageIdentifier, a.ArtifactDigest, len(a.Bundle))
		h.Write(a.Bundle)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// replay returns the first result of a keyed submission, or a conflict when
// the key was used with another body. (nil, nil) means the key is unused.
func (s *Review) replay(ctx context.Context, c *Caller, key, reqHash string) (*VersionView, error) {
	k, err := s.store.Client.IdempotencyKey.Query().
		Where(idempotencykey.Principal(c.Principal), idempotencykey.Key(key)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("idempotency lookup: %w", err)
	}
	if k.RequestHash != reqHash {
		return nil, fmt.Errorf("%w: idempotency key %q was used for a different request", ErrConflict, key)
	}
	return s.versionByID(ctx, k.VersionID)
}

func (s *Review) storeSubmission(ctx context.Context, c *Caller, key string, p *parsedSubmission) (int, error) {
	var id int
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		srv, err := s.serverFor(ctx, tx, c, p)
		if err != nil {
			return err
		}
		if err := checkSubmissionPolicy(ctx, tx, srv, p); err != nil {
			return err
		}
		v, err := s.createVersion(ctx, tx, c, srv, p)
		if err != nil {
			return err
		}
		id = v.ID
		if key != "" {
			err = tx.IdempotencyKey.Create().SetPrincipal(c.Principal).SetKey(key).
				SetRequestHash(p.reqHash).SetVersionID(v.ID).SetCreatedAt(s.now()).Exec(ctx)
			if err != nil {
				return err
			}
		}
		err = s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "version.submit",
			Subject: p.subject, After: "pending_review", RequestID: c.RequestID,
			Details: fmt.Sprintf("toolDefinitionHash=%s tools=%d", p.pins.ToolDefinitionHash, len(p.tools.Tools)) + attestationSummary(p.verifications) + upstreamSummary(p.upstream)})
		return err
	})
	return id, err
}

// serverFor returns the version's server, creating it on its first version.
// First versions of a new server may be submitted at once through replicas
// (PostgreSQL): the insert then waits for the other transaction and skips
// the name it committed, and the server is read again.
func (s *Review) serverFor(ctx context.Context, tx *ent.Tx, c *Caller, p *parsedSubmission) (*ent.Server, error) {
	sj := p.doc.Server
	srv, err := tx.Server.Query().Where(server.Name(sj.Name)).Only(ctx)
	if ent.IsNotFound(err) {
		if err := s.refuseCaseVariant(ctx, tx, sj.Name); err != nil {
			return nil, err
		}
		id, cerr := tx.Server.Create().SetName(sj.Name).SetNameFolded(strings.ToLower(sj.Name)).SetNamespace(p.doc.Namespace).SetOwner(c.Principal).
			SetDescription(sj.Description).SetTitle(sj.Title).SetLatestVersion(sj.Version).
			SetCreatedAt(s.now()).SetUpdatedAt(s.now()).OnConflictColumns(server.FieldName).DoNothing().ID(ctx)
		if cerr == nil {
			return tx.Server.Get(ctx, id)
		} else if !errors.Is(cerr, sql.ErrNoRows) {
			return nil, cerr
		}
		srv, err = tx.Server.Query().Where(server.Name(sj.Name)).Only(ctx)
	}
	if err != nil {
		return nil, err
	}
	return srv.Update().SetDescription(sj.Description).SetTitle(sj.Title).
		SetLatestVersion(sj.Version).SetUpdatedAt(s.now()).Save(ctx)
}

// refuseCaseVariant refuses a new server whose name equals an existing
// one but for case: io.github.acme/Weather beside io.github.acme/weather
// would read as the same server to people and to case-insensitive tools.
// On PostgreSQL a transaction lock on the folded name makes two replicas
// creating case variants at once take turns (SQLite writers already do).
func (s *Review) refuseCaseVariant(ctx context.Context, tx *ent.Tx, name string) error {
	if s.store.RowLocks() {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext(lower($1)))", name); err != nil {
			return fmt.Errorf("lock server name: %w", err)
		}
	}
	other, err := tx.Server.Query().Where(server.NameFolded(strings.ToLower(name))).Select(server.FieldName).Strings(ctx)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(other, func(o string) bool { return o != name }); i >= 0 {
		return fmt.Errorf("%w: server name %s differs from the existing server %s only in case; submit to %s or choose a distinct name",
			ErrAlreadyExists, name, other[i], other[i])
	}
	return nil
}

func (s *Review) createVersion(ctx context.Context, tx *ent.Tx, c *Caller, srv *ent.Server, p *parsedSubmission) (*ent.Version, error) {
	v, err := tx.Version.Create().SetServerID(srv.ID).SetVersion(p.versionS).SetServerJSON(p.doc.Raw).
		SetDescription(p.doc.Server.Description).SetSubmittedBy(c.Principal).SetSubmittedAt(s.now()).
		SetStateChangedAt(s.now()).SetRequestHash(p.reqHash).SetPinRevision(1).
		SetContract(p.contract.json).SetContractSource(p.contract.source).SetContractRaw(p.contract.raw).Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.saveSubmissionFindings(ctx, tx, srv.ID, v.ID, p); err != nil {
		return nil, err
	}
	if err := saveAttestations(ctx, tx, v.ID, c.Principal, p.attestations, p.verifications); err != nil {
		return nil, err
	}
	source := "submission"
	if p.upstream != nil {
		source = "upstream"
		if p.upstream.noSnapshot != "" {
			source = SnapshotSourceNone
		}
		if err := s.writeRecord(ctx, tx, p.upstream, nil, &v.ID, outcomeImported, ""); err != nil {
			return nil, err
		}
	}
	snap, err := s.createSnapshot(ctx, tx, v.ID, source, p.tools, p.init, p.pins)
	if err != nil {
		return nil, err
	}
	return v, s.createPinRevision(ctx, tx, v.ID, 1, snap.ID, p.pins, p.contract.hash, c.Principal, source)
}

// createSnapshot stores a snapshot, its tools, each with its hash from the
// already computed pins, and its prompts, resources and resource templates
// as received.
func (s *core) createSnapshot(ctx context.Context, tx *ent.Tx, versionID int, source string, tl *pin.ToolsList, init *InitializeFacts, pins pinSet) (*ent.ToolSnapshot, error) {
	sc := tx.ToolSnapshot.Create().SetVersionID(versionID).SetSource(source).
		SetProtocolVersion(init.ProtocolVersion).SetServerInfo(init.ServerInfo).
		SetNillableInstructions(tl.Instructions).SetCreatedAt(s.now())
	snap, err := setModelArrays(sc, tl).SetAuth(pins.auth).Save(ctx)
	if err != nil {
		return nil, err
	}
	hashes := make(map[string]string, len(pins.Tools))
	for _, tp := range pins.Tools {
		hashes[tp.Name] = tp.Hash
	}
	builders := make([]*ent.ToolCreate, len(tl.Tools))
	for i, t := range tl.Tools {
		builders[i] = tx.Tool.Create().SetSnapshotID(snap.ID).SetPosition(i).SetName(t.Name).SetRaw(t.Raw).SetToolHash(hashes[t.Name])
		if sc, ok := pins.scopes[t.Name]; ok {
			builders[i].SetScopes(sc)
		}
	}
	for chunk := range slices.Chunk(builders, 100) {
		if err := tx.Tool.CreateBulk(chunk...).Exec(ctx); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

func (s *core) createPinRevision(ctx context.Context, tx *ent.Tx, versionID, rev, snapID int, p pinSet, contractHash, by, reason string) error {
	tools := make([]schema.ToolPinRecord, len(p.Tools))
	for i, t := range p.Tools {
		tools[i] = schema.ToolPinRecord{Name: t.Name, Hash: t.Hash, Scopes: p.scopes[t.Name]}
	}
	var prompts []schema.ToolPinRecord
	if p.spec == pin.SpecVersionV2 {
		prompts = make([]schema.ToolPinRecord, len(p.Prompts))
		for i, pp := range p.Prompts {
			prompts[i] = schema.ToolPinRecord{Name: pp.Name, Hash: pp.Hash}
		}
	}
	return tx.PinRevision.Create().SetVersionID(versionID).SetRevision(rev).SetSnapshotID(snapID).
		SetSpecVersion(p.spec).SetToolDefinitionHash(p.ToolDefinitionHash).SetSchemaHash(p.SchemaHash).
		SetInstructionsHash(p.InstructionsHash).SetPromptsHash(p.PromptsHash).SetResourcesHash(p.ResourcesHash).
		SetContractHash(contractHash).SetTools(tools).SetPrompts(prompts).SetCreatedBy(by).SetReason(reason).
		SetCreatedAt(s.now()).Exec(ctx)
}

// subjectOf names a version in audit events and errors.
func subjectOf(name, version string) string { return name + "@" + strings.TrimSpace(version) }

// checkSubmittedAttestations resolves a submission's bundles and verifies
// them under the server's current attestation policy, before the write
// transaction (verification takes milliseconds).
func (s *Review) checkSubmittedAttestations(ctx context.Context, p *parsedSubmission, ins []AttestationInput) error {
	items, err := s.attest.resolveAttestations(ctx, p.doc, ins)
	if err != nil || len(items) == 0 {
		return err
	}
	pol, err := s.attest.attestPolicyByName(ctx, p.doc.Server.Name)
	if err != nil {
		return err
	}
	p.attestations = items
	p.verifications, err = s.attest.verifyItems(items, pol)
	return err
}

func attestationSummary(vs []verification) string {
	if len(vs) == 0 {
		return ""
	}
	n := 0
	for _, v := range vs {
		if v.verified {
			n++
		}
	}
	return fmt.Sprintf(" attestations=%d verified=%d", len(vs), n)
}

// checkSubmissionPolicy applies the server's policy to a submission.
func checkSubmissionPolicy(ctx context.Context, tx *ent.Tx, srv *ent.Server, p *parsedSubmission) error {
	pol, err := policyOf(ctx, tx, srv.ID)
	if err != nil {
		return err
	}
	if pol.RequireContract && p.contract.source == ContractDefault {
		return fmt.Errorf("%w: the policy of %s requires a capability contract: submit one (mcpreg submit --contract FILE) or put it in server.json _meta %q",
			ErrFailedPrecondition, srv.Name, contract.MetaKey)
	}
	return nil
}

// saveSubmissionFindings stores the contract checks and the contract's
// widenings against the base version (baseVersion).
func (s *Review) saveSubmissionFindings(ctx context.Context, tx *ent.Tx, serverID, versionID int, p *parsedSubmission) error {
	_, err := s.saveVersionFindings(ctx, tx, serverID, versionID, p.doc.Server.Version, p.contract, p.tools, p.text)
	return err
}

// saveVersionFindings stores what review reads of a version's tools and
// contract: the contract's checks over the tools, its widenings against
// the base version (baseVersion), and more (the detectors' findings). It
// returns how many it stored. A submission and the first reading of an
// import's tools (firstread.go) store the same.
func (s *core) saveVersionFindings(ctx context.Context, tx *ent.Tx, serverID, versionID int, ver string, pc *parsedContract,
	tools *pin.ToolsList, more []recorded) (int, error) {
	fs := s.contractFindings(pc, tools)
	ws, against, err := widenings(ctx, tx, serverID, versionID, ver, pc.normalized)
	if err != nil {
		return 0, err
	}
	fs = append(append(fs, wideningRecords(ws, against)...), more...)
	return len(fs), saveFindings(ctx, tx, versionID, fs)
}

// readLive fills a live submission's tools and initialize result from the
// server named by its server.json.
// The caller's namespace is checked first: nobody makes the registry launch
// or dial a server they may not submit.
func (s *Review) readLive(ctx context.Context, c *Caller, sub *Submission) error {
	if len(sub.Tools) > 0 || len(sub.InitializeResult) > 0 {
		return invalidf("a live submission reads tools and initializeResult from the server: leave them empty")
	}
	doc, err := s.parseServerJSON(sub.ServerJSON)
	if err != nil {
		return err
	}
	if !c.OwnsNamespace(doc.Namespace) {
		return deniedf("%s may not submit in namespace %q", c.Principal, doc.Namespace)
	}
	items, err := s.attest.resolveAttestations(ctx, doc, sub.Attestations)
	if err != nil {
		return err
	}
	digests := map[int]attest.Digest{}
	for _, it := range items {
		digests[it.index] = it.digest
	}
	target, _, err := s.scans.liveTarget(ctx, doc, digests)
	var mismatch *fetch.DigestMismatchError
	switch {
	case errors.As(err, &mismatch):
		return fmt.Errorf("%w: %s: %w", ErrFailedPrecondition, doc.Server.Name, err)
	case errors.Is(err, fetch.ErrFetch):
		return fmt.Errorf("%w: reading %s live: %w", ErrFailedPrecondition, doc.Server.Name, err)
	case err != nil:
		return err
	}
	rd, err := s.scans.readServer(ctx, doc, target)
	if err != nil {
		return fmt.Errorf("%w: reading %s live: %w%s", ErrFailedPrecondition, doc.Server.Name, err, stderrNote(rd.snap))
	}
	snap := rd.snap
	sub.Tools, sub.InitializeResult, sub.live, sub.scopes = snap.ModelFile(), snap.InitializeResult, snap.Findings, rd.scopes
	sub.auth, sub.oauth = authOf(rd), snap.Auth
	return nil
}

// refuseNUL refuses a submitted JSON document with a string holding the
// NUL character (U+0000): PostgreSQL cannot store it in text, so a
// description carrying one failed the submission with an internal error
// (on SQLite it was stored), and no model-visible text needs it. A
// document that is not JSON is left to its own parser to report.
func refuseNUL(field string, raw []byte) error {
	if !bytes.Contains(raw, []byte(`\u0000`)) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if str, ok := tok.(string); ok && strings.IndexByte(str, 0) >= 0 {
			return invalidf("%s: the string %q holds the NUL character (\\u0000), which mcpreg does not store; remove it",
				field, upstream.Truncate(str, 80))
		}
	}
}
