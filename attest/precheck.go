package attest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/verify"
)

// precheck looks for the common, specific reasons a bundle will fail (its
// log entries are from another deployment; it signs another artifact), so
// they are reported as such rather than as a bad signature. sigstore-go
// repeats these checks on authenticated data; precheck only shapes the
// message, never accepts anything.
func (c *check) precheck() error {
	sc, err := c.bundle.SignatureContent()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidBundle, err)
	}
	if err := c.checkLogs(); err != nil {
		return err
	}
	if msg := sc.MessageSignatureContent(); msg != nil {
		return c.checkMessageDigest(msg)
	}
	return c.checkSubjects(sc.EnvelopeContent())
}

// checkLogs names the usual reason a bundle from another sigstore
// deployment fails: none of its log entries is from a log the root lists.
func (c *check) checkLogs() error {
	logs := c.domain.material.RekorLogs()
	if len(logs) == 0 {
		return nil
	}
	entries := c.logEntries()
	if len(entries) == 0 {
		return failf(ErrVerification, "bundle has no transparency log entry, and trusted root %q requires one", c.domain.name)
	}
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		id := hex.EncodeToString(e.GetLogId().GetKeyId())
		if _, ok := logs[id]; ok {
			return nil
		}
		ids = append(ids, id)
	}
	return failf(ErrVerification, "bundle's transparency log entries are from logs trusted root %q does not list (log ids %s): signed with another sigstore instance?",
		c.domain.name, strings.Join(ids, ", "))
}

var protoHashNames = map[string]string{"SHA2_256": SHA256, "SHA2_384": SHA384, "SHA2_512": SHA512}

func (c *check) checkMessageDigest(msg verify.MessageSignatureContent) error {
	alg, ok := protoHashNames[msg.DigestAlgorithm()]
	if !ok {
		return failf(ErrInvalidBundle, "message digest algorithm %q is not supported", msg.DigestAlgorithm())
	}
	got, ok := c.artifact.digestIn(alg)
	if !ok {
		return failf(ErrVerification, "artifact digest does not match: the bundle signs a %s digest and the artifact was given as %s; give the artifact itself or its %s digest",
			alg, c.artifact.digest.Algorithm, alg)
	}
	if !bytes.Equal(got, msg.Digest()) {
		return failf(ErrVerification, "artifact digest does not match: artifact %s:%s, bundle signs %s:%s",
			alg, hex.EncodeToString(got), alg, hex.EncodeToString(msg.Digest()))
	}
	return nil
}

// checkSubjects wants one statement subject to carry the artifact's digest.
// An envelope that is not an in-toto statement is left to sigstore-go.
func (c *check) checkSubjects(env verify.EnvelopeContent) error {
	subjects, ok := statementSubjects(env)
	if !ok {
		return nil
	}
	var seen []string
	anyComparable := false
	for _, s := range subjects {
		for alg, hx := range s.Digest {
			got, ok := c.artifact.digestIn(alg)
			if ok && hex.EncodeToString(got) == strings.ToLower(hx) {
				return nil
			}
			anyComparable = anyComparable || ok
			seen = append(seen, fmt.Sprintf("%s %s:%s", s.Name, alg, hx))
		}
	}
	if !anyComparable && len(seen) > 0 {
		return failf(ErrVerification, "artifact digest is %s, and no subject of the in-toto statement has a %s digest (subjects: %s); give the artifact itself or a digest the subjects use",
			c.artifact.digest.Algorithm, c.artifact.digest.Algorithm, strings.Join(seen, ", "))
	}
	return failf(ErrVerification, "artifact digest %s does not match any subject of the in-toto statement (subjects: %s)",
		c.artifact.Digest(), strings.Join(seen, ", "))
}

// statementSubjects reads only the subjects of an unverified in-toto
// payload: cheaper than parsing the predicate, and only used for messages.
func statementSubjects(env verify.EnvelopeContent) ([]Subject, bool) {
	raw := env.RawEnvelope()
	if raw == nil || raw.PayloadType != "application/vnd.in-toto+json" {
		return nil, false
	}
	payload, err := base64.StdEncoding.DecodeString(raw.Payload)
	if err != nil {
		return nil, false
	}
	var st struct {
		Subject []Subject `json:"subject"`
	}
	if json.Unmarshal(payload, &st) != nil {
		return nil, false
	}
	return st.Subject, true
}

// checkPredicate applies the policy's predicate types to a DSSE statement.
func (c *check) checkPredicate(res *verify.VerificationResult) error {
	if res.Statement == nil || len(c.policy.PredicateTypes) == 0 {
		return nil
	}
	if pt := res.Statement.GetPredicateType(); !slices.Contains(c.policy.PredicateTypes, pt) {
		return failf(ErrVerification, "predicate type %q not allowed (policy allows %s)", pt, strings.Join(c.policy.PredicateTypes, ", "))
	}
	return nil
}
