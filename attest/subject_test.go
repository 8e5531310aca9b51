package attest_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/attest/attesttest"
)

// TestForeignNPMProvenance: the real provenance of sigstore@1.3.0 proves
// nothing about another npm package, even with the same tarball digest.
func TestForeignNPMProvenance(t *testing.T) {
	v := publicGoodVerifier(t)
	bundle := readFile(t, fixtures+"sigstore-1.3.0.provenance.sigstore.json")
	a := npmDigest(t, sigstore130)
	_, err := v.Verify(bundle, a.For(attest.Package{RegistryType: "npm", Identifier: "totally-different-evil-pkg", Version: "6.6.6"}), sigstoreJSPolicy())
	wantErr(t, err, attest.ErrVerification, `"pkg:npm/sigstore@1.3.0"`, "npm totally-different-evil-pkg 6.6.6",
		"pkg:npm/totally-different-evil-pkg@6.6.6")
	_, err = v.Verify(bundle, a.For(attest.Package{RegistryType: "npm", Identifier: "sigstore", Version: "1.3.1"}), sigstoreJSPolicy())
	wantErr(t, err, attest.ErrVerification, `"pkg:npm/sigstore@1.3.0"`, "npm sigstore 1.3.1")
	if _, err := v.Verify(bundle, a.For(attest.Package{RegistryType: "npm", Identifier: "sigstore", Version: "1.3.0"}), sigstoreJSPolicy()); err != nil {
		t.Fatalf("its own package: %v", err)
	}
	// The npm publish attestation (key-signed) carries the same subject.
	key := string(readFile(t, fixtures+"npm-publish-key.pub"))
	_, err = v.Verify(readFile(t, fixtures+"sigstore-1.3.0.publish.sigstore.json"),
		a.For(attest.Package{RegistryType: "npm", Identifier: "@evil/sigstore", Version: "1.3.0"}),
		attest.Policy{Required: true, PublicKeys: []string{key}})
	wantErr(t, err, attest.ErrVerification, "pkg:npm/sigstore@1.3.0", "npm @evil/sigstore 1.3.0")
}

// subjectCase is one statement subject against one package.
type subjectCase struct {
	name    string
	pkg     attest.Package
	subject string
	ok      bool
}

func TestSubjectNamesPackage(t *testing.T) {
	npm := func(id, v string) attest.Package {
		return attest.Package{RegistryType: "npm", Identifier: id, Version: v}
	}
	oci := func(id string) attest.Package {
		return attest.Package{RegistryType: "oci", Identifier: id, Version: "1.0.0"}
	}
	pypi := func(id, v string) attest.Package {
		return attest.Package{RegistryType: "pypi", Identifier: id, Version: v}
	}
	cases := []subjectCase{
		{"npm plain", npm("weather-mcp", "1.2.0"), "pkg:npm/weather-mcp@1.2.0", true},
		{"npm scoped as npm writes it", npm("@acme/weather", "1.2.0"), "pkg:npm/%40acme/weather@1.2.0", true},
		{"npm scoped unencoded", npm("@acme/weather", "1.2.0"), "pkg:npm/@acme/weather@1.2.0", true},
		{"npm prerelease and build", npm("@acme/weather", "1.2.0-rc.1+b7"), "pkg:npm/%40acme/weather@1.2.0-rc.1%2Bb7", true},
		{"npm other scope", npm("@acme/weather", "1.2.0"), "pkg:npm/%40evil/weather@1.2.0", false},
		{"npm unscoped twin", npm("@acme/weather", "1.2.0"), "pkg:npm/weather@1.2.0", false},
		{"npm other version", npm("weather-mcp", "1.2.0"), "pkg:npm/weather-mcp@1.2.1", false},
		{"npm no version", npm("weather-mcp", "1.2.0"), "pkg:npm/weather-mcp", false},
		{"npm other registry", npm("weather-mcp", "1.2.0"), "pkg:npm/weather-mcp@1.2.0?repository_url=https://evil.example", false},
		{"npm subpath", npm("weather-mcp", "1.2.0"), "pkg:npm/weather-mcp@1.2.0#lib/x.js", false},
		{"pypi purl for npm", npm("weather-mcp", "1.2.0"), "pkg:pypi/weather-mcp@1.2.0", false},
		{"npm bare name", npm("weather-mcp", "1.2.0"), "weather-mcp-1.2.0.tgz", false},
		{"oci ghcr", oci("ghcr.io/acme/weather:1.0.0"), "ghcr.io/acme/weather", true},
		{"oci docker hub normalised", oci("docker.io/acme/weather:1.0.0"), "index.docker.io/acme/weather", true},
		{"oci docker hub short", oci("acme/weather@sha256:" + attesttest.SHA256(artifact)), "docker.io/acme/weather", true},
		{"oci with digest", oci("ghcr.io/acme/weather:1.0.0"), "ghcr.io/acme/weather@sha256:" + attesttest.SHA256(artifact), true},
		{"oci other repository", oci("ghcr.io/acme/weather:1.0.0"), "ghcr.io/evil/weather", false},
		{"oci other registry", oci("ghcr.io/acme/weather:1.0.0"), "docker.io/acme/weather", false},
		{"pypi wheel", pypi("Weather.MCP", "1.2.0"), "weather_mcp-1.2.0-py3-none-any.whl", true},
		{"pypi wheel with build tag", pypi("weather-mcp", "1.2.0"), "weather_mcp-1.2.0-1-py3-none-any.whl", true},
		{"pypi sdist", pypi("weather_mcp", "1.2.0"), "weather-mcp-1.2.0.tar.gz", true},
		{"pypi other project", pypi("weather-mcp", "1.2.0"), "weather_mcp_evil-1.2.0-py3-none-any.whl", false},
		{"pypi other version", pypi("weather-mcp", "1.2.0"), "weather_mcp-1.2.1.tar.gz", false},
		{"pypi path", pypi("weather-mcp", "1.2.0"), "dist/weather_mcp-1.2.0.tar.gz", false},
		{"pypi not a distribution", pypi("weather-mcp", "1.2.0"), "weather_mcp-1.2.0.exe", false},
		{"mcpb file", attest.Package{RegistryType: "mcpb", Identifier: "https://github.com/acme/w/releases/download/v1/weather.mcpb"}, "weather.mcpb", true},
		{"unknown type", attest.Package{RegistryType: "nuget", Identifier: "Acme.Weather", Version: "1.0.0"}, "pkg:nuget/Acme.Weather@1.0.0", false},
	}
	e := newEnv(t)
	sha := map[string]string{"sha256": attesttest.SHA256(artifact)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bundle := e.attest(t, attesttest.Statement(attesttest.SLSAProvenanceV1, c.subject, sha))
			_, err := e.verifier.Verify(bundle, attest.ArtifactBytes(artifact).For(c.pkg), privatePolicy())
			if c.ok && err != nil {
				t.Fatalf("subject %q for %s: %v", c.subject, c.pkg, err)
			}
			if !c.ok {
				wantErr(t, err, attest.ErrVerification, c.subject, c.pkg.String())
			}
		})
	}
}

// TestSubjectNameAndDigestTogether: one subject must both name the
// package and carry the digest; a name on one subject and the digest on
// another is a statement about two other things.
func TestSubjectNameAndDigestTogether(t *testing.T) {
	e := newEnv(t)
	st, _ := json.Marshal(map[string]any{
		"_type": "https://in-toto.io/Statement/v1", "predicateType": attesttest.SLSAProvenanceV1, "predicate": map[string]any{},
		"subject": []any{
			map[string]any{"name": "pkg:npm/weather-mcp@1.2.0", "digest": map[string]string{"sha256": attesttest.SHA256([]byte("other"))}},
			map[string]any{"name": "pkg:npm/evil@6.6.6", "digest": map[string]string{"sha256": attesttest.SHA256(artifact)}},
		}})
	_, err := e.verifier.Verify(e.attest(t, st), attest.ArtifactBytes(artifact).For(attest.Package{RegistryType: "npm",
		Identifier: "weather-mcp", Version: "1.2.0"}), privatePolicy())
	wantErr(t, err, attest.ErrVerification, "pkg:npm/weather-mcp@1.2.0", "not with artifact digest")
	// Without a package the same statement verifies by digest, as before.
	if _, err := e.verifier.Verify(e.attest(t, st), attest.ArtifactBytes(artifact), privatePolicy()); err != nil {
		t.Fatal(err)
	}
	// A message signature names no package: bound by digest alone.
	if _, err := e.verifier.Verify(e.sign(t, artifact), attest.ArtifactBytes(artifact).For(attest.Package{RegistryType: "npm",
		Identifier: "weather-mcp", Version: "1.2.0"}), privatePolicy()); err != nil {
		t.Fatal(err)
	}
}
