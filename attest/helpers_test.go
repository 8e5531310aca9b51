package attest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/attest/attesttest"
)

const (
	testSAN     = "release@acme.example"
	testIssuer  = "https://issuer.acme.example"
	privateRoot = "acme-private"
)

// env is a private sigstore deployment plus a Verifier that knows it (as
// "acme-private") and the public-good root, both loaded from files.
type env struct {
	sigstore *attesttest.Sigstore
	verifier *attest.Verifier
}

func newEnv(t testing.TB) *env {
	t.Helper()
	ss, err := attesttest.New()
	if err != nil {
		t.Fatal(err)
	}
	rootJSON, err := ss.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	return &env{sigstore: ss, verifier: loadVerifier(t, map[string][]byte{
		privateRoot:       rootJSON,
		attest.PublicGood: attest.PublicGoodTrustedRoot(),
	})}
}

// loadVerifier writes each root to a file and loads them as the service does.
func loadVerifier(t testing.TB, roots map[string][]byte) *attest.Verifier {
	t.Helper()
	dir := t.TempDir()
	paths := map[string]string{}
	for name, doc := range roots {
		paths[name] = filepath.Join(dir, name+".json")
		if err := os.WriteFile(paths[name], doc, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := attest.LoadTrustedRoots(paths)
	if err != nil {
		t.Fatal(err)
	}
	v, err := attest.NewVerifier(tr, attest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func privatePolicy() attest.Policy {
	return attest.Policy{
		Required:    true,
		TrustedRoot: privateRoot,
		Identities:  []attest.Identity{{Issuer: testIssuer, SAN: testSAN}},
	}
}

func (e *env) sign(t testing.TB, artifact []byte) []byte {
	t.Helper()
	b, err := e.sigstore.Sign(testSAN, testIssuer, artifact)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (e *env) attest(t testing.TB, statement []byte) []byte {
	t.Helper()
	b, err := e.sigstore.Attest(testSAN, testIssuer, statement)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantErr checks that err wraps sentinel and mentions every part.
func wantErr(t *testing.T, err, sentinel error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("verified, want an error wrapping %v mentioning %q", sentinel, parts)
	}
	t.Log(err)
	if !errors.Is(err, sentinel) {
		t.Errorf("error %q does not wrap %v", err, sentinel)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
