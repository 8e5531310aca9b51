package registry

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/serverjson"
	"github.com/mcpreg/mcpreg/pin"
	livescan "github.com/mcpreg/mcpreg/scan"
)

// Finding kinds of reading a server with several identities.
const (
	// KindSessionVariance: two sessions with the same credentials listed
	// different tools, instructions or prompts.
	KindSessionVariance = "scan.session_variance"
	// KindIdentityVariance: two credential sets were shown different
	// definitions of one tool, or different instructions.
	KindIdentityVariance = "scan.identity_variance"
)

// sessionsPerIdentity is how many sessions read each credential set.
const sessionsPerIdentity = 2

// reading is what reading a server produced: the snapshot (for several
// identities, their union) and, with credentials, each tool's scopes.
type reading struct {
	snap   *livescan.Snapshot
	scopes map[string][]string
	// remote: the server was read over HTTP (its OAuth metadata too).
	remote bool
	// model is what the snapshot showed a model, read strictly and
	// pinned under mcpreg-pin-v2.
	model liveModel
}

// readServer reads target without credentials when the server name has
// none. Otherwise it reads it once per credential set, in two sessions
// each, and joins the tool lists: the union is pinned, each tool with the
// scopes all the credential sets that listed it have in common. The
// scan's deadline covers every reading: each gets an equal share of the
// time left when it starts (with two credential sets, the first of four
// readings a quarter of the deadline). What a server answers must not
// hold a credential's value: such an answer is refused, nothing stored,
// and standard error keeps it redacted.
func (s *Scans) readServer(ctx context.Context, doc *serverjson.Document, target livescan.Target) (reading, error) {
	rd, err := s.readIdentities(ctx, doc, target)
	_, rd.remote = target.(livescan.HTTPTarget)
	if err == nil { // a scan that cannot be pinned fails here, stored as failed
		rd.model, err = modelList(rd.snap)
	}
	return rd, err
}

func (s *Scans) readIdentities(ctx context.Context, doc *serverjson.Document, target livescan.Target) (reading, error) {
	all, err := s.creds.credentialsFor(ctx, doc.Server.Name)
	if err != nil {
		return reading{}, err
	}
	creds := slices.DeleteFunc(all, func(c credential) bool { return !appliesTo(c, target) })
	if len(creds) == 0 {
		snap, err := s.scanning.Reader.Read(ctx, target)
		return reading{snap: snap}, err
	}
	ctx, cancel := context.WithTimeout(ctx, readerDeadline(s.scanning.Reader))
	defer cancel()
	var secrets []string
	for _, c := range creds {
		secrets = append(secrets, c.secretsOf()...)
	}
	left := len(creds) * sessionsPerIdentity
	var snaps []*livescan.Snapshot
	var findings []finding.Finding
	for _, c := range creds {
		t, err := withCredential(target, c, launchedPackage(doc))
		if err != nil {
			return reading{}, err
		}
		var sessions [sessionsPerIdentity]*livescan.Snapshot
		for i := range sessions {
			snap, err := readShare(ctx, s.scanning.Reader, t, left)
			left--
			redactStderr(snap, secrets)
			if err != nil {
				return reading{snap: snap}, fmt.Errorf("reading with scan credentials %s (session %d): %w", c.label, i+1, redactErr(err, secrets))
			}
			if label, ok := leaks(snap, creds); ok {
				return reading{}, fmt.Errorf("%w: reading with scan credentials %s: the server's answer contains the value of credentials %s; nothing from it is stored",
					livescan.ErrInvalid, c.label, label)
			}
			sessions[i] = snap
		}
		if f, ok := sessionVariance(c.label, sessions[0], sessions[1]); ok {
			findings = append(findings, f)
		}
		snaps = append(snaps, sessions[0])
	}
	return joinIdentities(creds, snaps, findings)
}

// readerDeadline is the deadline of one scan.
func readerDeadline(r LiveReader) time.Duration {
	if l, ok := r.(interface{ Limits() livescan.Limits }); ok && l.Limits().Deadline > 0 {
		return l.Limits().Deadline
	}
	return livescan.DefaultDeadline
}

// readShare reads with an equal share of the time left among left readings.
func readShare(ctx context.Context, r LiveReader, t livescan.Target, left int) (*livescan.Snapshot, error) {
	if dl, ok := ctx.Deadline(); ok && left > 1 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Until(dl)/time.Duration(left))
		defer cancel()
	}
	return r.Read(ctx, t)
}

// withCredential gives target the credential set: headers on every
// request to a remote (the scanner never follows a redirect to another
// origin, and reads OAuth metadata without them), variables in the
// environment of a package's process.
func withCredential(target livescan.Target, c credential, pkg string) (livescan.Target, error) {
	switch t := target.(type) {
	case livescan.HTTPTarget:
		if got := originOf(t.URL); got != strings.ToLower(strings.TrimSuffix(c.Origin, "/")) {
			return nil, fmt.Errorf("%w: scan credentials %s may be sent to %s only, the version's remote is %s: they are not sent (set them again for that origin if it is the server's)",
				ErrFailedPrecondition, c.label, c.Origin, got)
		}
		t.Headers = merged(t.Headers, c.Headers)
		return t, nil
	case livescan.StdioTarget:
		if pkg != c.Package {
			return nil, fmt.Errorf("%w: scan credentials %s are for package %s only, the version runs %s: they are not given to it",
				ErrFailedPrecondition, c.label, c.Package, pkg)
		}
		t.Env = merged(t.Env, c.Env)
		return t, nil
	}
	return nil, fmt.Errorf("%w: scan credentials cannot be given to a %T", ErrFailedPrecondition, target)
}

// merged is a copy of base with extra's entries added (extra wins).
func merged(base, extra map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = make(map[string]string, len(extra))
	}
	maps.Copy(out, extra)
	return out
}

// leaks reports which credential set's value the server's answers hold.
func leaks(snap *livescan.Snapshot, creds []credential) (string, bool) {
	answers := [][]byte{snap.ModelFile(), snap.InitializeResult}
	for _, r := range snap.Readings {
		answers = append(answers, r.Result)
	}
	for _, c := range creds {
		for _, v := range c.secretsOf() {
			for _, a := range answers {
				if strings.Contains(string(a), v) {
					return c.label, true
				}
			}
		}
	}
	return "", false
}

const redacted = "[redacted scan credential]"

func redactText(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, redacted)
	}
	return s
}

func redactStderr(snap *livescan.Snapshot, secrets []string) {
	if snap != nil {
		snap.Stderr = redactText(snap.Stderr, secrets)
	}
}

// redactErr keeps err's kind (errors.Is) with its text redacted.
func redactErr(err error, secrets []string) error {
	if msg := redactText(err.Error(), secrets); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// sessionVariance compares two sessions of one identity.
func sessionVariance(label string, a, b *livescan.Snapshot) (finding.Finding, bool) {
	if a.Pins.ToolDefinitionHash == b.Pins.ToolDefinitionHash && a.Pins.InstructionsHash == b.Pins.InstructionsHash {
		return finding.Finding{}, false
	}
	return finding.Finding{Kind: KindSessionVariance, Severity: finding.High,
		Message: fmt.Sprintf("two sessions with scan credentials %s were shown different tools or instructions (tool definitions %s and %s): the server does not show one identity one face",
			label, a.Pins.ToolDefinitionHash, b.Pins.ToolDefinitionHash)}, true
}

// joinIdentities is the union of what each credential set was shown (in
// label order; the first definition of a tool wins and a different one is
// a finding), each tool with the scopes its credential sets share.
func joinIdentities(creds []credential, snaps []*livescan.Snapshot, findings []finding.Finding) (reading, error) {
	base := snaps[0]
	var tools []pin.Tool
	seen := map[string]pin.Tool{}
	scopes := map[string][]string{}
	for i, snap := range snaps {
		if i > 0 && !sameInstructions(base.Tools.Instructions, snap.Tools.Instructions) {
			findings = append(findings, finding.Finding{Kind: KindIdentityVariance, Severity: finding.High, Pointer: instructionsPointer,
				Message: fmt.Sprintf("scan credentials %s and %s were shown different instructions; the pins keep those shown to %s", creds[0].label, creds[i].label, creds[0].label)})
		}
		for _, t := range snap.Tools.Tools {
			first, ok := seen[t.Name]
			if !ok {
				seen[t.Name] = t
				tools = append(tools, t)
				scopes[t.Name] = slices.Clone(creds[i].scopes)
				continue
			}
			scopes[t.Name] = intersect(scopes[t.Name], creds[i].scopes)
			if a, b := toolHash(first), toolHash(t); a != b {
				findings = append(findings, finding.Finding{Kind: KindIdentityVariance, Severity: finding.High, Tool: t.Name,
					Message: fmt.Sprintf("tool %q is defined differently for scan credentials %s (%s) than for an earlier set (%s); the pins keep the first", t.Name, creds[i].label, b, a)})
			}
		}
	}
	union, err := base.WithTools(tools)
	if err != nil {
		return reading{}, fmt.Errorf("%w: joining what the scan credentials were shown: %w", livescan.ErrInvalid, err)
	}
	union.Findings = append(slices.Clone(union.Findings), findings...)
	return reading{snap: union, scopes: scopes}, nil
}

func toolHash(t pin.Tool) string {
	h, _ := pin.ToolHash(t.Raw)
	return h
}

// intersect keeps the elements of a also in b (both sorted).
func intersect(a, b []string) []string {
	out := []string{}
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// instructionsPointer is where findings about instructions point.
const instructionsPointer = "/instructions"

// launchedPackage is the identifier of the package a live read launches
// (the first, see packageTarget), "" without packages.
func launchedPackage(doc *serverjson.Document) string {
	if len(doc.Server.Packages) == 0 {
		return ""
	}
	return doc.Server.Packages[0].Identifier
}

// appliesTo: a set with headers is for remotes, one with variables for
// packages; a set for the other kind of target is not used.
func appliesTo(c credential, target livescan.Target) bool {
	switch target.(type) {
	case livescan.HTTPTarget:
		return len(c.Headers) > 0
	case livescan.StdioTarget:
		return len(c.Env) > 0
	}
	return true // withCredential refuses it, naming the target
}
