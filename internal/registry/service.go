package registry

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/upstream"
	"github.com/mcpreg/mcpreg/pin"
)

// Limits bound what a submission may carry.
type Limits struct {
	// Pin limits apply to tools files and initialize results.
	Pin pin.Limits
	// MaxServerJSONBytes caps the server.json document.
	MaxServerJSONBytes int
	// MaxPageSize caps list page sizes.
	MaxPageSize int
	// Contract limits apply to capability contract documents.
	Contract contract.Limits
	// ContractMaxTokenTTL is the longest token lifetime a contract may
	// declare without a finding.
	ContractMaxTokenTTL time.Duration
	// ScanCooldown merges on-demand scan requests: a version scanned this
	// recently answers with that scan instead of reading the server again.
	ScanCooldown time.Duration
	// ScanRate bounds the on-demand scans (manual, host report) one
	// principal may ask for, over all its tokens; zero: no limit.
	ScanRate ScanRate
	// ScanOnDemandConcurrency caps the on-demand scans this replica runs
	// at once; 0: no cap.
	ScanOnDemandConcurrency int
	// HostChecks bound the stored connect-time observations.
	HostChecks HostCheckLimits
	// ReceiptRetention is how long gate receipts are kept; 0 keeps them.
	ReceiptRetention time.Duration
	// MaxBundleBytes caps one attestation bundle (JSON).
	MaxBundleBytes int
	// MaxArtifactBytes caps uploaded artifact bytes (their digest is kept,
	// not the bytes).
	MaxArtifactBytes int
}

// DefaultLimits are the limits used when none are configured.
func DefaultLimits() Limits {
	return Limits{Pin: pin.DefaultLimits(), MaxServerJSONBytes: 256 << 10, MaxPageSize: 200,
		ContractMaxTokenTTL: contract.DefaultMaxTokenTTL, ScanCooldown: 10 * time.Second,
		MaxBundleBytes: attest.DefaultMaxBundleBytes, MaxArtifactBytes: 4 << 20, HostChecks: DefaultHostCheckLimits(),
		ReceiptRetention: DefaultReceiptRetention}
}

// core is what every service shares: the store, the clock, the logger,
// the limits, the scan metrics, the audit writer (appendAudit) and the
// change feed (what this replica and the others committed).
type core struct {
	store   *store.Store
	log     *slog.Logger
	limits  Limits
	now     func() time.Time
	metrics *scanMetrics
	// listeners are told of the audited actions other replicas commit.
	listeners []func(action string)
	// caches are told of every audited action that may change what
	// discovery serves, wherever it was committed (the discovery index).
	caches []func(action string)
	// applied are audit sequences whose effects were applied at commit.
	applied appliedSeqs
	// feedStart is the audit chain's length when the core was made:
	// where WatchChanges starts reading.
	feedStart int64
}

// Services are the registry's use-cases, one service per job over one
// core. New builds them together; each has its own constructor naming
// what it depends on.
type Services struct {
	// Review: submission, transitions, policies, the reads of servers
	// and versions.
	Review *Review
	// Scans: scan runs, the scheduler, leases, drift decisions, host
	// connection checks.
	Scans *Scans
	// Discovery: the signed discovery index, resolve, the official API.
	Discovery *Discovery
	// Attestations: sigstore bundles, artifacts, re-verification.
	Attestations *Attestations
	// Audit: the audit chain, its checkpoints, the change feed.
	Audit *Audit
	// Receipts: what runtime gates recorded of the calls they relayed.
	Receipts *Receipts
	// Credentials: the sealed credentials the scanner reads servers with.
	Credentials *Credentials
	// Upstreams: upstream registries and the sync passes importing their
	// servers into review.
	Upstreams *Upstreams
}

// settings are what the options set; New hands each service its part.
type settings struct {
	limits      Limits
	now         func() time.Time
	log         *slog.Logger
	listeners   []func(action string)
	verifier    *attest.Verifier
	npm         NPMIntegrity
	signer      *DiscoverySigner
	scanning    *Scanning
	checkpoints *Checkpoints
	// upstreamLimits caps sync passes; nil: upstream.DefaultLimits.
	upstreamLimits *upstream.Limits
}

// Option configures the services.
type Option func(*settings)

// WithLimits sets submission limits.
func WithLimits(l Limits) Option { return func(s *settings) { s.limits = l } }

// WithClock replaces the clock (tests).
func WithClock(now func() time.Time) Option { return func(s *settings) { s.now = now } }

// WithChangeListener has f told of every audited action another replica
// committed, as the change feed reads it (the identity service forgets
// cached tokens on a revocation).
func WithChangeListener(f func(action string)) Option {
	return func(s *settings) { s.listeners = append(s.listeners, f) }
}

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.log = l } }

// New returns the services over a migrated store.
func New(ctx context.Context, st *store.Store, opts ...Option) (*Services, error) {
	o := settings{log: slog.Default(), limits: DefaultLimits(), now: utcNow}
	for _, f := range opts {
		f(&o)
	}
	c := &core{store: st, log: o.log, limits: o.limits, now: o.now, metrics: newScanMetrics(), listeners: o.listeners}
	if err := c.ensureAuditHead(ctx); err != nil {
		return nil, err
	}
	if err := c.foldServerNames(ctx); err != nil {
		return nil, err
	}
	att, err := newAttestations(c, o.verifier, o.npm)
	if err != nil {
		return nil, err
	}
	disc := newDiscovery(c, o.signer)
	creds := newCredentials(c, o.scanning)
	scans := newScans(c, o.scanning, att, disc, creds)
	review := newReview(c, scans, att, disc)
	ulim := upstream.DefaultLimits()
	if o.upstreamLimits != nil {
		ulim = *o.upstreamLimits
	}
	return &Services{
		Review:       review,
		Upstreams:    newUpstreams(c, review, o.scanning, ulim),
		Scans:        scans,
		Discovery:    disc,
		Attestations: att,
		Audit:        newAudit(c, o.checkpoints, o.signer),
		Receipts:     newReceipts(c, disc),
		Credentials:  creds,
	}, nil
}

func utcNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
