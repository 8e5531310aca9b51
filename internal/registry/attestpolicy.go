package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/ent"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// WithAttestation sets the verifier of attestations: its trusted roots are
// the trust domains policies may name. Without it the service trusts only
// the embedded public-good root.
func WithAttestation(v *attest.Verifier) Option { return func(s *settings) { s.verifier = v } }

func (s *Attestations) defaultVerifier() error {
	if s.verifier != nil {
		return nil
	}
	roots, err := attest.NewTrustedRoots(map[string][]byte{attest.PublicGood: attest.PublicGoodTrustedRoot()})
	if err != nil {
		return fmt.Errorf("attestation: %w", err)
	}
	s.verifier, err = attest.NewVerifier(roots, attest.Config{})
	return err
}

// checkAttestPolicy validates an attestation policy before it is stored:
// anchored regexps, a loaded trusted root, at least one signer. Errors are
// ErrInvalid naming the field under policy.attestation.
func (s *Attestations) checkAttestPolicy(p *attest.Policy) error {
	if p == nil {
		return nil
	}
	var errs []error
	if len(p.Identities) == 0 && len(p.PublicKeys) == 0 {
		errs = append(errs, fmt.Errorf("policy.attestation.identities: the policy accepts no signer: set identities or publicKeys"))
	}
	if err := s.verifier.CheckPolicy(*p); err != nil {
		errs = append(errs, attestPolicyErrors(err)...)
	}
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return invalidf("%s", strings.Join(msgs, "; "))
}

// attestPolicyErrors names each problem's field under policy.attestation.
func attestPolicyErrors(err error) []error {
	var leaves []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		leaves = j.Unwrap()
	} else {
		leaves = []error{err}
	}
	out := make([]error, 0, len(leaves))
	for _, e := range leaves {
		var fe *attest.FieldError
		switch {
		case errors.As(e, &fe):
			out = append(out, fmt.Errorf("policy.attestation.%s: %s", fe.Field, fe.Problem))
		case errors.Is(e, attest.ErrUnknownRoot):
			out = append(out, fmt.Errorf("policy.attestation.trustedRoot: %w", e))
		default:
			out = append(out, fmt.Errorf("policy.attestation: %w", e))
		}
	}
	return out
}

// AttestPolicyFromProto reads an attestation policy from the API; nil means
// none.
func AttestPolicyFromProto(p *mcpregv1.AttestationPolicy) *attest.Policy {
	if p == nil {
		return nil
	}
	out := &attest.Policy{Required: p.GetRequired(), TrustedRoot: p.GetTrustedRoot(),
		SourceRepository: p.GetSourceRepository(), SourceRepositoryRef: p.GetSourceRepositoryRef(),
		PublicKeys: p.GetPublicKeys(), PredicateTypes: p.GetPredicateTypes(), AllowUnfetchedDigests: p.GetAllowUnfetchedDigests()}
	for _, id := range p.GetIdentities() {
		out.Identities = append(out.Identities, attest.Identity{Issuer: id.GetIssuer(), IssuerRegexp: id.GetIssuerRegexp(),
			SAN: id.GetSan(), SANRegexp: id.GetSanRegexp()})
	}
	return out
}

func attestPolicyProto(p *attest.Policy) *mcpregv1.AttestationPolicy {
	if p == nil {
		return nil
	}
	out := &mcpregv1.AttestationPolicy{Required: p.Required, TrustedRoot: p.TrustedRoot,
		SourceRepository: p.SourceRepository, SourceRepositoryRef: p.SourceRepositoryRef,
		PublicKeys: p.PublicKeys, PredicateTypes: p.PredicateTypes, AllowUnfetchedDigests: p.AllowUnfetchedDigests}
	for _, id := range p.Identities {
		out.Identities = append(out.Identities, &mcpregv1.AttestationIdentity{Issuer: id.Issuer, IssuerRegexp: id.IssuerRegexp,
			San: id.SAN, SanRegexp: id.SANRegexp})
	}
	return out
}

// storedAttestPolicy decodes the stored attest.Policy JSON (nil: none).
func storedAttestPolicy(p *ent.ServerPolicy) (*attest.Policy, error) {
	if p == nil {
		return nil, nil
	}
	return decodeAttestPolicy(p.ServerID, p.Attestation)
}

// decodeAttestPolicy reads a server's stored attest.Policy JSON (nil: none).
func decodeAttestPolicy(serverID int, data []byte) (*attest.Policy, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var out attest.Policy
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("stored attestation policy of server %d: %w", serverID, err)
	}
	return &out, nil
}

func attestPolicyJSON(p *attest.Policy) []byte {
	if p == nil {
		return nil
	}
	data, _ := json.Marshal(p) // strings and bools always encode
	return data
}

func attestPolicyText(p *attest.Policy) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf(" attestation=%s required=%t", p.Digest(), p.Required)
}
