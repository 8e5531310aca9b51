package attest

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// explain turns a sigstore-go failure into an ErrVerification that says
// which check failed; identity mismatches name the certificate field.
func (c *check) explain(err error) error {
	var noMatch *verify.ErrNoMatchingCertificateIdentity
	if errors.As(err, &noMatch) {
		if reason := c.identityMismatch(); reason != "" {
			return fmt.Errorf("%w: %s", ErrVerification, reason)
		}
	}
	return fmt.Errorf("%w: trusted root %q: %w", ErrVerification, c.domain.name, err)
}

func (c *check) identityMismatch() string {
	vc, err := c.bundle.VerificationContent()
	if err != nil || vc.Certificate() == nil {
		return ""
	}
	sum, err := certificate.SummarizeCertificate(vc.Certificate())
	if err != nil {
		return ""
	}
	reasons := make([]string, len(c.policy.Identities))
	for i, id := range c.policy.Identities {
		reasons[i] = c.policy.mismatch(id, sum)
	}
	if len(reasons) == 1 {
		return reasons[0]
	}
	return "certificate matches none of the policy's identities: " + strings.Join(reasons, "; ")
}

// mismatch names the first certificate field that id (with the policy's
// source repository) rejects.
func (p Policy) mismatch(id Identity, sum certificate.Summary) string {
	checks := []struct{ field, got, exact, pattern string }{
		{"SAN", sum.SubjectAlternativeName, id.SAN, id.SANRegexp},
		{"issuer", sum.Issuer, id.Issuer, id.IssuerRegexp},
		{"source repository", sum.SourceRepositoryURI, p.SourceRepository, ""},
		{"source repository ref", sum.SourceRepositoryRef, p.SourceRepositoryRef, ""},
	}
	for _, ch := range checks {
		if !matches(ch.got, ch.exact, ch.pattern) {
			return fmt.Sprintf("certificate %s %q does not match policy (want %s)", ch.field, ch.got, want(ch.exact, ch.pattern))
		}
	}
	return "certificate identity does not match policy"
}

func matches(got, exact, pattern string) bool {
	if pattern != "" {
		ok, err := regexp.MatchString(pattern, got)
		return err == nil && ok
	}
	return exact == "" || got == exact
}

func want(exact, pattern string) string {
	if pattern != "" {
		return "match for " + pattern
	}
	return fmt.Sprintf("%q", exact)
}
