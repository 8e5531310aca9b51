package signing

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
)

const (
	// Algorithm names the signature algorithm of every key in this package.
	Algorithm = "ed25519"
	// keyIDBytes is how many bytes of the SHA-256 fingerprint a key id keeps.
	keyIDBytes = 16

	privatePEMType = "PRIVATE KEY"
	publicPEMType  = "PUBLIC KEY"
)

// Key is an Ed25519 signing key with its key id.
type Key struct {
	// ID is KeyID of the public key; signatures carry it as their keyid.
	ID string
	// Private is the Ed25519 private key.
	Private ed25519.PrivateKey
}

// Public returns the public half of k.
func (k *Key) Public() ed25519.PublicKey {
	return k.Private.Public().(ed25519.PublicKey)
}

// KeyID is "ed25519:" followed by the hex of the first 16 bytes of the
// SHA-256 of pub's PKIX DER encoding: 32 hex characters. It depends only on
// the key, so it is stable across files, hosts and releases.
func KeyID(pub ed25519.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		// MarshalPKIXPublicKey cannot fail for an ed25519.PublicKey.
		panic(fmt.Sprintf("signing: marshal Ed25519 public key: %v", err))
	}
	sum := sha256.Sum256(der)
	return Algorithm + ":" + hex.EncodeToString(sum[:keyIDBytes])
}

// GenerateKey makes a new random Ed25519 key.
func GenerateKey() (*Key, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate Ed25519 key: %w", err)
	}
	return newKey(priv), nil
}

func newKey(priv ed25519.PrivateKey) *Key {
	return &Key{ID: KeyID(priv.Public().(ed25519.PublicKey)), Private: priv}
}

// check says whether k can sign: present, of the right size, with an id.
func (k *Key) check() error {
	switch {
	case k == nil:
		return failf(ErrInvalidKey, "no key")
	case len(k.Private) != ed25519.PrivateKeySize:
		return failf(ErrInvalidKey, "private key is %d bytes, want %d", len(k.Private), ed25519.PrivateKeySize)
	case k.ID == "":
		return failf(ErrInvalidKey, "key has no id")
	}
	return nil
}

// MarshalPrivateKey encodes k's private key as PKCS#8 PEM ("PRIVATE KEY").
func MarshalPrivateKey(k *Key) ([]byte, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k.Private)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: privatePEMType, Bytes: der}), nil
}

// ParsePrivateKey reads one PKCS#8 PEM Ed25519 private key, as
// MarshalPrivateKey writes it. Anything else (another algorithm, a PKCS#1 or
// SEC 1 block, encrypted PEM, text around the block) is refused.
func ParsePrivateKey(pemBytes []byte) (*Key, error) {
	der, err := decodePEM(pemBytes, privatePEMType)
	if err != nil {
		return nil, err
	}
	key, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, failf(ErrInvalidKey, "not a PKCS#8 private key: %v", err)
	}
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, failf(ErrInvalidKey, "private key is %s, want Ed25519", keyKind(key))
	}
	return newKey(priv), nil
}

// MarshalPublicKey encodes pub as PKIX PEM ("PUBLIC KEY").
func MarshalPublicKey(pub ed25519.PublicKey) ([]byte, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, failf(ErrInvalidKey, "public key is %d bytes, want %d", len(pub), ed25519.PublicKeySize)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: publicPEMType, Bytes: der}), nil
}

// ParsePublicKey reads one PKIX PEM Ed25519 public key, as MarshalPublicKey
// writes it; other algorithms are refused.
func ParsePublicKey(pemBytes []byte) (ed25519.PublicKey, error) {
	der, err := decodePEM(pemBytes, publicPEMType)
	if err != nil {
		return nil, err
	}
	key, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, failf(ErrInvalidKey, "not a PKIX public key: %v", err)
	}
	pub, ok := key.(ed25519.PublicKey)
	if !ok {
		return nil, failf(ErrInvalidKey, "public key is %s, want Ed25519", keyKind(key))
	}
	return pub, nil
}

// ParseAnyPublicKey reads a PEM Ed25519 public key, or the public half of a
// PEM Ed25519 private key (a retired signing key file, say).
func ParseAnyPublicKey(pemBytes []byte) (ed25519.PublicKey, error) {
	if pub, err := ParsePublicKey(pemBytes); err == nil {
		return pub, nil
	}
	k, err := ParsePrivateKey(pemBytes)
	if err != nil {
		return nil, failf(ErrInvalidKey, "not an Ed25519 public or private key in PEM")
	}
	return k.Public(), nil
}

// decodePEM returns the bytes of the one PEM block of type want that makes up
// data, apart from surrounding white space.
func decodePEM(data []byte, want string) ([]byte, error) {
	data = bytes.TrimSpace(data)
	if !bytes.HasPrefix(data, []byte("-----BEGIN ")) {
		return nil, failf(ErrInvalidKey, "not PEM: want a %q block", want)
	}
	block, rest := pem.Decode(data)
	switch {
	case block == nil:
		return nil, failf(ErrInvalidKey, "not PEM: want a %q block", want)
	case block.Type != want:
		return nil, failf(ErrInvalidKey, "PEM block is %q, want %q", block.Type, want)
	case len(block.Headers) != 0:
		return nil, failf(ErrInvalidKey, "PEM block has headers (encrypted keys are not supported)")
	case len(rest) != 0:
		return nil, failf(ErrInvalidKey, "data after the %q PEM block", want)
	}
	return block.Bytes, nil
}

// keyKind names the algorithm of a parsed key for error messages.
func keyKind(key any) string {
	switch key.(type) {
	case *rsa.PrivateKey, *rsa.PublicKey:
		return "RSA"
	case *ecdsa.PrivateKey, *ecdsa.PublicKey:
		return "ECDSA"
	case *ecdh.PrivateKey, *ecdh.PublicKey:
		return "X25519 (ECDH)"
	}
	return fmt.Sprintf("%T", key)
}
