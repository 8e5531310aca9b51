package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/attest"
)

// errNoPolicy is the stored error of a bundle kept for a server that has no
// attestation policy: nothing says whose signature to accept.
const errNoPolicy = "unverified: the server has no attestation policy"

// verification is one check of a bundle: a receipt, or why it failed.
type verification struct {
	verified     bool
	receipt      *attest.Receipt
	receiptJSON  []byte
	err          string
	policyDigest string
	checkedAt    time.Time
}

// verifyBundle is the one code path every verification takes: submissions,
// AddAttestation, VerifyAttestation, approval and re-verification. Errors
// are about the request (oversized or malformed bundle, unusable digest)
// and map to ErrTooLarge or ErrInvalid; a bundle that reads but does not
// verify, or a stored policy that cannot be used, is a failed verification.
func (s *Attestations) verifyBundle(raw []byte, a attest.Artifact, p *attest.Policy) (verification, error) {
	out := verification{checkedAt: s.now()}
	if p == nil {
		out.err = errNoPolicy
		return out, readBundle(raw)
	}
	out.policyDigest = p.Digest()
	r, err := s.verifier.Verify(raw, a, *p)
	switch {
	case err == nil:
	case errors.Is(err, attest.ErrTooLarge):
		return out, fmt.Errorf("%w: bundle: %w", ErrTooLarge, err)
	case errors.Is(err, attest.ErrInvalidBundle):
		return out, invalidf("not a sigstore bundle: %v", err)
	case errors.Is(err, attest.ErrInvalidArtifact):
		return out, invalidf("%v", err)
	default: // ErrVerification; ErrPolicy or ErrUnknownRoot of a stored policy
		out.err = err.Error()
		return out, nil
	}
	data, err := json.Marshal(r)
	if err != nil {
		return out, fmt.Errorf("encoding receipt: %w", err)
	}
	out.verified, out.receipt, out.receiptJSON = true, r, data
	return out, nil
}

// atField puts a field name after an error's sentinel, so the message
// reads "FIELD: problem" once the transport strips the sentinel.
func atField(field string, err error) error {
	for _, sentinel := range []error{ErrInvalid, ErrTooLarge} {
		if errors.Is(err, sentinel) {
			return fmt.Errorf("%w: %s: %s", sentinel, field, strings.TrimPrefix(err.Error(), sentinel.Error()+": "))
		}
	}
	return err
}

func sha256Text(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
