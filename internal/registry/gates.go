package registry

import (
	"context"
	"strings"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/states"
)

// actionAcceptDrift names accepting drift in gate messages ("cannot accept
// drift of NAME@VERSION: ..."). It is not a lifecycle Action.
const actionAcceptDrift Action = "accept drift of"

// checkAdmission is the one gate of every decision that puts a version's
// pins (back) before hosts: approving it, releasing it, accepting its
// drift. Each is a re-approval, so each needs the same things:
//   - every widening of the version's capability contract against the
//     previous approved version acknowledged in this decision (acks);
//   - where the server's attestation policy is required, an attestation of
//     every package that verifies under the policy in force (for a version
//     quarantined by re-verification, one newer than the quarantine);
//   - no finding that the published artifact is not the declared one;
//   - no finding that an imported version has no tool snapshot.
//
// It returns the audit details naming the acknowledged widenings.
func (s *Attestations) checkAdmission(ctx context.Context, tx *ent.Tx, v *ent.Version, a Action, subject string, acks []string) (string, error) {
	acked, err := checkAcknowledged(ctx, tx, v, a, subject, acks)
	if err != nil {
		return "", err
	}
	if states.QuarantineKind(v.QuarantineKind) == states.QuarantineReverify {
		err = s.checkReverifyRelease(ctx, tx, v, subject)
	} else {
		err = s.checkAttestations(ctx, tx, v, a, subject)
	}
	if err != nil {
		return "", err
	}
	if err := s.checkArtifactFindings(ctx, tx, v, a, subject); err != nil {
		return "", err
	}
	if err := checkUpstreamFindings(ctx, tx, v, a, subject); err != nil {
		return "", err
	}
	if len(acked) == 0 {
		return "", nil
	}
	return "acknowledged contract widenings: " + strings.Join(acked, ", "), nil
}
