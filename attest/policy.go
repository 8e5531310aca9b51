package attest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
)

// Policy says which signers the registry accepts for one server's artifacts.
// It is stored per server as JSON.
type Policy struct {
	// Required makes an attestation a condition of approval. Verify checks
	// the same way either way; the registry fails closed when Required.
	Required bool `json:"required"`
	// TrustedRoot names the trust domain; empty means the verifier's default.
	TrustedRoot string `json:"trustedRoot,omitempty"`
	// Identities are the accepted keyless (Fulcio certificate) signers; a
	// bundle verifies if its certificate matches any one of them.
	Identities []Identity `json:"identities,omitempty"`
	// SourceRepository, if set, must equal the certificate's source
	// repository URI extension, e.g. https://github.com/acme/weather.
	SourceRepository string `json:"sourceRepository,omitempty"`
	// SourceRepositoryRef, if set, must equal the certificate's source
	// repository ref extension, e.g. refs/heads/main.
	SourceRepositoryRef string `json:"sourceRepositoryRef,omitempty"`
	// PublicKeys are accepted signing keys (PKIX PEM) for key-signed bundles.
	PublicKeys []string `json:"publicKeys,omitempty"`
	// PredicateTypes, if set, are the in-toto predicate types accepted in a
	// DSSE bundle, e.g. https://slsa.dev/provenance/v1. They do not apply to
	// message-signature bundles.
	PredicateTypes []string `json:"predicateTypes,omitempty"`
	// AllowUnfetchedDigests lets a required policy count attestations
	// whose artifact digest the registry could not obtain itself
	// (uploaded bytes, PyPI, other types): the owner's word. The registry
	// applies it; Verify does not.
	AllowUnfetchedDigests bool `json:"allowUnfetchedDigests,omitempty"`
}

// Identity is one accepted keyless signer: the OIDC issuer and the
// certificate's subject alternative name, each exact or an anchored regexp.
type Identity struct {
	Issuer       string `json:"issuer,omitempty"`
	IssuerRegexp string `json:"issuerRegexp,omitempty"`
	SAN          string `json:"san,omitempty"`
	SANRegexp    string `json:"sanRegexp,omitempty"`
}

// Validate reports every invalid field, each as a *FieldError wrapping
// ErrPolicy. It does not check that TrustedRoot is loaded: see
// Verifier.CheckPolicy.
func (p Policy) Validate() error {
	errs := []error{p.checkRootName(), p.checkSigners(), p.checkSource()}
	for i, id := range p.Identities {
		errs = append(errs, id.check(fmt.Sprintf("identities[%d]", i)))
	}
	for i, k := range p.PublicKeys {
		if _, err := parsePublicKey(k); err != nil {
			errs = append(errs, fieldErr(fmt.Sprintf("publicKeys[%d]", i), "%v", err))
		}
	}
	for i, t := range p.PredicateTypes {
		if t == "" {
			errs = append(errs, fieldErr(fmt.Sprintf("predicateTypes[%d]", i), "empty"))
		}
	}
	return errors.Join(errs...)
}

func (p Policy) checkRootName() error {
	if p.TrustedRoot != "" && !rootNamePattern.MatchString(p.TrustedRoot) {
		return fieldErr("trustedRoot", "%q is not a trusted root name", p.TrustedRoot)
	}
	return nil
}

func (p Policy) checkSigners() error {
	if p.Required && len(p.Identities) == 0 && len(p.PublicKeys) == 0 {
		return fieldErr("identities", "a required policy needs at least one identity or public key")
	}
	return nil
}

func (p Policy) checkSource() error {
	if p.SourceRepository == "" {
		if p.SourceRepositoryRef != "" {
			return fieldErr("sourceRepositoryRef", "needs sourceRepository")
		}
		return nil
	}
	if len(p.Identities) == 0 {
		return fieldErr("sourceRepository", "applies to keyless identities, and the policy has none")
	}
	u, err := url.Parse(p.SourceRepository)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fieldErr("sourceRepository", "%q is not an absolute URL", p.SourceRepository)
	}
	return nil
}

func (id Identity) check(field string) error {
	return errors.Join(
		checkMatcher(field, "issuer", id.Issuer, id.IssuerRegexp),
		checkMatcher(field, "san", id.SAN, id.SANRegexp),
	)
}

// checkMatcher wants exactly one of an exact value and a regexp.
func checkMatcher(field, name, exact, pattern string) error {
	switch {
	case exact == "" && pattern == "":
		return fieldErr(field+"."+name, "set %s or %sRegexp", name, name)
	case exact != "" && pattern != "":
		return fieldErr(field+"."+name, "set %s or %sRegexp, not both", name, name)
	case pattern != "":
		if err := checkAnchored(pattern); err != nil {
			return fieldErr(field+"."+name+"Regexp", "%v", err)
		}
	}
	return nil
}

// Digest is "sha256:<hex>" of the policy's JSON encoding: receipts record it
// so a stored receipt can be matched to the policy version it satisfied.
func (p Policy) Digest() string {
	data, _ := json.Marshal(p) // a struct of strings and bools always encodes
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
