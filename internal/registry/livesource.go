package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/registry/pkg/model"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/pkgref"
	"github.com/mcpreg/mcpreg/internal/sandbox"
	"github.com/mcpreg/mcpreg/internal/secrets"
	"github.com/mcpreg/mcpreg/internal/serverjson"
	"github.com/mcpreg/mcpreg/scan"
)

// LaunchTemplate is an admin-approved way to start a package of one
// registry type: an argv whose elements may hold {identifier} and
// {version}, and for npm packages (always fetched and prepared first)
// {package_bin} and {package_dir}. A submission never supplies a command.
type LaunchTemplate struct {
	RegistryType string
	Argv         []string
}

// ParseLaunchTemplate reads "TYPE=CMD ARG..." (arguments split on spaces),
// e.g. "npm=node {package_bin}".
func ParseLaunchTemplate(s string) (LaunchTemplate, error) {
	typ, cmd, ok := strings.Cut(s, "=")
	argv := strings.Fields(cmd)
	if !ok || strings.TrimSpace(typ) == "" || len(argv) == 0 {
		return LaunchTemplate{}, invalidf("launch template %q: want TYPE=COMMAND ARGS..., e.g. npm=node {package_bin}", s)
	}
	return LaunchTemplate{RegistryType: strings.TrimSpace(typ), Argv: argv}, nil
}

// LiveReader reads what a live MCP server serves. *scan.Reader is the real
// one; tests of drift, quarantine and leases pass canned snapshots. The
// returned Snapshot is never nil: on error it still carries what helps
// explain the failure (scan.Reader.Read).
type LiveReader interface {
	Read(ctx context.Context, t scan.Target) (*scan.Snapshot, error)
}

// NPMFetcher fetches, checks and prepares an npm package for launch.
// *fetch.NPM is the real one. want may be zero (nothing declared); a
// package whose bytes differ from want or from the npm registry's integrity
// is a *fetch.DigestMismatchError, a refused dependency a
// *fetch.DependencySpecError, any other failure wraps fetch.ErrFetch.
type NPMFetcher interface {
	Fetch(ctx context.Context, name, version string, want attest.Digest) (*fetch.Package, error)
}

// The real edges satisfy the interfaces as they are.
var (
	_ LiveReader = (*scan.Reader)(nil)
	_ NPMFetcher = (*fetch.NPM)(nil)
)

// Scanning configures live reads.
type Scanning struct {
	// Reader reads the servers; Templates say how packages are started.
	Reader    LiveReader
	Templates []LaunchTemplate
	// Credential, when set, runs stdio servers as that unprivileged user
	// (without a Sandbox).
	Credential *syscall.Credential
	// Sandbox confines stdio servers (package sandbox); nil runs them
	// unconfined (mcpregd serve --scan-sandbox=off). SandboxMode says which:
	// "bwrap", "off" or "unavailable" (a sandbox that refuses every run).
	Sandbox     *sandbox.Sandbox
	SandboxMode string
	// DriftPolicy rates drift classes; nil means diffreview.DefaultPolicy.
	DriftPolicy *diffreview.Policy
	// NPM fetches and prepares every npm package before it is launched, so
	// the scanner runs the tarball the npm registry publishes (and the
	// version declares). Without it npm packages are not read (fail closed).
	NPM NPMFetcher
	// Replica names this process in scan records and leases (default:
	// host name and process id). Replicas on one database need distinct names.
	Replica string
	// Interval is the schedule's period (0: this replica runs no schedule)
	// and Concurrency how many scheduled scans it runs at once.
	Interval    time.Duration
	Concurrency int
	// LeaseTTL is how long a scan lease lasts without renewal (default
	// DefaultLeaseTTL): how soon other replicas take over a dead one's scans.
	LeaseTTL time.Duration
	// SecretsKey seals the scan credentials admins set per server; nil
	// refuses them (and fails the scans of servers that have some).
	SecretsKey *secrets.Key
}

// ScanSandboxMode is how stdio scans are confined: "bwrap", "off" or
// "unavailable"; "" without live reading.
func (s *Scans) ScanSandboxMode() string {
	if s.scanning == nil {
		return ""
	}
	return s.scanning.SandboxMode
}

// ScanSandbox is the sandbox of stdio scans, or nil.
func (s *Scans) ScanSandbox() *sandbox.Sandbox {
	if s.scanning == nil {
		return nil
	}
	return s.scanning.Sandbox
}

// verifiedLaunch starts a fetched npm package when the npm template does
// not say how (e.g. "npx -y {identifier}@{version}", which would download
// at launch).
var verifiedLaunch = []string{"node", "{package_bin}"}

// driftPolicy is the configured drift policy, or the default one.
func (s *Scans) driftPolicy() diffreview.Policy {
	if s.scanning != nil && s.scanning.DriftPolicy != nil {
		return *s.scanning.DriftPolicy
	}
	return diffreview.DefaultPolicy()
}

// DriftClassesFailingClosed are the drift classes the configured drift
// policy leaves out: they quarantine at high severity (a policy file
// written before a class existed).
func (s *Scans) DriftClassesFailingClosed() []diffreview.Class {
	return s.driftPolicy().Unconfigured()
}

// WithScanning enables live reads (submit --live, scans).
func WithScanning(sc Scanning) Option { return func(s *settings) { s.scanning = &sc } }

// Digest sources of a scan that ran a fetched npm package, beyond the
// declared ones (DigestFromFileSHA256, DigestFromMeta).
const (
	// DigestFromAttestation: the digest of a verified attestation.
	DigestFromAttestation = "attestation"
)

// artifact is what a live read ran: for a fetched package the sha512
// digest of its tarball, and where the digest it was checked against came
// from (the version's declared digest, else the npm registry's integrity).
type artifact struct {
	digest, source string
}

// liveTarget resolves where a version's server is read: its first
// streamable-http remote, else its first package through the launch
// template of the package's registry type. digests are the package
// digests the version declares beyond server.json (attested ones, by
// package index). Every npm package is fetched, checked (against the
// declared digest, else the npm registry's integrity) and prepared first,
// and that copy is launched (a mismatch is a *fetch.DigestMismatchError, a
// refused dependency a *fetch.DependencySpecError); other packages are
// launched as the template says.
func (s *Scans) liveTarget(ctx context.Context, doc *serverjson.Document, digests map[int]attest.Digest) (scan.Target, artifact, error) {
	if s.scanning == nil {
		return nil, artifact{}, fmt.Errorf("%w: live reading is not enabled on this registry", ErrFailedPrecondition)
	}
	for _, r := range doc.Server.Remotes {
		if r.Type == "streamable-http" {
			return scan.HTTPTarget{URL: r.URL}, artifact{}, nil
		}
	}
	if len(doc.Server.Packages) > 0 {
		return s.packageTarget(ctx, doc, digests)
	}
	return nil, artifact{}, invalidf("server.json has no streamable-http remote and no package to read live")
}

// packageTarget is the launch of doc's first package through the launch
// template of its registry type.
func (s *Scans) packageTarget(ctx context.Context, doc *serverjson.Document, digests map[int]attest.Digest) (scan.Target, artifact, error) {
	const i = 0 // the package read live
	p := doc.Server.Packages[i]
	tmpl, ok := s.template(p.RegistryType)
	if !ok {
		return nil, artifact{}, fmt.Errorf("%w: no admin-approved launch template for registry type %q (mcpregd serve --scan-launch-template)", ErrFailedPrecondition, p.RegistryType)
	}
	if err := pkgref.Validate(p.RegistryType, p.Identifier, p.Version); err != nil {
		return nil, artifact{}, fmt.Errorf("%w: server.json package %d (%s): %w", ErrInvalid, i, p.RegistryType, err)
	}
	d, source, err := packageDigest(doc, i, digests)
	if err != nil {
		return nil, artifact{}, err
	}
	vars := map[string]string{"{identifier}": p.Identifier, "{version}": p.Version}
	argv := tmpl.Argv
	var ran artifact
	var readOnly []string // what a sandboxed server may read
	if p.RegistryType == "npm" {
		pkg, err := s.fetchNPM(ctx, p, d)
		if err != nil {
			return nil, artifact{}, err
		}
		if source == "" {
			source = DigestFromNPMRegistry
		}
		ran = artifact{digest: pkg.Digest.String(), source: source}
		vars["{package_bin}"], vars["{package_dir}"] = pkg.Bin, pkg.Dir
		readOnly = append(readOnly, pkg.Dir)
		if !slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, "{package_") }) {
			argv = verifiedLaunch
		}
	}
	argv = expand(argv, vars)
	return scan.StdioTarget{Command: argv[0], Args: argv[1:], Credential: s.scanning.Credential,
		Confinement: confinement(s.scanning.Sandbox), ReadOnly: readOnly}, ran, nil
}

// packageDigest is the digest declared for package i and where it comes
// from: server.json's own, else an attested one; "" when there is none.
func packageDigest(doc *serverjson.Document, i int, digests map[int]attest.Digest) (attest.Digest, string, error) {
	meta, err := registryMeta(doc.Raw)
	if err != nil {
		return attest.Digest{}, "", err
	}
	text, source := documentDigest(doc.Server.Packages[i], meta)
	if text == "" {
		d, ok := digests[i]
		if !ok {
			return attest.Digest{}, "", nil
		}
		return d, DigestFromAttestation, nil
	}
	d, err := attest.ParseDigest(text)
	if err != nil {
		return attest.Digest{}, "", invalidf("server.json package %d: digest from %s: %v", i, source, err)
	}
	return d, source, nil
}

// fetchNPM fetches and prepares an npm package; d may be zero (nothing
// declared).
func (s *Scans) fetchNPM(ctx context.Context, p model.Package, d attest.Digest) (*fetch.Package, error) {
	if s.scanning.NPM == nil {
		return nil, fmt.Errorf("%w: npm package %s: this registry does not fetch npm packages, and launching one unfetched would run whatever npm resolves at launch",
			ErrFailedPrecondition, p.Identifier)
	}
	return s.scanning.NPM.Fetch(ctx, p.Identifier, p.Version, d)
}

func (s *Scans) template(registryType string) (LaunchTemplate, bool) {
	for _, t := range s.scanning.Templates {
		if t.RegistryType == registryType {
			return t, true
		}
	}
	return LaunchTemplate{}, false
}

func expand(argv []string, vars map[string]string) []string {
	var pairs []string
	for k, v := range vars {
		pairs = append(pairs, k, v)
	}
	r := strings.NewReplacer(pairs...)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

// confinement runs the live reader's stdio servers in sb (nil: unconfined).
func confinement(sb *sandbox.Sandbox) *scan.Confinement {
	if sb == nil {
		return nil
	}
	return &scan.Confinement{Home: sandbox.Home, Command: func(argv, env, readOnly []string) (scan.ConfinedProcess, error) {
		p, err := sb.Command(sandbox.Cmd{Argv: argv, Env: env, ReadOnly: readOnly})
		if err != nil {
			return nil, err
		}
		return p, nil
	}}
}
