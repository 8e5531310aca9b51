package hostclient

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/mcpreg/mcpreg/signing"
)

// FetchKeys reads the registry's published discovery keys (current and
// retiring) from /.well-known/mcpreg/discovery-keys.json and returns them by
// key id, each checked to be an Ed25519 key whose id is its signing.KeyID.
//
// This is a convenience for first contact and tooling: the keys come over
// the same connection as the documents, so whoever can forge a document can
// forge the keys too. A host should pin the keys it trusts out of band (a
// PEM file shipped with its configuration, see TrustedKeys).
func (c *Client) FetchKeys(ctx context.Context) (map[string]ed25519.PublicKey, error) {
	api, err := c.api()
	if err != nil {
		return nil, err
	}
	published, err := api.DiscoveryKeys(ctx)
	if err != nil {
		return nil, err
	}
	keys := map[string]ed25519.PublicKey{}
	for i, p := range published {
		pub, err := signing.ParsePublicKey([]byte(p.PublicKeyPEM))
		if err != nil {
			return nil, fmt.Errorf("published key %d (%s): %w", i, p.ID, err)
		}
		if id := signing.KeyID(pub); id != p.ID {
			return nil, fmt.Errorf("published key %d: keyId %q, but the key's id is %q", i, p.ID, id)
		}
		keys[p.ID] = pub
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: the registry publishes none", ErrNoKeys)
	}
	return keys, nil
}

// TrustedKeys reads PKIX PEM Ed25519 public keys (as the registry publishes
// them, one per PEM text) and returns them by key id.
func TrustedKeys(pems ...[]byte) (map[string]ed25519.PublicKey, error) {
	keys := map[string]ed25519.PublicKey{}
	for i, p := range pems {
		pub, err := signing.ParsePublicKey(p)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i+1, err)
		}
		keys[signing.KeyID(pub)] = pub
	}
	if len(keys) == 0 {
		return nil, ErrNoKeys
	}
	return keys, nil
}
