package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/secrets"
	"github.com/mcpreg/mcpreg/internal/server"
	"github.com/mcpreg/mcpreg/internal/store"
)

// ServiceOptions verifies cfg and builds every registry option it asks for:
// limits, scanning, attestation, discovery signing, npm
// integrity and audit checkpoints. `mcpregd serve` and the in-process test
// server both build their service from it, so they cannot drift apart. It
// touches no database, so a bad configuration is refused before the store
// is opened; the caller passes the options to registry.New over the opened
// store.
func ServiceOptions(cfg config.Config, log *slog.Logger) ([]registry.Option, error) {
	if err := cfg.Verify(); err != nil {
		return nil, err
	}
	limits, err := cfg.Limits()
	if err != nil {
		return nil, err
	}
	scanning, err := ScanningFrom(cfg)
	if err != nil {
		return nil, err
	}
	verifier, err := VerifierFrom(cfg)
	if err != nil {
		return nil, err
	}
	signer, err := DiscoverySignerFrom(cfg, log)
	if err != nil {
		return nil, err
	}
	// Last: a configuration refused above creates no key file.
	if scanning.SecretsKey, err = secretsKeyFrom(cfg, log); err != nil {
		return nil, err
	}
	return []registry.Option{registry.WithLimits(limits), registry.WithScanning(scanning),
		registry.WithAttestation(verifier), registry.WithDiscoverySigner(signer), npmIntegrityFrom(cfg),
		registry.WithCheckpoints(checkpointsFrom(cfg, log))}, nil
}

// NewServices builds every service over a migrated store, logging to log:
// the registry with opts (ServiceOptions gives them), and the identity service writing its
// audit events into the registry's chain and told of other replicas'
// revocations by the registry's change feed.
func NewServices(ctx context.Context, st *store.Store, log *slog.Logger, opts ...registry.Option) (*server.Services, error) {
	id := &identityRef{}
	opts = append([]registry.Option{registry.WithLogger(log)}, opts...)
	reg, err := registry.New(ctx, st, append(opts, registry.WithChangeListener(id.changed))...)
	if err != nil {
		return nil, err
	}
	id.svc = identity.New(st, reg.Audit.AuditWriter(), identity.WithLogger(log))
	return &server.Services{Registry: reg, Identity: id.svc}, nil
}

// identityRef lets the registry's change feed reach the identity service,
// which is built after the registry it writes its audit events through.
type identityRef struct{ svc *identity.Service }

func (r *identityRef) changed(action string) {
	if r.svc != nil {
		r.svc.Changed(action)
	}
}

// checkpointsFrom is the audit checkpoint schedule of cfg; it warns when
// both triggers are off.
func checkpointsFrom(cfg config.Config, log *slog.Logger) registry.Checkpoints {
	if cfg.AuditCheckpointEvery == 0 && cfg.AuditCheckpointInterval == 0 {
		log.Warn("audit checkpoints are off (--audit-checkpoint-every 0 and --audit-checkpoint-interval 0): " +
			"nothing outside the database anchors the audit log")
	}
	return cfg.Checkpoints()
}

// secretsKeyFrom loads the key sealing scan credentials, creating it (mode
// 0600) on first start like the discovery key.
func secretsKeyFrom(cfg config.Config, log *slog.Logger) (*secrets.Key, error) {
	if cfg.SecretsKey == "" {
		return nil, errors.New("--secrets-key: a key file is required")
	}
	k, created, err := secrets.LoadOrCreate(cfg.SecretsKey)
	if err != nil {
		return nil, fmt.Errorf("--secrets-key: %w", err)
	}
	if created {
		log.Warn("created a secrets key for scan credentials; give every replica this file and keep it out of backups of the database",
			"file", cfg.SecretsKey, "key_id", k.ID())
	}
	return k, nil
}
