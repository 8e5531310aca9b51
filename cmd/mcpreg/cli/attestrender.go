package cli

import (
	"fmt"
	"io"
	"strconv"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// printVersionAttestations lists a version's attestations after a blank
// line; nothing when it has none.
func printVersionAttestations(w io.Writer, atts []*mcpregv1.Attestation) error {
	if len(atts) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return printAttestations(w, atts)
}

// printAttestations lists each bundle: package, digest, verified, and the
// signer when it verifies or the reason when it does not.
func printAttestations(w io.Writer, atts []*mcpregv1.Attestation) error {
	fmt.Fprintf(w, "Attestations (%d):\n", len(atts))
	t := newTable(w)
	t.row("  PACKAGE", "DIGEST", "VERIFIED", "SIGNER OR ERROR")
	for _, a := range atts {
		t.row("  "+cell(attestedPackage(a)), digestCell(a), yesNo(a.GetVerified()), signerOrError(a))
	}
	return t.flush()
}

func attestedPackage(a *mcpregv1.Attestation) string {
	idx := "#" + strconv.Itoa(int(a.GetPackageIndex()))
	if a.GetPackage() != "" {
		idx += " " + a.GetPackage()
	}
	if a.GetPending() {
		idx += fmt.Sprintf(" [pending, id %d]", a.GetId())
	}
	return idx
}

// digestCell is the digest, marked when it is the owner's word rather than
// one the registry obtained itself.
func digestCell(a *mcpregv1.Attestation) string {
	if a.GetOwnerDigest() {
		return a.GetArtifactDigest() + " (owner's word: " + a.GetDigestSource() + ")"
	}
	return a.GetArtifactDigest()
}

func signerOrError(a *mcpregv1.Attestation) string {
	switch {
	case !a.GetVerified():
		return a.GetError()
	case a.GetKeyFingerprint() != "":
		return "key " + a.GetKeyFingerprint()
	case a.GetIssuer() != "":
		return a.GetSan() + " (" + a.GetIssuer() + ")"
	}
	return a.GetSan()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
