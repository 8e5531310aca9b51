package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/registry/pkg/model"
)

const (
	hex256 = "fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce"
	hexOCI = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

// TestArtifactDigestPrecedence: OCI reference, fileSha256, _meta, request.
func TestArtifactDigestPrecedence(t *testing.T) {
	npm := model.Package{RegistryType: "npm", Identifier: "@acme/x", Version: "1.0.0"}
	withFile := npm
	withFile.FileSHA256 = hex256
	oci := model.Package{RegistryType: "oci", Identifier: "ghcr.io/acme/x@sha256:" + hexOCI, FileSHA256: hex256}
	meta := []metaPackage{{Identifier: "@acme/x", Version: "1.0.0", Digest: "sha512-" + strings.Repeat("A", 86) + "=="},
		{Identifier: "@acme/x", Version: "2.0.0", Digest: "sha256:" + hexOCI}}
	tests := []struct {
		name      string
		pkg       model.Package
		meta      []metaPackage
		requested string
		want      string
		source    string
		err       string
	}{
		{"oci reference wins", oci, meta, "", "sha256:" + hexOCI, DigestFromOCIReference, ""},
		{"fileSha256 before _meta", withFile, meta, "", "sha256:" + hex256, DigestFromFileSHA256, ""},
		{"_meta matches version", npm, meta, "", "sha512:" + strings.Repeat("0", 128), DigestFromMeta, ""},
		{"request when nothing else", npm, nil, "sha256:" + hex256, "sha256:" + hex256, DigestFromRequest, ""},
		{"request agreeing with server.json", withFile, nil, "sha256:" + strings.ToUpper(hex256), "sha256:" + hex256, DigestFromFileSHA256, ""},
		{"request contradicting server.json", withFile, nil, "sha256:" + hexOCI, "", "", "contradicts"},
		{"nothing", npm, nil, "", "", "", "no artifact digest"},
		{"unsupported algorithm", npm, nil, "md5:00", "", "", "not supported"},
	}
	// A package whose digest the registry obtains itself needs none declared.
	if d, source, err := artifactDigest(npm, nil, "", true, "attestations[0]"); err != nil || source != "" || d.Algorithm != "" {
		t.Errorf("nothing declared, digest obtained: %v from %q (%v)", d, source, err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, source, err := artifactDigest(tt.pkg, tt.meta, tt.requested, false, "attestations[0]")
			if tt.err != "" {
				if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want ErrInvalid mentioning %q", err, tt.err)
				}
				return
			}
			if err != nil || d.String() != tt.want || source != tt.source {
				t.Fatalf("got %s from %s (%v), want %s from %s", d, source, err, tt.want, tt.source)
			}
		})
	}
}

func TestRegistryMeta(t *testing.T) {
	direct := `{"_meta":{"io.mcpreg/registry":{"packages":[{"identifier":"a","digest":"sha256:` + hex256 + `"}]}}}`
	nested := `{"_meta":{"io.modelcontextprotocol.registry/publisher-provided":{"io.mcpreg/registry":{"packages":[{"identifier":"b","digest":"x"}]}}}}`
	for raw, want := range map[string]string{direct: "a", nested: "b", `{}`: "", `{"_meta":{}}`: ""} {
		m, err := registryMeta([]byte(raw))
		if err != nil || (want == "" && len(m) != 0) || (want != "" && (len(m) != 1 || m[0].Identifier != want)) {
			t.Errorf("registryMeta(%s) = %v, %v", raw, m, err)
		}
	}
	for _, bad := range []string{`{"_meta":{"io.mcpreg/registry":{"packages":[{"identifier":"a"}]}}}`,
		`{"_meta":{"io.mcpreg/registry":{"packages":{}}}}`} {
		if _, err := registryMeta([]byte(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("registryMeta(%s): %v, want ErrInvalid", bad, err)
		}
	}
}

// FuzzRegistryMeta: the _meta reader and digest selection never panic and
// fail only with ErrInvalid.
func FuzzRegistryMeta(f *testing.F) {
	f.Add(`{"_meta":{"io.mcpreg/registry":{"packages":[{"identifier":"@acme/x","digest":"sha512-AAAA"}]}}}`, "sha256:00")
	f.Add(`{"_meta":{"io.mcpreg/registry":{"packages":[{"identifier":"@acme/x","version":"1","digest":"sha256:`+hex256+`"}]}}}`, "")
	f.Fuzz(func(t *testing.T, raw, requested string) {
		meta, err := registryMeta([]byte(raw))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("registryMeta: %v", err)
			}
			return
		}
		pkg := model.Package{RegistryType: "npm", Identifier: "@acme/x", Version: "1"}
		if _, _, err := artifactDigest(pkg, meta, requested, false, "f"); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("artifactDigest: %v", err)
		}
	})
}
