package registry

import (
	"context"
	"fmt"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/attestation"
	entfinding "github.com/mcpreg/mcpreg/internal/ent/finding"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/states"
)

// KindDigestMismatch is the finding of a version whose published package
// is not the artifact its digest names. It blocks approval and release.
const KindDigestMismatch = "artifact.digest_mismatch"

// KindDependencySpec is the finding of a version whose npm package depends
// on something other than registry packages (git, GitHub, a local path, a
// link, a URL): the scanner refuses to install it, so it cannot be read.
// It blocks approval and release.
const KindDependencySpec = "artifact.dependency_spec"

// scannerActor is the principal of decisions the scanner takes.
const scannerActor = "mcpreg-scanner"

// attestedDigests are the digests of a version's verified, confirmed
// attestations by package index: what the version declares where
// server.json has none.
func (s *Attestations) attestedDigests(ctx context.Context, versionID int) (map[int]attest.Digest, error) {
	atts, err := s.store.Client.Attestation.Query().
		Where(attestation.VersionID(versionID), attestation.Verified(true), attestation.Pending(false)).
		Order(ent.Asc(attestation.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := map[int]attest.Digest{}
	for _, a := range atts {
		if _, seen := out[a.PackageIndex]; seen {
			continue
		}
		if d, err := attest.ParseDigest(a.ArtifactDigest); err == nil {
			out[a.PackageIndex] = d
		}
	}
	return out, nil
}

// artifactMismatch records that the published package differs from the
// version's digest (or the tarball from the npm registry's own integrity):
// a high-severity finding, and an approved version is quarantined, since
// what hosts would run is not what was attested.
func (s *Attestations) artifactMismatch(ctx context.Context, v *ent.Version, mm *fetch.DigestMismatchError) error {
	evidence := fmt.Sprintf("declared %s, published %s", mm.Want, mm.Got)
	if mm.Registry {
		evidence = fmt.Sprintf("npm registry integrity %s, downloaded %s", mm.Want, mm.Got)
	}
	return s.store.WithTx(ctx, func(tx *ent.Tx) error {
		err := s.addNewFindings(ctx, tx, v.ID, 0, []finding.Finding{{Kind: KindDigestMismatch, Severity: finding.High,
			Message: mm.Error(), Evidence: evidence}})
		if err != nil {
			return err
		}
		cur, err := s.lockVersionByID(ctx, tx, v.ID)
		if err != nil || cur.State != version.StateApproved {
			return err
		}
		srv, err := tx.Server.Get(ctx, cur.ServerID)
		if err != nil {
			return err
		}
		return s.quarantine(ctx, tx, scannerActor, "", cur, subjectOf(srv.Name, cur.Version), states.QuarantineArtifact,
			"the published package is not the attested artifact: "+mm.Error())
	})
}

// dependencyRefused records that the scanner refused to install the
// version's npm package because of a dependency spec: a high-severity
// finding naming the dependency.
func (s *Attestations) dependencyRefused(ctx context.Context, v *ent.Version, de *fetch.DependencySpecError) error {
	return s.store.WithTx(ctx, func(tx *ent.Tx) error {
		return s.addNewFindings(ctx, tx, v.ID, 0, []finding.Finding{{Kind: KindDependencySpec, Severity: finding.High,
			Message:  de.Error(),
			Evidence: fmt.Sprintf("%s %s: %.200q", de.Where, de.Dependency, de.Spec)}})
	})
}

// checkArtifactFindings refuses to approve or release a version whose published
// package was found not to match its digest, or to depend on something
// other than registry packages. Package artifacts are immutable, so the
// version cannot recover: the owner submits a new one.
func (s *Attestations) checkArtifactFindings(ctx context.Context, tx *ent.Tx, v *ent.Version, action Action, subject string) error {
	f, err := tx.Finding.Query().Where(entfinding.VersionID(v.ID), entfinding.KindIn(KindDigestMismatch, KindDependencySpec)).
		Order(ent.Asc(entfinding.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	fix := "submit a new version whose digest names the published artifact"
	if f.Kind == KindDependencySpec {
		fix = "submit a new version whose package depends only on versions or ranges in the npm registry"
	}
	return fmt.Errorf("%w: cannot %s %s: %s; %s", ErrFailedPrecondition, action, subject, f.Message, fix)
}
