package attest

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

type signerKind int

const (
	signedByCertificate signerKind = iota + 1
	signedByKey
)

// classify finds how the bundle was signed and checks that the policy has
// signers of that kind.
func (c *check) classify() error {
	vc, err := c.bundle.VerificationContent()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidBundle, err)
	}
	switch {
	case vc.Certificate() != nil:
		c.signer = signedByCertificate
		if len(c.policy.Identities) == 0 {
			return failf(ErrVerification, "bundle is signed with a certificate, and the policy accepts no certificate identity (only public keys)")
		}
	case vc.PublicKey() != nil:
		c.signer = signedByKey
		if len(c.policy.PublicKeys) == 0 {
			return failf(ErrVerification, "bundle is signed with a public key, and the policy accepts no public key (only certificate identities)")
		}
	default:
		return failf(ErrInvalidBundle, "bundle has neither a certificate nor a public key")
	}
	return c.parseKeys()
}

func (c *check) parseKeys() error {
	for _, k := range c.policy.PublicKeys {
		pk, err := parsePublicKey(k) // already validated
		if err != nil {
			return err
		}
		c.keys = append(c.keys, pk)
	}
	return nil
}

// verifierOptions decides what the bundle must prove, as sigstore-go's
// conformance client does: SCTs for certificates when the root has CT logs;
// RFC 3161 timestamps when the root has TSAs and the bundle carries any; a
// transparency log entry when the root has logs, and its integrated time
// when the bundle has an inclusion promise (Rekor v1 SET). sigstore-go then
// insists on at least one verified time source.
func verifierOptions(b *bundle.Bundle, tm root.TrustedMaterial, keyless bool) ([]verify.VerifierOption, error) {
	opts := []verify.VerifierOption{verify.WithoutStatementPredicate()}
	if keyless && len(tm.CTLogs()) > 0 {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	ts, err := b.Timestamps()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidBundle, err)
	}
	if len(tm.TimestampingAuthorities()) > 0 && len(ts) > 0 {
		opts = append(opts, verify.WithSignedTimestamps(1))
	}
	if len(tm.RekorLogs()) > 0 {
		opts = append(opts, verify.WithTransparencyLog(1))
		if b.HasInclusionPromise() {
			opts = append(opts, verify.WithIntegratedTimestamps(1))
		}
	}
	return opts, nil
}

// options are the sigstore-go verifier options for this bundle and root;
// they do not depend on the policy key, which only adds trusted material.
func (c *check) options() ([]verify.VerifierOption, error) {
	opts, err := verifierOptions(c.bundle, c.domain.material, c.signer == signedByCertificate)
	if err != nil {
		return nil, err
	}
	if _, err := verify.NewVerifier(c.domain.material, opts...); err != nil {
		return nil, failf(ErrVerification, "bundle has no time source trusted root %q can check: no RFC 3161 timestamp from its TSAs, no entry in its transparency logs", c.domain.name)
	}
	return opts, nil
}

func (c *check) artifactOption() verify.ArtifactPolicyOption {
	if c.artifact.isData {
		return verify.WithArtifact(bytes.NewReader(c.artifact.data))
	}
	return verify.WithArtifactDigest(c.artifact.digest.Algorithm, c.artifact.digest.bytes())
}

func (c *check) runKeyless(opts []verify.VerifierOption) (*verify.VerificationResult, error) {
	sv, err := verify.NewVerifier(c.domain.material, opts...)
	if err != nil {
		return nil, failf(ErrVerification, "%v", err)
	}
	ids, err := c.policy.certificateIdentities()
	if err != nil {
		return nil, err
	}
	idOpts := make([]verify.PolicyOption, len(ids))
	for i, id := range ids {
		idOpts[i] = verify.WithCertificateIdentity(id)
	}
	res, err := sv.Verify(c.bundle, verify.NewPolicy(c.artifactOption(), idOpts...))
	if err != nil {
		return nil, c.explain(err)
	}
	return res, nil
}

// runKeys tries each policy key in turn; the first that verifies wins.
func (c *check) runKeys(opts []verify.VerifierOption) (*verify.VerificationResult, error) {
	failures := make([]string, 0, len(c.keys))
	for i := range c.keys {
		res, err := c.runKey(&c.keys[i], opts)
		if err == nil {
			c.matched = &c.keys[i]
			return res, nil
		}
		failures = append(failures, fmt.Sprintf("key %s: %v", c.keys[i].fingerprint, err))
	}
	return nil, failf(ErrVerification, "trusted root %q: no policy key verifies the bundle: %s",
		c.domain.name, strings.Join(failures, "; "))
}

func (c *check) runKey(k *policyKey, opts []verify.VerifierOption) (*verify.VerificationResult, error) {
	sv, err := verify.NewVerifier(root.TrustedMaterialCollection{k.material(), c.domain.material}, opts...)
	if err != nil {
		return nil, err
	}
	return sv.Verify(c.bundle, verify.NewPolicy(c.artifactOption(), verify.WithKey()))
}

// certificateIdentities turns a validated policy into sigstore-go matchers.
func (p Policy) certificateIdentities() ([]verify.CertificateIdentity, error) {
	ext := certificate.Extensions{SourceRepositoryURI: p.SourceRepository, SourceRepositoryRef: p.SourceRepositoryRef}
	ids := make([]verify.CertificateIdentity, len(p.Identities))
	for i, id := range p.Identities {
		san, err := verify.NewSANMatcher(id.SAN, id.SANRegexp)
		if err != nil {
			return nil, fieldErr(fmt.Sprintf("identities[%d].sanRegexp", i), "%v", err)
		}
		iss, err := verify.NewIssuerMatcher(id.Issuer, id.IssuerRegexp)
		if err != nil {
			return nil, fieldErr(fmt.Sprintf("identities[%d].issuerRegexp", i), "%v", err)
		}
		if ids[i], err = verify.NewCertificateIdentity(san, iss, ext); err != nil {
			return nil, fieldErr(fmt.Sprintf("identities[%d]", i), "%v", err)
		}
	}
	return ids, nil
}
