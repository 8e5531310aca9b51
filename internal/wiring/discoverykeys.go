package wiring

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/signing"
)

// DiscoverySignerFrom loads the registry's discovery signing key, creating
// it (mode 0600) when the file does not exist yet, so a first `serve`
// needs no set-up; replicas share one key file. Previous keys stay listed
// as retiring for one document lifetime after this start, long enough
// for every document they signed to expire.
func DiscoverySignerFrom(cfg config.Config, log *slog.Logger) (*registry.DiscoverySigner, error) {
	if cfg.DiscoveryKey == "" {
		return nil, errors.New("--discovery-key: a key file is required")
	}
	key, err := signing.LoadKeyFile(cfg.DiscoveryKey)
	if errors.Is(err, fs.ErrNotExist) {
		if key, err = signing.GenerateKey(); err != nil {
			return nil, err
		}
		if err := signing.WriteKeyFile(cfg.DiscoveryKey, key); err != nil {
			return nil, fmt.Errorf("--discovery-key: %w", err)
		}
		log.Warn("created a discovery signing key; give hosts its public key, and every replica this file",
			"file", cfg.DiscoveryKey, "key_id", key.ID)
	} else if err != nil {
		return nil, fmt.Errorf("--discovery-key: %w", err)
	}
	set := &signing.KeySet{Current: key}
	until := time.Now().UTC().Add(cfg.DiscoveryTTL)
	for _, path := range cfg.DiscoveryPreviousKeys {
		pub, err := previousKey(path)
		if err != nil {
			return nil, fmt.Errorf("--discovery-previous-key %s: %w", path, err)
		}
		pemBytes, err := signing.MarshalPublicKey(pub)
		if err != nil {
			return nil, fmt.Errorf("--discovery-previous-key %s: %w", path, err)
		}
		set.Previous = append(set.Previous, signing.PublishedKey{ID: signing.KeyID(pub), PublicKeyPEM: string(pemBytes),
			Algorithm: signing.Algorithm, Status: signing.StatusRetiring, NotAfter: &until})
	}
	if err := set.Validate(); err != nil {
		return nil, fmt.Errorf("discovery keys: %w", err)
	}
	return &registry.DiscoverySigner{Keys: set, TTL: cfg.DiscoveryTTL}, nil
}

// previousKey reads a retired key file: public PEM, or the old private key.
func previousKey(path string) (ed25519.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return signing.ParseAnyPublicKey(data)
}
