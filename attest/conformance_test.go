package attest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
)

// conformanceDir holds the sigstore-conformance bundle-verify cases (see
// ../../shared/testdata/README.md); tests only read it.
const conformanceDir = "../../shared/testdata/sigstore-conformance"

const (
	conformanceIdentity = "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main"
	conformanceIssuer   = "https://token.actions.githubusercontent.com"
)

// TestConformance runs every bundle-verify case through Verify with a
// policy built from the case: names ending in _fail must fail, others must
// verify. Only the verdict is asserted; several _fail cases fail for another
// reason than their README gives.
func TestConformance(t *testing.T) {
	cases := conformanceCases(t)
	agree := 0
	for _, dir := range cases {
		name := filepath.Base(dir)
		wantFail := strings.HasSuffix(name, "_fail")
		ok := t.Run(name, func(t *testing.T) {
			_, err := verifyCase(t, dir)
			switch {
			case wantFail && err == nil:
				t.Error("verified, want failure")
			case !wantFail && err != nil:
				t.Errorf("want success: %v", err)
			case err != nil:
				t.Log(err)
			}
		})
		if ok {
			agree++
		}
	}
	t.Logf("conformance: %d/%d verdicts as expected", agree, len(cases))
	if agree != len(cases) || len(cases) != 70 {
		t.Errorf("conformance: %d/%d verdicts as expected, want 70/70", agree, len(cases))
	}
}

func conformanceCases(t *testing.T) []string {
	t.Helper()
	cases, err := filepath.Glob(filepath.Join(conformanceDir, "bundle-verify", "*", "bundle.sigstore.json"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no sigstore-conformance cases under %s (from %s): the shared test data must be present (%v)",
			conformanceDir, mustGetwd(t), err)
	}
	for i, c := range cases {
		cases[i] = filepath.Dir(c)
	}
	return cases
}

// verifyCase verifies one case under a policy of its identity or key and
// its trusted root (default: public good).
func verifyCase(t *testing.T, dir string) (*attest.Receipt, error) {
	rootJSON := optionalFile(t, dir, "trusted_root.json", filepath.Join(conformanceDir, "trusted_root_public_good.json"))
	v, err := newCaseVerifier(rootJSON)
	if err != nil {
		return nil, err
	}
	p := attest.Policy{Required: true, TrustedRoot: "case"}
	if key, err := os.ReadFile(filepath.Join(dir, "key.pub")); err == nil {
		p.PublicKeys = []string{string(key)}
	} else {
		p.Identities = []attest.Identity{{
			SAN:    strings.TrimSpace(string(optionalFile(t, dir, "identity", ""))),
			Issuer: strings.TrimSpace(string(optionalFile(t, dir, "issuer", ""))),
		}}
	}
	data := optionalFile(t, dir, "artifact", filepath.Join(dir, "..", "a.txt"))
	return v.Verify(optionalFile(t, dir, "bundle.sigstore.json", ""), attest.ArtifactBytes(data), p)
}

// newCaseVerifier loads a case's root; a root sigstore-go rejects is a
// failed verification of that case.
func newCaseVerifier(rootJSON []byte) (*attest.Verifier, error) {
	roots, err := attest.NewTrustedRoots(map[string][]byte{"case": rootJSON})
	if err != nil {
		return nil, err
	}
	return attest.NewVerifier(roots, attest.Config{DefaultRoot: "case"})
}

// optionalFile reads dir/name, else the file at fallback, else the
// conformance defaults for identity and issuer.
func optionalFile(t *testing.T, dir, name, fallback string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err == nil {
		return data
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	switch {
	case fallback != "":
		return readFile(t, fallback)
	case name == "identity":
		return []byte(conformanceIdentity)
	case name == "issuer":
		return []byte(conformanceIssuer)
	}
	t.Fatalf("%s: no %s", dir, name)
	return nil
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
