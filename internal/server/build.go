package server

import (
	"log/slog"

	"github.com/mcpreg/mcpreg/internal/registry"
)

// ServiceOptions verifies cfg and builds every registry option it asks for:
// the logger, limits, scanning, attestation, discovery signing, npm
// integrity and audit checkpoints. `mcpregd serve` and the in-process test
// server both build their service from it, so they cannot drift apart. It
// touches no database, so a bad configuration is refused before the store
// is opened; the caller passes the options to registry.New over the opened
// store.
func ServiceOptions(cfg Config, log *slog.Logger) ([]registry.Option, error) {
	if err := cfg.Verify(); err != nil {
		return nil, err
	}
	limits, err := limitsFrom(cfg)
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
	return []registry.Option{registry.WithLogger(log), registry.WithLimits(limits), registry.WithScanning(scanning),
		registry.WithAttestation(verifier), registry.WithDiscoverySigner(signer), npmIntegrityFrom(cfg),
		registry.WithCheckpoints(checkpointsFrom(cfg, log))}, nil
}
