package server_test

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpreg/mcpreg/attest/attesttest"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
)

const (
	releaseSAN    = "release@acme.example"
	otherSAN      = "intruder@evil.example"
	acmeIssuer    = "https://issuer.acme.example"
	acmeRoot      = "acme"
	acmeTSARoot   = "acme-tsa"
	attestServer  = "io.github.acme/signed"
	attestPackage = "@acme/signed-mcp"
)

// attestEnv is a service trusting a private sigstore deployment as "acme",
// with tokens for each role.
type attestEnv struct {
	in                           *servertest.Instance
	ss                           *attesttest.Sigstore
	admin, reviewer, owner, host string
	rootPath                     string
	npm                          *fakeNPM
}

func startAttest(t *testing.T, dialect string) *attestEnv {
	t.Helper()
	ss, err := attesttest.New()
	if err != nil {
		t.Fatal(err)
	}
	rootJSON, err := ss.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	tsaJSON, err := ss.TimestampRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := writeRoot(t, rootJSON)
	tsaPath := writeRoot(t, tsaJSON)
	npm := startFakeNPM(t)
	for _, v := range []string{"0.1.0", "1.0.0", "1.1.0", "1.2.0", "1.3.0", "2.0.0", "3.0.0"} {
		npm.publish(attestPackage, v, npmIntegrity(tarball(v)))
	}
	in := servertest.Start(t, dialect, func(c *config.Config) {
		c.TrustedRoots = append(c.TrustedRoots, acmeRoot+"="+path, acmeTSARoot+"="+tsaPath)
		c.ScanNPMRegistry = npm.srv.URL
	})
	return &attestEnv{in: in, ss: ss, rootPath: path, npm: npm,
		admin:    in.Token(t, "root", registry.RoleAdmin),
		reviewer: in.Token(t, "rita", registry.RoleReviewer),
		owner:    in.Token(t, "olga", registry.RoleOwner, "io.github.acme"),
		host:     in.Token(t, "hal", registry.RoleHost)}
}

func writeRoot(t *testing.T, doc []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trusted_root.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// tarball is the npm artifact of a version; its sha512 goes in _meta.
func tarball(version string) []byte { return []byte("package/ of @acme/signed-mcp " + version) }

func npmIntegrity(data []byte) string {
	sum := sha512.Sum512(data)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// npmServerJSON is a server.json whose npm package's sha512 is given in
// mcpreg's _meta.
func npmServerJSON(version string) string {
	return fmt.Sprintf(`{"$schema": %q, "name": %q, "description": "Signed weather", "version": %q,
  "packages": [{"registryType": "npm", "identifier": %q, "version": %q, "transport": {"type": "stdio"}}],
  "_meta": {"io.mcpreg/registry": {"packages": [{"identifier": %q, "version": %q, "digest": %q}]}}}`,
		schemaURL, attestServer, version, attestPackage, version, attestPackage, version, npmIntegrity(tarball(version)))
}

// provenance is an SLSA provenance bundle about version's tarball (sha512
// subject, as npm provenance), signed by san.
func (e *attestEnv) provenance(t *testing.T, san, version string) string {
	t.Helper()
	sum := sha512.Sum512(tarball(version))
	st := attesttest.Statement(attesttest.SLSAProvenanceV1, "pkg:npm/"+attestPackage+"@"+version,
		map[string]string{"sha512": hex.EncodeToString(sum[:])})
	b, err := e.ss.Attest(san, acmeIssuer, st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func attestPolicy(required bool, san string) map[string]any {
	return map[string]any{"required": required, "trustedRoot": acmeRoot,
		"identities":     []any{map[string]any{"issuer": acmeIssuer, "san": san}},
		"predicateTypes": []any{attesttest.SLSAProvenanceV1}}
}

// setPolicy sets a server's attestation policy as the reviewer; a change
// that is pending (a weakening) is confirmed by the admin, a second
// principal, and the confirmation's answer returned.
func (e *attestEnv) setPolicy(t *testing.T, name string, pol map[string]any) response {
	t.Helper()
	r := e.proposePolicy(t, e.reviewer, name, pol)
	if r.Status != 200 {
		return r
	}
	pending, _ := r.json(t)["pending"].(map[string]any)
	if pending == nil {
		return r
	}
	return e.confirmPolicy(t, e.admin, name, pending["digest"].(string))
}

// proposePolicy sends a policy change as token, unconfirmed.
func (e *attestEnv) proposePolicy(t *testing.T, token, name string, pol map[string]any) response {
	t.Helper()
	return call(t, "PUT", e.in.URL+"/v1/servers/"+name+"/policy", token,
		map[string]any{"policy": map[string]any{"attestation": pol}, "reason": "supply chain"})
}

func (e *attestEnv) confirmPolicy(t *testing.T, token, name, digest string) response {
	t.Helper()
	return call(t, "POST", e.in.URL+"/v1/servers/"+name+"/policy:confirm", token,
		map[string]any{"digest": digest, "reason": "second pair of eyes"})
}

func (e *attestEnv) submit(t *testing.T, serverJSON string, atts ...map[string]any) response {
	t.Helper()
	body := map[string]any{"serverJson": serverJSON, "tools": toolsJSON}
	if len(atts) > 0 {
		body["attestations"] = atts
	}
	return call(t, "POST", e.in.URL+"/v1/versions", e.owner, body)
}

func (e *attestEnv) transition(t *testing.T, action, name, version string) response {
	t.Helper()
	return call(t, "POST", e.in.URL+"/v1/servers/"+name+"/versions/"+version+"/"+action, e.reviewer,
		map[string]any{"reason": "reviewed"})
}

// counts are the rows a refused request must leave alone.
func (e *attestEnv) counts(t *testing.T) [3]int {
	t.Helper()
	ctx := context.Background()
	c := e.in.Store.Client
	a, err := c.Attestation.Query().Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := c.Version.Query().Count(ctx)
	ev, _ := c.AuditEvent.Query().Count(ctx)
	return [3]int{a, v, ev}
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func attestationsOf(t *testing.T, r response) []map[string]any {
	t.Helper()
	raw, _ := r.json(t)["attestations"].([]any)
	out := make([]map[string]any, len(raw))
	for i, a := range raw {
		out[i] = a.(map[string]any)
	}
	return out
}
