package attest

import (
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// policyKey is one parsed policy public key.
type policyKey struct {
	verifier    signature.Verifier
	fingerprint string
}

// parsePublicKey reads one PKIX PEM public key of a kind sigstore signs with
// (ECDSA, RSA, Ed25519).
func parsePublicKey(pemText string) (policyKey, error) {
	pub, err := cryptoutils.UnmarshalPEMToPublicKey([]byte(pemText))
	if err != nil {
		return policyKey{}, errors.New("not a PEM public key")
	}
	v, err := signature.LoadDefaultVerifier(pub)
	if err != nil {
		return policyKey{}, err
	}
	fp, err := keyFingerprint(pub)
	if err != nil {
		return policyKey{}, err
	}
	return policyKey{verifier: v, fingerprint: fp}, nil
}

// PublicKeyFingerprint is "sha256:<hex>" of a PEM public key's DER (PKIX)
// encoding, as receipts record the key that verified.
func PublicKeyFingerprint(pemText string) (string, error) {
	k, err := parsePublicKey(pemText)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrPolicy, err)
	}
	return k.fingerprint, nil
}

func keyFingerprint(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// material makes the key trusted whatever the bundle's key hint says, with
// no validity window: the policy, not the bundle, says which key to use.
func (k policyKey) material() root.TrustedMaterial {
	key := root.NewExpiringKey(k.verifier, time.Time{}, time.Time{})
	return root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
		return key, nil
	})
}
