package attest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// Receipt records one successful verification: what was verified, who
// signed it, what proved when, and the policy it satisfied. The registry
// stores it as JSON and returns it from the API.
type Receipt struct {
	VerifiedAt      time.Time `json:"verifiedAt"`
	BundleMediaType string    `json:"bundleMediaType"`
	// BundleDigest is "sha256:<hex>" of the bundle JSON as given.
	BundleDigest string `json:"bundleDigest"`
	// Content is "messageSignature" or "dsse".
	Content string `json:"content"`
	// ArtifactDigest is "<algorithm>:<hex>": as given, or the sha256 of the
	// artifact's bytes.
	ArtifactDigest          string `json:"artifactDigest"`
	ArtifactDigestAlgorithm string `json:"artifactDigestAlgorithm"`
	// Identity is the certificate signer (keyless bundles).
	Identity *SignerIdentity `json:"identity,omitempty"`
	// KeyFingerprint is "sha256:<hex>" of the DER public key (key-signed bundles).
	KeyFingerprint string `json:"keyFingerprint,omitempty"`
	// TlogEntries are the bundle's entries in the trusted root's logs.
	TlogEntries []TlogEntry `json:"tlogEntries,omitempty"`
	// Timestamps are the verified times the signature was observed.
	Timestamps []ObservedTime `json:"timestamps,omitempty"`
	// Statement summarises a DSSE bundle's in-toto statement.
	Statement *Statement  `json:"statement,omitempty"`
	Policy    PolicyCheck `json:"policy"`
	// Sigstore is sigstore-go's VerificationResult (predicate omitted).
	Sigstore json.RawMessage `json:"sigstore"`
}

// SignerIdentity is the signer named by a Fulcio certificate and its
// extensions (empty when the certificate lacks them).
type SignerIdentity struct {
	Issuer                 string `json:"issuer"`
	SAN                    string `json:"san"`
	SourceRepositoryURI    string `json:"sourceRepositoryURI,omitempty"`
	SourceRepositoryRef    string `json:"sourceRepositoryRef,omitempty"`
	SourceRepositoryDigest string `json:"sourceRepositoryDigest,omitempty"`
	BuildSignerURI         string `json:"buildSignerURI,omitempty"`
	BuildSignerDigest      string `json:"buildSignerDigest,omitempty"`
	RunnerEnvironment      string `json:"runnerEnvironment,omitempty"`
	// CertificateIssuer is the X.509 issuer (the CA), not the OIDC issuer.
	CertificateIssuer string `json:"certificateIssuer,omitempty"`
}

// TlogEntry is one transparency log entry of the bundle.
type TlogEntry struct {
	LogIndex int64 `json:"logIndex"`
	// LogID is the hex key id of the log.
	LogID string `json:"logId"`
	// Kind is the entry type and version, e.g. "hashedrekord/0.0.1".
	Kind string `json:"kind"`
	// IntegratedTime is the log's time for the entry (Rekor v1 only).
	IntegratedTime *time.Time `json:"integratedTime,omitempty"`
}

// ObservedTime is a verified time the signature existed at.
type ObservedTime struct {
	// Source is "tlog" (a log's integrated time) or "tsa" (RFC 3161).
	Source string    `json:"source"`
	URI    string    `json:"uri,omitempty"`
	Time   time.Time `json:"time"`
}

// Statement summarises an in-toto statement.
type Statement struct {
	Type          string    `json:"type"`
	PredicateType string    `json:"predicateType"`
	Subjects      []Subject `json:"subjects"`
}

// Subject is one in-toto subject: a name and its digests by algorithm.
type Subject struct {
	Name   string            `json:"name,omitempty"`
	Digest map[string]string `json:"digest"`
}

// PolicyCheck is what the bundle was checked against.
type PolicyCheck struct {
	// Digest is Policy.Digest() of Policy, the policy as given.
	Digest string `json:"digest"`
	// TrustedRoot is the trust domain used (the default if Policy names none).
	TrustedRoot       string `json:"trustedRoot"`
	TrustedRootDigest string `json:"trustedRootDigest"`
	Policy            Policy `json:"policy"`
}

func (c *check) receipt(res *verify.VerificationResult, now time.Time) (*Receipt, error) {
	sigstoreJSON, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encoding sigstore result: %w", err)
	}
	sum := sha256.Sum256(c.raw)
	d := c.artifact.Digest()
	r := &Receipt{
		VerifiedAt:              now.UTC(),
		BundleMediaType:         c.bundle.MediaType,
		BundleDigest:            "sha256:" + hex.EncodeToString(sum[:]),
		Content:                 contentKind(res),
		ArtifactDigest:          d.String(),
		ArtifactDigestAlgorithm: d.Algorithm,
		TlogEntries:             c.tlogEntries(),
		Timestamps:              observedTimes(res.VerifiedTimestamps),
		Statement:               statementOf(res),
		Policy:                  c.policyCheck(),
		Sigstore:                sigstoreJSON,
	}
	c.addSigner(r, res)
	return r, nil
}

func contentKind(res *verify.VerificationResult) string {
	if res.Statement != nil {
		return "dsse"
	}
	return "messageSignature"
}

func (c *check) addSigner(r *Receipt, res *verify.VerificationResult) {
	if c.matched != nil {
		r.KeyFingerprint = c.matched.fingerprint
	}
	if res.Signature != nil && res.Signature.Certificate != nil {
		r.Identity = signerIdentity(res.Signature.Certificate)
	}
}

func signerIdentity(s *certificate.Summary) *SignerIdentity {
	return &SignerIdentity{
		Issuer:                 s.Issuer,
		SAN:                    s.SubjectAlternativeName,
		SourceRepositoryURI:    s.SourceRepositoryURI,
		SourceRepositoryRef:    s.SourceRepositoryRef,
		SourceRepositoryDigest: s.SourceRepositoryDigest,
		BuildSignerURI:         s.BuildSignerURI,
		BuildSignerDigest:      s.BuildSignerDigest,
		RunnerEnvironment:      s.RunnerEnvironment,
		CertificateIssuer:      s.CertificateIssuer,
	}
}

func (c *check) policyCheck() PolicyCheck {
	return PolicyCheck{
		Digest:            c.policy.Digest(),
		TrustedRoot:       c.domain.name,
		TrustedRootDigest: c.domain.digest,
		Policy:            c.policy,
	}
}
