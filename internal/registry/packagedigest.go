package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/registry/pkg/model"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/fetch"
)

// DigestFromNPMRegistry is the source of a digest the registry read from
// the npm registry: the dist.integrity of that exact name and version.
const DigestFromNPMRegistry = "npm_registry"

// NPMIntegrity reads the integrity an npm registry publishes for one exact
// package version (fetch.Packuments does, over HTTP).
type NPMIntegrity interface {
	Integrity(ctx context.Context, name, version string) (attest.Digest, error)
}

// WithNPMIntegrity sets where npm integrity values are read (default: the
// public npm registry).
func WithNPMIntegrity(n NPMIntegrity) Option { return func(s *settings) { s.npm = n } }

// registryObtained reports whether a digest source is one the registry
// obtained itself rather than the owner's word: the digest in an OCI
// reference, or the npm registry's integrity.
func registryObtained(source string) bool {
	return source == DigestFromOCIReference || source == DigestFromNPMRegistry
}

// packageOf is what an attestation about p must name.
func packageOf(p model.Package) attest.Package {
	return attest.Package{RegistryType: p.RegistryType, Identifier: p.Identifier, Version: p.Version}
}

// obtainedDigest is the digest the registry obtains itself for pkg, if it
// can: the OCI reference's, or the npm registry's integrity for exactly
// that name and version. An npm registry that does not answer, or has no
// such version, is an error: the request can be repeated.
func (s *Attestations) obtainedDigest(ctx context.Context, pkg model.Package, field string) (attest.Digest, string, error) {
	switch pkg.RegistryType {
	case "oci":
		if _, d, ok := strings.Cut(pkg.Identifier, "@sha256:"); ok {
			parsed, err := attest.ParseDigest("sha256:" + d)
			if err != nil {
				return attest.Digest{}, "", invalidf("%s: OCI reference %q: %v", field, pkg.Identifier, err)
			}
			return parsed, DigestFromOCIReference, nil
		}
	case "npm":
		d, err := s.npm.Integrity(ctx, pkg.Identifier, pkg.Version)
		if errors.Is(err, fetch.ErrFetch) {
			return attest.Digest{}, "", fmt.Errorf("%w: %s: the registry reads the digest of npm package %s@%s from the npm registry itself, and could not: %w",
				ErrFailedPrecondition, field, pkg.Identifier, pkg.Version, err)
		} else if err != nil {
			return attest.Digest{}, "", err
		}
		return d, DigestFromNPMRegistry, nil
	}
	return attest.Digest{}, "", nil
}

// ownerMismatch is an owner-supplied digest that disagrees with the one
// the registry obtained.
type ownerMismatch struct {
	owner, obtained             attest.Digest
	ownerSource, obtainedSource string
}

func (m *ownerMismatch) finding(index int, ref string) recorded {
	return recorded{Source: SourceAttestation, Finding: finding.Finding{Kind: KindDigestMismatch, Severity: finding.High,
		Pointer: fmt.Sprintf("/packages/%d", index),
		Message: fmt.Sprintf("package %d (%s): the owner's digest %s (from %s) is not the digest the registry obtained itself, %s (from %s): it is not the published artifact",
			index, ref, m.owner, m.ownerSource, m.obtained, m.obtainedSource),
		Evidence: fmt.Sprintf("declared %s, published %s", m.owner, m.obtained)}}
}
