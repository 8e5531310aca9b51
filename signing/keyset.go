package signing

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"
)

// Key statuses in a published key list.
const (
	StatusCurrent  = "current"
	StatusRetiring = "retiring"
)

// KeySet is what a registry publishes: the current signing key and earlier
// keys kept listed until the documents they signed have expired (rotation).
type KeySet struct {
	// Current signs new documents.
	Current *Key
	// Previous are retired keys; each stays listed, and trusted, until its
	// NotAfter (set it to the expiry of the last document it signed). One
	// without NotAfter is never listed.
	Previous []PublishedKey
}

// PublishedKey is one public key in a registry's published key list.
type PublishedKey struct {
	ID           string     `json:"keyId"`
	PublicKeyPEM string     `json:"publicKey"`
	Algorithm    string     `json:"algorithm"` // "ed25519"
	Status       string     `json:"status"`    // "current" | "retiring"
	NotAfter     *time.Time `json:"notAfter,omitempty"`
}

// PublishedKeyFor describes the public half of k, retiring at notAfter (nil:
// the current key). Use it to move a key to KeySet.Previous on rotation.
func PublishedKeyFor(k *Key, notAfter *time.Time) (PublishedKey, error) {
	if err := k.check(); err != nil {
		return PublishedKey{}, err
	}
	if id := KeyID(k.Public()); k.ID != id {
		return PublishedKey{}, failf(ErrInvalidKey, "key id %q, but the key's id is %q", k.ID, id)
	}
	pemBytes, err := MarshalPublicKey(k.Public())
	if err != nil {
		return PublishedKey{}, err
	}
	status := StatusCurrent
	if notAfter != nil {
		status = StatusRetiring
	}
	return PublishedKey{ID: k.ID, PublicKeyPEM: string(pemBytes), Algorithm: Algorithm, Status: status, NotAfter: notAfter}, nil
}

// Published lists the current key, then the previous keys whose NotAfter is
// after now (marked "retiring"). An invalid current key, and a previous key
// repeating an id already listed, are left out; Validate reports them.
func (s *KeySet) Published(now time.Time) []PublishedKey {
	var out []PublishedKey
	seen := map[string]bool{}
	if cur, err := PublishedKeyFor(s.Current, nil); err == nil {
		out = append(out, cur)
		seen[cur.ID] = true
	}
	for _, p := range s.Previous {
		if p.NotAfter == nil || !p.NotAfter.After(now) || seen[p.ID] {
			continue
		}
		p.Algorithm, p.Status = Algorithm, StatusRetiring
		out = append(out, p)
		seen[p.ID] = true
	}
	return out
}

// Trusted maps the ids of Published(now) to their public keys. A listed key
// whose PEM does not parse, or whose id is not KeyID of its key, is left out.
func (s *KeySet) Trusted(now time.Time) map[string]ed25519.PublicKey {
	trusted := map[string]ed25519.PublicKey{}
	for _, p := range s.Published(now) {
		if pub, err := p.publicKey(); err == nil {
			trusted[p.ID] = pub
		}
	}
	return trusted
}

// Validate reports every problem with the set, naming the field: a missing or
// invalid current key, and previous keys that do not parse, carry another id
// than KeyID of their key, have no NotAfter, or repeat an id.
func (s *KeySet) Validate() error {
	var errs []error
	seen := map[string]bool{}
	if _, err := PublishedKeyFor(s.Current, nil); err != nil {
		errs = append(errs, fmt.Errorf("current: %w", err))
	} else {
		seen[s.Current.ID] = true
	}
	for i, p := range s.Previous {
		if err := p.validate(seen); err != nil {
			errs = append(errs, fmt.Errorf("previous[%d]: %w", i, err))
		}
		seen[p.ID] = true
	}
	return errors.Join(errs...)
}

func (p PublishedKey) validate(seen map[string]bool) error {
	if _, err := p.publicKey(); err != nil {
		return err
	}
	switch {
	case p.Algorithm != "" && p.Algorithm != Algorithm:
		return failf(ErrInvalidKey, "algorithm %q, want %q", p.Algorithm, Algorithm)
	case p.NotAfter == nil:
		return failf(ErrInvalidKey, "notAfter is missing: a retiring key must say until when it is listed")
	case seen[p.ID]:
		return failf(ErrInvalidKey, "keyId %q is listed twice", p.ID)
	}
	return nil
}

// publicKey parses the PEM and checks that the id is the key's KeyID.
func (p PublishedKey) publicKey() (ed25519.PublicKey, error) {
	pub, err := ParsePublicKey([]byte(p.PublicKeyPEM))
	if err != nil {
		return nil, fmt.Errorf("publicKey: %w", err)
	}
	if id := KeyID(pub); p.ID != id {
		return nil, failf(ErrInvalidKey, "keyId %q, but the key's id is %q", p.ID, id)
	}
	return pub, nil
}
