package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/registry/pkg/model"
	"github.com/sigstore/sigstore-go/pkg/bundle"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/serverjson"
)

// RegistryMetaKey is mcpreg's member of a server.json "_meta" object. At
// submission it may carry package artifact digests the official schema has
// no field for, such as an npm tarball's sha512 integrity:
//
//	"_meta": {"io.mcpreg/registry": {"packages": [
//	  {"identifier": "@acme/weather-mcp", "version": "1.2.0", "digest": "sha512-BASE64"}]}}
//
// It may also sit one level down, under
// _meta["io.modelcontextprotocol.registry/publisher-provided"], where the
// official registry keeps publisher metadata. Each entry names a package by identifier (and, optionally, registryType
// and version, which must then match); digest is "ALG:HEX" or an npm
// integrity string.
const RegistryMetaKey = "io.mcpreg/registry"

const publisherProvided = "io.modelcontextprotocol.registry/publisher-provided"

// Where an attested artifact's digest came from, in order of precedence.
const (
	DigestFromOCIReference = "oci_reference"
	DigestFromFileSHA256   = "file_sha256"
	DigestFromMeta         = "server_json_meta"
	DigestFromRequest      = "request"
	DigestFromUpload       = "upload"
)

// AttestationInput is a sigstore bundle about one server.json package entry.
type AttestationInput struct {
	// PackageIndex is the entry's index in packages[]; used when
	// PackageIdentifier is empty.
	PackageIndex      int
	PackageIdentifier string
	// Bundle is the sigstore bundle JSON.
	Bundle []byte
	// ArtifactDigest is used only when server.json gives no digest.
	ArtifactDigest string
	// Artifact is the artifact's bytes (capped by Limits.MaxArtifactBytes):
	// only the digest computed from them is kept. Exclusive with
	// ArtifactDigest.
	Artifact []byte
}

// attestationItem is an input resolved against its version's server.json.
type attestationItem struct {
	index int
	ref   string
	pkg   attest.Package
	// digest is what the bundle is verified against: the one the registry
	// obtained itself where it can, else the owner's (source says which).
	digest       attest.Digest
	source       string
	mismatch     *ownerMismatch
	pending      bool // added to an approved version: waits for confirmation
	bundle       []byte
	bundleDigest string
}

// artifact is what the item's bundle must be about.
func (it attestationItem) artifact() attest.Artifact {
	return attest.ArtifactDigest(it.digest).For(it.pkg)
}

// metaPackage is one entry of _meta["io.mcpreg/registry"].packages.
type metaPackage struct {
	RegistryType string `json:"registryType"`
	Identifier   string `json:"identifier"`
	Version      string `json:"version"`
	Digest       string `json:"digest"`
}

// resolveAttestations checks every input against the document: the
// package entry exists, a usable digest is known, the bundle is within the
// cap and reads as a sigstore bundle. Nothing is verified yet.
func (s *Attestations) resolveAttestations(ctx context.Context, doc *serverjson.Document, ins []AttestationInput) ([]attestationItem, error) {
	if len(ins) == 0 {
		return nil, nil
	}
	meta, err := registryMeta(doc.Raw)
	if err != nil {
		return nil, err
	}
	out := make([]attestationItem, len(ins))
	for i, in := range ins {
		out[i], err = s.resolveAttestation(ctx, doc, meta, in, fmt.Sprintf("attestations[%d]", i))
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Attestations) resolveAttestation(ctx context.Context, doc *serverjson.Document, meta []metaPackage, in AttestationInput, field string) (attestationItem, error) {
	if err := s.checkBundle(in.Bundle, field+".bundle"); err != nil {
		return attestationItem{}, err
	}
	idx, err := packageIndex(doc.Server.Packages, in, field)
	if err != nil {
		return attestationItem{}, err
	}
	pkg := doc.Server.Packages[idx]
	obtained, obtainedSource, err := s.obtainedDigest(ctx, pkg, field)
	if err != nil {
		return attestationItem{}, err
	}
	var owner attest.Digest
	var ownerSource string
	if in.Artifact != nil {
		owner, ownerSource, err = s.uploadedDigest(pkg, meta, in, obtained.Algorithm, field)
	} else {
		owner, ownerSource, err = artifactDigest(pkg, meta, in.ArtifactDigest, obtainedSource != "", field)
	}
	if err != nil {
		return attestationItem{}, err
	}
	it := attestationItem{index: idx, ref: packageRef(pkg), pkg: packageOf(pkg), digest: owner, source: ownerSource,
		bundle: in.Bundle, bundleDigest: sha256Text(in.Bundle)}
	switch {
	case obtainedSource == "":
	case ownerSource == "" || owner.Algorithm == obtained.Algorithm:
		if ownerSource != "" && owner != obtained {
			it.mismatch = &ownerMismatch{owner: owner, ownerSource: ownerSource, obtained: obtained, obtainedSource: obtainedSource}
		}
		it.digest, it.source = obtained, obtainedSource
	default:
		// An owner digest in another algorithm (an npm package's
		// fileSha256) cannot be compared here: it stays the owner's word,
		// and the scanner checks it against the fetched tarball.
	}
	return it, nil
}

// checkBundle applies the size cap. Whether the bundle reads is checked
// where it is verified (verifyBundle), before anything is stored.
func (s *Attestations) checkBundle(raw []byte, field string) error {
	if len(raw) == 0 {
		return invalidf("%s is required (a sigstore bundle, JSON)", field)
	}
	if len(raw) > s.limits.MaxBundleBytes {
		return fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, field, len(raw), s.limits.MaxBundleBytes)
	}
	return nil
}

// readBundle reads a bundle as sigstore-go (and so attest) does: for a
// bundle that is stored without being verified.
func readBundle(raw []byte) error {
	var b bundle.Bundle
	if err := b.UnmarshalJSON(raw); err != nil {
		return invalidf("not a sigstore bundle: %v", err)
	}
	return nil
}

func packageIndex(pkgs []model.Package, in AttestationInput, field string) (int, error) {
	if in.PackageIdentifier == "" {
		if in.PackageIndex < 0 || in.PackageIndex >= len(pkgs) {
			return 0, invalidf("%s.packageIndex %d: server.json has %d package(s), so no entry /packages/%d",
				field, in.PackageIndex, len(pkgs), in.PackageIndex)
		}
		return in.PackageIndex, nil
	}
	found := -1
	for i, p := range pkgs {
		if p.Identifier != in.PackageIdentifier {
			continue
		}
		if found >= 0 {
			return 0, invalidf("%s.packageIdentifier %q names packages %d and %d: use packageIndex", field, in.PackageIdentifier, found, i)
		}
		found = i
	}
	if found < 0 {
		return 0, invalidf("%s.packageIdentifier %q: server.json has no package with that identifier", field, in.PackageIdentifier)
	}
	return found, nil
}

func packageRef(p model.Package) string {
	return strings.TrimSpace(strings.Join([]string{p.RegistryType, p.Identifier, p.Version}, " "))
}

// artifactDigest picks the package's declared digest: the OCI reference's
// @sha256:, fileSha256, mcpreg's _meta entry, else the request's. A request
// digest that contradicts server.json is refused. With obtained (the
// registry obtains the digest itself) no declared digest is needed.
func artifactDigest(pkg model.Package, meta []metaPackage, requested string, obtained bool, field string) (attest.Digest, string, error) {
	text, source := documentDigest(pkg, meta)
	if text == "" {
		if requested == "" && obtained {
			return attest.Digest{}, "", nil
		}
		if requested == "" {
			return attest.Digest{}, "", invalidf("%s: no artifact digest for package %q: server.json has no OCI @sha256:, fileSha256 or _meta %q digest for it, and artifactDigest is empty",
				field, packageRef(pkg), RegistryMetaKey)
		}
		text, source = requested, DigestFromRequest
	}
	d, err := attest.ParseDigest(text)
	if err != nil {
		return attest.Digest{}, "", invalidf("%s: digest from %s: %v", field, source, err)
	}
	if requested != "" && source != DigestFromRequest {
		rd, err := attest.ParseDigest(requested)
		if err != nil {
			return attest.Digest{}, "", invalidf("%s.artifactDigest: %v", field, err)
		}
		if rd != d {
			return attest.Digest{}, "", invalidf("%s.artifactDigest %s contradicts the digest server.json gives (%s, from %s)", field, rd, d, source)
		}
	}
	return d, source, nil
}

// uploadedDigest is the digest of uploaded artifact bytes: in the
// algorithm of the digest server.json gives, which the bytes must match,
// else in that of the digest the registry obtained (obtainedAlg), else
// sha512 for npm packages (npm provenance signs sha512) and sha256
// otherwise.
func (s *Attestations) uploadedDigest(pkg model.Package, meta []metaPackage, in AttestationInput, obtainedAlg, field string) (attest.Digest, string, error) {
	if in.ArtifactDigest != "" {
		return attest.Digest{}, "", invalidf("%s: give artifact or artifactDigest, not both", field)
	}
	if err := s.checkArtifact(in.Artifact, field+".artifact"); err != nil {
		return attest.Digest{}, "", err
	}
	text, source := documentDigest(pkg, meta)
	alg := attest.SHA256
	if pkg.RegistryType == "npm" {
		alg = attest.SHA512
	}
	var want attest.Digest
	if text != "" {
		var err error
		if want, err = attest.ParseDigest(text); err != nil {
			return attest.Digest{}, "", invalidf("%s: digest from %s: %v", field, source, err)
		}
		alg = want.Algorithm
	}
	if obtainedAlg != "" && text == "" {
		alg = obtainedAlg
	}
	got, err := attest.DigestOf(in.Artifact, alg)
	if err != nil {
		return attest.Digest{}, "", invalidf("%s.artifact: %v", field, err)
	}
	if text != "" && got != want {
		return attest.Digest{}, "", invalidf("%s.artifact: the uploaded bytes have digest %s, but server.json gives %s (from %s) for package %q",
			field, got, want, source, packageRef(pkg))
	}
	return got, DigestFromUpload, nil
}

// checkArtifact applies the uploaded-artifact size cap.
func (s *Attestations) checkArtifact(data []byte, field string) error {
	if len(data) == 0 {
		return invalidf("%s is empty", field)
	}
	if len(data) > s.limits.MaxArtifactBytes {
		return fmt.Errorf("%w: %s is %d bytes, the limit is %d (give its digest instead)", ErrTooLarge, field, len(data), s.limits.MaxArtifactBytes)
	}
	return nil
}

func documentDigest(pkg model.Package, meta []metaPackage) (string, string) {
	if _, d, ok := strings.Cut(pkg.Identifier, "@sha256:"); ok && pkg.RegistryType == "oci" {
		return "sha256:" + d, DigestFromOCIReference
	}
	if pkg.FileSHA256 != "" {
		return "sha256:" + pkg.FileSHA256, DigestFromFileSHA256
	}
	for _, m := range meta {
		if m.Identifier == pkg.Identifier && (m.RegistryType == "" || m.RegistryType == pkg.RegistryType) &&
			(m.Version == "" || m.Version == pkg.Version) {
			return m.Digest, DigestFromMeta
		}
	}
	return "", ""
}

// registryMeta reads _meta["io.mcpreg/registry"].packages of a server.json.
func registryMeta(raw []byte) ([]metaPackage, error) {
	var doc struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(raw, &doc) != nil {
		return nil, nil
	}
	member := doc.Meta[RegistryMetaKey]
	if member == nil {
		// The official registry keeps only publisher-provided _meta.
		var pub map[string]json.RawMessage
		if json.Unmarshal(doc.Meta[publisherProvided], &pub) == nil {
			member = pub[RegistryMetaKey]
		}
	}
	if member == nil {
		return nil, nil
	}
	var m struct {
		Packages []metaPackage `json:"packages"`
	}
	if err := json.Unmarshal(member, &m); err != nil {
		return nil, invalidf("serverJson /_meta/%s: want {\"packages\":[{\"identifier\":...,\"digest\":...}]}: %v",
			strings.ReplaceAll(RegistryMetaKey, "/", "~1"), err)
	}
	for i, p := range m.Packages {
		if p.Identifier == "" || p.Digest == "" {
			return nil, invalidf("serverJson /_meta/%s/packages/%d: identifier and digest are required",
				strings.ReplaceAll(RegistryMetaKey, "/", "~1"), i)
		}
	}
	return m.Packages, nil
}
