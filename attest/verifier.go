package attest

import (
	"errors"
	"fmt"
	"time"

	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// DefaultMaxBundleBytes caps a bundle's JSON when Config sets no limit.
// Real bundles are a few KiB (npm provenance about 10 KiB).
const DefaultMaxBundleBytes = 1 << 20

// Config tunes a Verifier. The zero value is usable.
type Config struct {
	// DefaultRoot is the trust domain of policies that name none
	// (default PublicGood). It must be loaded.
	DefaultRoot string
	// MaxBundleBytes caps the bundle JSON (default DefaultMaxBundleBytes).
	MaxBundleBytes int
	// Now is the clock for Receipt.VerifiedAt (default time.Now). Signatures
	// are checked at the times the bundle's logs and timestamps prove, never
	// at Now.
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	if c.DefaultRoot == "" {
		c.DefaultRoot = PublicGood
	}
	if c.MaxBundleBytes <= 0 {
		c.MaxBundleBytes = DefaultMaxBundleBytes
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Verifier checks sigstore bundles against policies, offline. It is safe
// for concurrent use.
type Verifier struct {
	roots *TrustedRoots
	cfg   Config
}

// NewVerifier returns a Verifier over roots. The default root must be loaded.
func NewVerifier(roots *TrustedRoots, cfg Config) (*Verifier, error) {
	if roots == nil {
		return nil, fmt.Errorf("%w: no trusted roots", ErrUnknownRoot)
	}
	cfg = cfg.withDefaults()
	if _, err := roots.get(cfg.DefaultRoot); err != nil {
		return nil, fmt.Errorf("default trusted root: %w", err)
	}
	return &Verifier{roots: roots, cfg: cfg}, nil
}

// CheckPolicy validates p and checks that its trusted root is loaded: what
// the registry should run before storing a policy.
func (v *Verifier) CheckPolicy(p Policy) error {
	if err := p.Validate(); err != nil {
		return err
	}
	_, err := v.domain(p)
	return err
}

func (v *Verifier) domain(p Policy) (*trustDomain, error) {
	if p.TrustedRoot == "" {
		return v.roots.get(v.cfg.DefaultRoot)
	}
	return v.roots.get(p.TrustedRoot)
}

// Verify checks that bundleJSON (a sigstore bundle v0.1 to v0.3, message
// signature or DSSE) is about artifact and was signed by a signer p accepts,
// under p's trusted root. On success it returns the receipt to store. Every
// error wraps one of ErrTooLarge, ErrPolicy, ErrUnknownRoot,
// ErrInvalidArtifact, ErrInvalidBundle or ErrVerification.
func (v *Verifier) Verify(bundleJSON []byte, artifact Artifact, p Policy) (*Receipt, error) {
	c, err := v.prepare(bundleJSON, artifact, p)
	if err != nil {
		return nil, err
	}
	if err := c.precheck(); err != nil {
		return nil, err
	}
	result, err := c.run()
	if err != nil {
		return nil, err
	}
	if err := c.checkPredicate(result); err != nil {
		return nil, err
	}
	if st := statementOf(result); st != nil {
		if err := c.checkPackage(st.Subjects); err != nil {
			return nil, err
		}
	}
	return c.receipt(result, v.cfg.Now())
}

// check is one verification in progress.
type check struct {
	raw      []byte
	bundle   *bundle.Bundle
	artifact Artifact
	policy   Policy
	domain   *trustDomain
	signer   signerKind
	keys     []policyKey
	matched  *policyKey // the key that verified, for key-signed bundles
}

// logEntries are the bundle's transparency log entries as carried, already
// checked for shape by bundle parsing; reading them here needs no second
// parse of the log entry bodies.
func (c *check) logEntries() []*protorekor.TransparencyLogEntry {
	return c.bundle.GetVerificationMaterial().GetTlogEntries()
}

func (v *Verifier) prepare(raw []byte, artifact Artifact, p Policy) (*check, error) {
	domain, err := v.checkRequest(raw, artifact, p)
	if err != nil {
		return nil, err
	}
	b, err := parseBundle(raw)
	if err != nil {
		return nil, err
	}
	c := &check{raw: raw, bundle: b, artifact: artifact, policy: p, domain: domain}
	return c, c.classify()
}

// checkRequest checks everything but the bundle's content: its size, the
// policy, the policy's trusted root and the artifact.
func (v *Verifier) checkRequest(raw []byte, artifact Artifact, p Policy) (*trustDomain, error) {
	if len(raw) > v.cfg.MaxBundleBytes {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(raw), v.cfg.MaxBundleBytes)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(p.Identities) == 0 && len(p.PublicKeys) == 0 {
		return nil, fieldErr("identities", "the policy accepts no signer: set identities or publicKeys")
	}
	domain, err := v.domain(p)
	if err != nil {
		return nil, err
	}
	return domain, artifact.check()
}

// parseBundle reads a sigstore bundle; sigstore-go checks its media type,
// version and required parts.
func parseBundle(raw []byte) (*bundle.Bundle, error) {
	var b bundle.Bundle
	if err := b.UnmarshalJSON(raw); err != nil {
		if errors.Is(err, bundle.ErrUnsupportedMediaType) {
			return nil, fmt.Errorf("%w: unsupported media type or version: %w", ErrInvalidBundle, err)
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidBundle, err)
	}
	return &b, nil
}

// run verifies with sigstore-go: keyless against the policy identities, or
// key-signed with the policy keys.
func (c *check) run() (*verify.VerificationResult, error) {
	opts, err := c.options()
	if err != nil {
		return nil, err
	}
	if c.signer == signedByCertificate {
		return c.runKeyless(opts)
	}
	return c.runKeys(opts)
}
