package cli_test

import (
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/attest/attesttest"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

const (
	signedName    = "io.github.acme/signed"
	signedPackage = "@acme/signed-mcp"
	releaseSAN    = "release@acme.example"
	intruderSAN   = "intruder@evil.example"
	acmeIssuer    = "https://issuer.acme.example"
)

// attestFixture is a service trusting a private sigstore as "acme", with
// an owner, a reviewer and an admin, and a scratch directory.
type attestFixture struct {
	in                     *servertest.Instance
	ss                     *attesttest.Sigstore
	owner, reviewer, admin string
	dir                    string
}

func newAttestFixture(t *testing.T, dialect string) *attestFixture {
	t.Helper()
	ss, err := attesttest.New()
	if err != nil {
		t.Fatal(err)
	}
	rootJSON, err := ss.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	f := &attestFixture{ss: ss, dir: t.TempDir()}
	rootPath := f.write(t, "trusted_root.json", string(rootJSON))
	npm := httptest.NewServer(http.HandlerFunc(servePackument))
	t.Cleanup(npm.Close)
	f.in = servertest.Start(t, dialect, func(c *config.Config) {
		c.TrustedRoots = append(c.TrustedRoots, "acme="+rootPath)
		c.ScanNPMRegistry = npm.URL
	})
	f.owner = f.in.Token(t, "olga", registry.RoleOwner, "io.github.acme")
	f.reviewer = f.in.Token(t, "rita", registry.RoleReviewer)
	f.admin = f.in.Token(t, "root", registry.RoleAdmin)
	return f
}

func (f *attestFixture) write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// tarball is the npm artifact of a version.
func tarball(version string) []byte { return []byte("package/ of " + signedPackage + " " + version) }

func sha512Hex(data []byte) string {
	sum := sha512.Sum512(data)
	return hex.EncodeToString(sum[:])
}

// servePackument is an npm registry on loopback that publishes
// signedPackage 1.0.0 and 1.0.1 with the integrity of their tarballs: the
// registry reads the digest of an attested npm package from it.
func servePackument(w http.ResponseWriter, r *http.Request) {
	if r.URL.EscapedPath() != "/@acme%2Fsigned-mcp" {
		http.NotFound(w, r)
		return
	}
	versions := ""
	for i, v := range []string{"1.0.0", "1.0.1"} {
		sum := sha512.Sum512(tarball(v))
		if i > 0 {
			versions += ","
		}
		versions += fmt.Sprintf(`%q:{"dist":{"integrity":"sha512-%s"}}`, v, base64.StdEncoding.EncodeToString(sum[:]))
	}
	_, _ = fmt.Fprintf(w, `{"name":%q,"versions":{%s}}`, signedPackage, versions)
}

// serverJSON names the npm package and its sha512 in mcpreg's _meta.
func (f *attestFixture) serverJSON(t *testing.T, version string) string {
	return f.write(t, "server-"+version+".json", fmt.Sprintf(`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
 "name":%q,"description":"Signed weather","version":%q,
 "packages":[{"registryType":"npm","identifier":%q,"version":%q,"transport":{"type":"stdio"}}],
 "_meta":{"io.mcpreg/registry":{"packages":[{"identifier":%q,"version":%q,"digest":"sha512:%s"}]}}}`,
		signedName, version, signedPackage, version, signedPackage, version, sha512Hex(tarball(version))))
}

// bundle is an SLSA provenance bundle about version's tarball, signed by san.
func (f *attestFixture) bundle(t *testing.T, san, version string) string {
	t.Helper()
	st := attesttest.Statement(attesttest.SLSAProvenanceV1, "pkg:npm/"+signedPackage+"@"+version,
		map[string]string{"sha512": sha512Hex(tarball(version))})
	b, err := f.ss.Attest(san, acmeIssuer, st)
	if err != nil {
		t.Fatal(err)
	}
	return f.write(t, san+"-"+version+".bundle.json", string(b))
}

const attestPolicyJSON = `{"required": true, "trustedRoot": "acme",
 "identities": [{"issuer": "https://issuer.acme.example", "san": "release@acme.example"}],
 "predicateTypes": ["https://slsa.dev/provenance/v1"]}`

// policyOut is the part of a ServerPolicy the test reads.
type policyOut struct {
	RequireContract bool
	Attestation     *struct {
		Required       bool
		TrustedRoot    string
		Identities     []struct{ Issuer, San string }
		PredicateTypes []string
	}
	Pending *struct{ Digest, ProposedBy string }
}

// setPolicy runs policy set as the reviewer; a change left pending (a
// weakening) is confirmed with policy confirm by the admin.
func (f *attestFixture) setPolicy(t *testing.T, flags ...string) policyOut {
	t.Helper()
	args := append([]string{"policy", "set", signedName, "--reason", "supply chain", "-o", "json"}, flags...)
	var p policyOut
	decodeJSON(t, mustRun(t, f.in.URL, f.reviewer, args...), &p)
	if p.Pending == nil {
		return p
	}
	p = policyOut{}
	decodeJSON(t, mustRun(t, f.in.URL, f.admin, "policy", "confirm", signedName, "--digest", p0digest(t, f), "--reason", "second pair of eyes", "-o", "json"), &p)
	if p.Pending != nil {
		t.Fatalf("policy confirm left a pending change: %+v", p)
	}
	return p
}

// p0digest reads the pending change's digest with policy get.
func p0digest(t *testing.T, f *attestFixture) string {
	t.Helper()
	var p policyOut
	decodeJSON(t, mustRun(t, f.in.URL, f.admin, "policy", "get", signedName, "-o", "json"), &p)
	if p.Pending == nil || p.Pending.Digest == "" {
		t.Fatalf("policy get shows no pending change")
	}
	return p.Pending.Digest
}

// TestCLIPolicySetKeepsWhatItDoesNotName: policy set reads the policy and
// changes only what its flags name, though the API replaces the whole policy.
func TestCLIPolicySetKeepsWhatItDoesNotName(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		f := newAttestFixture(t, dialect)
		mustRun(t, f.in.URL, f.owner, "submit", "--server-json", f.serverJSON(t, "1.0.0"), "--tools", "testdata/tools.json")
		if p := f.setPolicy(t, "--require-contract=true"); !p.RequireContract || p.Attestation != nil {
			t.Fatalf("after --require-contract=true: %+v", p)
		}
		p := f.setPolicy(t, "--attestation-policy", f.write(t, "policy.json", attestPolicyJSON))
		if !p.RequireContract || p.Attestation == nil {
			t.Fatalf("setting the attestation policy lost require-contract: %+v", p)
		}
		p = f.setPolicy(t, "--require-contract=false")
		a := p.Attestation
		if p.RequireContract || a == nil || !a.Required || a.TrustedRoot != "acme" || len(a.Identities) != 1 ||
			a.Identities[0].San != releaseSAN || len(a.PredicateTypes) != 1 {
			t.Fatalf("--require-contract=false changed the attestation policy: %+v", p)
		}
		out := mustRun(t, f.in.URL, f.reviewer, "policy", "get", signedName)
		for _, want := range []string{"required=true", "acme", "san " + releaseSAN, attesttest.SLSAProvenanceV1} {
			if !strings.Contains(out, want) {
				t.Errorf("policy get lacks %q:\n%s", want, out)
			}
		}
		f.setPolicy(t, "--require-contract=true")
		if p := f.setPolicy(t, "--attestation-policy", "none"); !p.RequireContract || p.Attestation != nil {
			t.Fatalf("--attestation-policy none: %+v", p)
		}
	})
}

// TestCLIAttestations attaches bundles with attest add and submit
// --attestation, shows them with versions get and re-verifies them.
func TestCLIAttestations(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		f := newAttestFixture(t, dialect)
		mustRun(t, f.in.URL, f.owner, "submit", "--server-json", f.serverJSON(t, "1.0.0"), "--tools", "testdata/tools.json")
		f.setPolicy(t, "--attestation-policy", f.write(t, "policy.json", attestPolicyJSON))

		out := mustRun(t, f.in.URL, f.owner, "attest", "add", signedName, "1.0.0", "--bundle", f.bundle(t, intruderSAN, "1.0.0"),
			"--identifier", signedPackage)
		if !containsRow(out, "#0", "no", intruderSAN) {
			t.Fatalf("attest add of a foreign bundle:\n%s", out)
		}
		out = mustRun(t, f.in.URL, f.owner, "attest", "add", signedName, "1.0.0", "--bundle", f.bundle(t, releaseSAN, "1.0.0"),
			"--package", "0", "--digest", "sha512:"+sha512Hex(tarball("1.0.0")))
		if !containsRow(out, "#0", "yes", releaseSAN+" ("+acmeIssuer+")") {
			t.Fatalf("attest add:\n%s", out)
		}
		out = mustRun(t, f.in.URL, f.owner, "attest", "add", signedName, "1.0.0", "--bundle", f.bundle(t, releaseSAN, "1.0.0"),
			"--package", "0", "--artifact", f.write(t, "package-1.0.0.tgz", string(tarball("1.0.0"))))
		if !containsRow(out, "#0", "yes", releaseSAN) {
			t.Fatalf("attest add --artifact:\n%s", out)
		}
		if _, err := runCLI(t, f.in.URL, f.owner, "attest", "add", signedName, "1.0.0", "--bundle", f.bundle(t, releaseSAN, "1.0.0"),
			"--package", "0", "--artifact", f.write(t, "evil.tgz", "not the package")); err == nil || !strings.Contains(err.Error(), "uploaded bytes have digest") {
			t.Fatalf("attest add --artifact with other bytes: %v", err)
		}
		out = mustRun(t, f.in.URL, f.reviewer, "versions", "get", signedName, "1.0.0")
		if !strings.Contains(out, "Attestations (3):") || !containsRow(out, "#0", "yes", releaseSAN) {
			t.Fatalf("versions get:\n%s", out)
		}

		var v struct{ Attestations []struct{ Verified bool } }
		decodeJSON(t, mustRun(t, f.in.URL, f.owner, "submit", "--server-json", f.serverJSON(t, "1.0.1"),
			"--tools", "testdata/tools.json", "--attestation", signedPackage+"="+f.bundle(t, releaseSAN, "1.0.1"), "-o", "json"), &v)
		if len(v.Attestations) != 1 || !v.Attestations[0].Verified {
			t.Fatalf("submit --attestation: %+v", v)
		}

		if out, err := runCLI(t, f.in.URL, f.owner, "attest", "reverify"); err == nil || !strings.Contains(out+err.Error(), "403") {
			t.Fatalf("reverify by an owner: %v\n%s", err, out)
		}
		var rep struct{ Checked, Passed, Failed int }
		decodeJSON(t, mustRun(t, f.in.URL, f.admin, "attest", "reverify", "-o", "json"), &rep)
		if rep.Checked != 4 || rep.Passed != 3 || rep.Failed != 1 {
			t.Fatalf("reverify: %+v", rep)
		}
	})
}

// containsRow reports whether one line of out holds every field in order.
func containsRow(out string, fields ...string) bool {
	for line := range strings.SplitSeq(out, "\n") {
		rest, ok := line, true
		for _, f := range fields {
			i := strings.Index(rest, f)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(f):]
		}
		if ok {
			return true
		}
	}
	return false
}

// TestCLIAttestConfirm: a bundle attached to an approved version is shown
// pending with its id; the admin who attached it cannot confirm it, a
// reviewer can.
func TestCLIAttestConfirm(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		f := newAttestFixture(t, dialect)
		mustRun(t, f.in.URL, f.owner, "submit", "--server-json", f.serverJSON(t, "1.0.0"), "--tools", "testdata/tools.json")
		mustRun(t, f.in.URL, f.reviewer, "approve", signedName, "1.0.0", "--reason", "reviewed")
		out := mustRun(t, f.in.URL, f.admin, "attest", "add", signedName, "1.0.0", "--bundle", f.bundle(t, releaseSAN, "1.0.0"), "--package", "0")
		if !strings.Contains(out, "[pending, id 1]") {
			t.Fatalf("attest add to an approved version:\n%s", out)
		}
		if _, err := runCLI(t, f.in.URL, f.reviewer, "attest", "confirm", signedName, "1.0.0", "1"); err == nil || !strings.Contains(err.Error(), "--reason is required") {
			t.Fatalf("confirm without a reason: %v", err)
		}
		if _, err := runCLI(t, f.in.URL, f.admin, "attest", "confirm", signedName, "1.0.0", "1", "--reason", "mine"); err == nil ||
			!strings.Contains(err.Error(), "four-eyes") {
			t.Fatalf("confirm by the admin who added it: %v", err)
		}
		f.setPolicy(t, "--attestation-policy", f.write(t, "loose.json", strings.Replace(attestPolicyJSON, `"required": true`,
			`"required": true, "allowUnfetchedDigests": true`, 1)))
		if out := mustRun(t, f.in.URL, f.reviewer, "policy", "get", signedName); !strings.Contains(out, "allowUnfetchedDigests") {
			t.Fatalf("policy get does not show allowUnfetchedDigests:\n%s", out)
		}
		out = mustRun(t, f.in.URL, f.reviewer, "attest", "confirm", signedName, "1.0.0", "1", "--reason", "provenance checked")
		if strings.Contains(out, "pending") || !containsRow(out, "#0", "sha512:"+sha512Hex(tarball("1.0.0")), "no", "no attestation policy") {
			t.Fatalf("attest confirm:\n%s", out)
		}
	})
}
