package identity

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/store"
)

// AuditWriter appends an audit event inside the caller's transaction (the
// registry's audit chain implements it).
type AuditWriter interface {
	Append(ctx context.Context, tx *ent.Tx, r domain.AuditRecord) error
}

// Service is who may call: principals, API tokens, web passwords and
// sessions, single sign-on, and the sign-in throttle. Every operation that
// changes one of them checks its caller here and is audited.
type Service struct {
	store *store.Store
	log   *slog.Logger
	now   func() time.Time
	audit AuditWriter
	// auth caches verified tokens briefly.
	auth authCache
	// hashes bounds concurrent password hashing (web sign-in).
	hashes *hashGate
}

// Option configures a Service.
type Option func(*Service)

// WithClock replaces the clock (tests).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// New returns the identity service over a migrated store, writing its
// audit events through audit.
func New(st *store.Store, audit AuditWriter, opts ...Option) *Service {
	s := &Service{store: st, log: slog.Default(), now: utcNow, audit: audit, hashes: defaultHashGate()}
	for _, o := range opts {
		o(s)
	}
	return s
}

func utcNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Collectors are the service's Prometheus metrics.
func (s *Service) Collectors() []prometheus.Collector {
	return []prometheus.Collector{s.hashes.running}
}

// Changed is told of every audited action another replica committed (the
// registry's change feed): a revoked token or a new password empties the
// token cache here too.
func (s *Service) Changed(action string) {
	if action == "token.revoke" || action == "principal.password_set" {
		s.auth.forget()
	}
}
