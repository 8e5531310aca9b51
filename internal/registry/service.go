package registry

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/store"
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
		MaxBundleBytes: attest.DefaultMaxBundleBytes, MaxArtifactBytes: 4 << 20, HostChecks: DefaultHostCheckLimits()}
}

// Service implements the registry use-cases over a store.
type Service struct {
	store  *store.Store
	log    *slog.Logger
	limits Limits
	now    func() time.Time
	// scanning is nil when live reads are off.
	scanning *Scanning
	// scans merges concurrent scan requests for one version.
	scans   singleflight.Group
	metrics *scanMetrics
	// verifier checks attestations (default: the public-good root only).
	verifier *attest.Verifier
	// npm reads the integrity the npm registry publishes (default: the
	// public npm registry).
	npm NPMIntegrity
	// disc is the discovery index, rebuilt after changes.
	disc *discoveryCache
	// signer signs discovery documents; nil refuses discovery reads.
	signer *DiscoverySigner
	// listeners are told of the audited actions other replicas commit.
	listeners []func(action string)
	// applied are audit sequences whose effects were applied at commit.
	applied appliedSeqs
	// defaultReplica names this process in scan records when Scanning
	// does not.
	defaultReplica string
	// scanGate bounds on-demand scans (Limits.ScanRate and
	// ScanOnDemandConcurrency).
	scanGate *scanGate
	// hostCheckSweep paces deleting observations past their retention.
	hostCheckSweep hostCheckSweep
	// checkpoints configures signed audit checkpoints; nil: none.
	checkpoints *Checkpoints
	// seenCheckpoint is the latest checkpoint this replica verified: one
	// deleted from the database afterwards stops signing.
	seenCheckpoint atomic.Pointer[auditchain.Checkpoint]
	// feedStart is the audit chain's length when the service was made:
	// where WatchChanges starts reading.
	feedStart int64
}

// Option configures a Service.
type Option func(*Service)

// WithLimits sets submission limits.
func WithLimits(l Limits) Option { return func(s *Service) { s.limits = l } }

// WithClock replaces the clock (tests).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithChangeListener has f told of every audited action another replica
// committed, as the change feed reads it (the identity service forgets
// cached tokens on a revocation).
func WithChangeListener(f func(action string)) Option {
	return func(s *Service) { s.listeners = append(s.listeners, f) }
}

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// New returns a Service over a migrated store.
func New(ctx context.Context, st *store.Store, opts ...Option) (*Service, error) {
	s := &Service{store: st, log: slog.Default(), limits: DefaultLimits(), now: utcNow, metrics: newScanMetrics(), disc: newDiscoveryCache(),
		defaultReplica: DefaultReplicaName()}
	for _, o := range opts {
		o(s)
	}
	s.scanGate = newScanGate(s.limits.ScanRate, s.limits.ScanOnDemandConcurrency)
	if err := s.defaultVerifier(); err != nil {
		return nil, err
	}
	if s.npm == nil {
		s.npm = fetch.Packuments{}
	}
	if err := s.ensureAuditHead(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func utcNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
