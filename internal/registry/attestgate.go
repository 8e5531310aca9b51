package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/registry/pkg/model"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/attestation"
)

// checkAttestations fails closed: where the server's attestation policy is
// required, approving a version, or releasing it back into discovery, needs
// an attestation of every package entry that verifies under the current
// policy. Attestations last checked against another policy are re-verified
// first.
func (s *Attestations) checkAttestations(ctx context.Context, tx *ent.Tx, v *ent.Version, action Action, subject string) error {
	pol, err := policyOf(ctx, tx, v.ServerID)
	if err != nil || pol.Attestation == nil || !pol.Attestation.Required {
		return err
	}
	gaps, err := s.attestationGaps(ctx, tx, v, pol.Attestation, time.Time{}, true)
	if err != nil || len(gaps) == 0 {
		return err
	}
	return fmt.Errorf("%w: cannot %s %s: the server's attestation policy (%s) requires a verified attestation of every package: %s",
		ErrFailedPrecondition, action, subject, pol.Attestation.Digest(), strings.Join(gaps, "; "))
}

// attestationGaps lists, per package entry lacking one, why the version has
// no attestation verified under pol and checked after after. With recheck,
// attestations checked against another policy are re-verified (and their
// rows updated) first.
func (s *Attestations) attestationGaps(ctx context.Context, tx *ent.Tx, v *ent.Version, pol *attest.Policy, after time.Time, recheck bool) ([]string, error) {
	pkgs, err := versionPackages(v.ServerJSON)
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return []string{"server.json has no package to attest"}, nil
	}
	atts, err := tx.Attestation.Query().Where(attestation.VersionID(v.ID), attestation.Pending(false)).
		Order(ent.Asc(attestation.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	var gaps []string
	for i, p := range pkgs {
		reason, err := s.packageGap(ctx, tx, p, i, atts, pol, after, recheck)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			gaps = append(gaps, fmt.Sprintf("package %d (%s): %s", i, packageRef(p), reason))
		}
	}
	return gaps, nil
}

// packageGap says why package index has no acceptable attestation ("" when
// it has one). Pending attestations are not among atts. A digest that is
// the owner's word counts only where the policy allows unfetched digests.
func (s *Attestations) packageGap(ctx context.Context, tx *ent.Tx, pkg model.Package, index int, atts []*ent.Attestation, pol *attest.Policy, after time.Time, recheck bool) (string, error) {
	reason := "no attestation (attach one: POST .../versions/VERSION/attestations)"
	digest := pol.Digest()
	for _, a := range atts {
		if a.PackageIndex != index {
			continue
		}
		if recheck && a.PolicyDigest != digest {
			var err error
			if a, err = s.recheck(ctx, tx, a, pkg, pol); err != nil {
				return "", err
			}
		}
		switch {
		case a.PolicyDigest != digest:
			reason = "its attestation was last checked against another policy (" + a.PolicyDigest + "): re-verify it"
		case !a.Verified:
			reason = "no verified attestation: " + a.Error
		case !a.CheckedAt.After(after):
			reason = "no passing re-verification since the quarantine (mcpregd attest reverify)"
		case !registryObtained(a.DigestSource) && !pol.AllowUnfetchedDigests:
			reason = fmt.Sprintf("its artifact digest %s is the owner's word (from %s), not one the registry obtained itself; "+
				"the policy counts such digests only with allowUnfetchedDigests (npm packages and OCI references by digest: attach the bundle again)",
				a.ArtifactDigest, a.DigestSource)
		default:
			return "", nil
		}
	}
	return reason, nil
}

// recheck verifies a stored bundle about pkg again under pol and stores
// the result.
func (s *Attestations) recheck(ctx context.Context, tx *ent.Tx, a *ent.Attestation, pkg model.Package, pol *attest.Policy) (*ent.Attestation, error) {
	v := verification{checkedAt: s.now(), err: "stored digest unusable"}
	if d, err := attest.ParseDigest(a.ArtifactDigest); err == nil {
		if v, err = s.verifyBundle(a.Bundle, attest.ArtifactDigest(d).For(packageOf(pkg)), pol); err != nil {
			v = verification{checkedAt: s.now(), err: err.Error()}
		}
	}
	if pol != nil {
		v.policyDigest = pol.Digest()
	}
	return tx.Attestation.UpdateOne(a).SetVerified(v.verified).SetReceipt(v.receiptJSON).SetError(v.err).
		SetPolicyDigest(v.policyDigest).SetCheckedAt(v.checkedAt).Save(ctx)
}

// versionPackages reads the package entries of a stored server.json (which
// passed the strict checks at submission).
func versionPackages(serverJSON []byte) ([]model.Package, error) {
	var doc struct {
		Packages []model.Package `json:"packages"`
	}
	if err := json.Unmarshal(serverJSON, &doc); err != nil {
		return nil, fmt.Errorf("stored server.json: %w", err)
	}
	return doc.Packages, nil
}

// checkReverifyRelease: a version quarantined by a failed re-verification
// is released only once every package has an attestation that passed a
// verification newer than the quarantine, under the current policy (or
// when the policy no longer requires attestations).
func (s *Attestations) checkReverifyRelease(ctx context.Context, tx *ent.Tx, v *ent.Version, subject string) error {
	pol, err := policyOf(ctx, tx, v.ServerID)
	if err != nil || pol.Attestation == nil || !pol.Attestation.Required {
		return err
	}
	gaps, err := s.attestationGaps(ctx, tx, v, pol.Attestation, v.StateChangedAt, false)
	if err != nil || len(gaps) == 0 {
		return err
	}
	return fmt.Errorf("%w: %s was quarantined because its attestations no longer verify: releasing it needs a passing re-verification (mcpregd attest reverify, or attach a new bundle): %s",
		ErrFailedPrecondition, subject, strings.Join(gaps, "; "))
}
