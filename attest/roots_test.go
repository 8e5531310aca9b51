package attest_test

import (
	"io/fs"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
)

func TestTrustedRoots(t *testing.T) {
	pg := attest.PublicGoodTrustedRoot()
	roots, err := attest.NewTrustedRoots(map[string][]byte{"staging": pg, attest.PublicGood: pg})
	if err != nil {
		t.Fatal(err)
	}
	if got := roots.Names(); !reflect.DeepEqual(got, []string{attest.PublicGood, "staging"}) || !roots.Has("staging") || roots.Has("x") {
		t.Errorf("Names = %v", got)
	}
	pg[0] = 'X' // the embedded copy is not shared
	if attest.PublicGoodTrustedRoot()[0] != '{' {
		t.Error("PublicGoodTrustedRoot returns shared bytes")
	}
}

func TestTrustedRootErrors(t *testing.T) {
	for name, docs := range map[string]map[string][]byte{
		"none":       {},
		"bad name":   {"public good": attest.PublicGoodTrustedRoot()},
		"not a root": {"broken": []byte(`{"mediaType":"application/json"}`)},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := attest.NewTrustedRoots(docs); err == nil {
				t.Error("loaded")
			}
		})
	}
	_, err := attest.LoadTrustedRoots(map[string]string{"missing": filepath.Join(t.TempDir(), "nope.json")})
	wantErr(t, err, fs.ErrNotExist, `trusted root "missing"`, "nope.json")
}

func TestVerifierDefaultRoot(t *testing.T) {
	roots, err := attest.NewTrustedRoots(map[string][]byte{"acme": attest.PublicGoodTrustedRoot()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = attest.NewVerifier(roots, attest.Config{})
	wantErr(t, err, attest.ErrUnknownRoot, "default trusted root", `"public-good"`)
	if _, err := attest.NewVerifier(roots, attest.Config{DefaultRoot: "acme"}); err != nil {
		t.Error(err)
	}
	_, err = attest.NewVerifier(nil, attest.Config{})
	wantErr(t, err, attest.ErrUnknownRoot)
}
