package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestAttestationBadInput: each bad request is refused with a clear error
// and leaves attestations, versions and the audit log as they were.
func TestAttestationBadInput(t *testing.T) {
	for _, dialect := range storetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			e := startAttest(t, dialect)
			ok(t, "first version", e.submit(t, npmServerJSON("1.0.0")))
			ok(t, "policy", e.setPolicy(t, attestServer, attestPolicy(true, releaseSAN)))
			good := e.provenance(t, releaseSAN, "3.0.0")
			// server.json without any digest for its package.
			bare := strings.Replace(serverJSON(attestServer, "3.0.0"), `"@acme/weather-mcp"`, `"`+attestPackage+`"`, 1)
			// A PyPI package: the registry cannot obtain its digest itself.
			pypiBare := strings.Replace(serverJSON(attestServer, "3.0.0"), `"registryType": "npm", "identifier": "@acme/weather-mcp"`,
				`"registryType": "pypi", "identifier": "signed-mcp"`, 1)
			huge := `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","pad":"` + strings.Repeat("x", 2<<20) + `"}`
			cases := []struct {
				name   string
				do     func() response
				status int
				parts  []string
			}{
				{"oversized bundle", func() response {
					return e.submit(t, npmServerJSON("3.0.0"), map[string]any{"packageIndex": 0, "bundle": huge})
				}, http.StatusRequestEntityTooLarge, []string{"attestations[0].bundle", "limit"}},
				{"malformed bundle", func() response {
					return e.submit(t, npmServerJSON("3.0.0"), map[string]any{"packageIndex": 0, "bundle": `{"mediaType":"nope"}`})
				}, http.StatusBadRequest, []string{"attestations[0].bundle", "not a sigstore bundle"}},
				{"package entry that does not exist", func() response {
					return e.submit(t, npmServerJSON("3.0.0"), map[string]any{"packageIndex": 3, "bundle": good})
				}, http.StatusBadRequest, []string{"attestations[0].packageIndex 3", "1 package"}},
				{"package identifier that does not exist", func() response {
					return e.submit(t, npmServerJSON("3.0.0"), map[string]any{"packageIdentifier": "@acme/other", "bundle": good})
				}, http.StatusBadRequest, []string{"@acme/other", "no package"}},
				{"unsupported digest", func() response {
					return e.submit(t, bare, map[string]any{"packageIndex": 0, "bundle": good, "artifactDigest": "md5:d41d8cd98f00b204e9800998ecf8427e"})
				}, http.StatusBadRequest, []string{"attestations[0]", "md5", "not supported"}},
				{"no digest at all", func() response {
					return e.submit(t, pypiBare, map[string]any{"packageIndex": 0, "bundle": good})
				}, http.StatusBadRequest, []string{"no artifact digest", "artifactDigest is empty"}},
				{"digest contradicting server.json", func() response {
					return e.submit(t, npmServerJSON("3.0.0"), map[string]any{"packageIndex": 0, "bundle": good,
						"artifactDigest": "sha256:" + sha256Hex([]byte("x"))})
				}, http.StatusBadRequest, []string{"contradicts"}},
				{"unanchored regexp policy", func() response {
					return e.setPolicy(t, attestServer, map[string]any{"required": true, "trustedRoot": acmeRoot,
						"identities": []any{map[string]any{"issuer": acmeIssuer, "sanRegexp": "@acme\\.example"}}})
				}, http.StatusBadRequest, []string{"policy.attestation.identities[0].sanRegexp", "anchored"}},
				{"unknown trusted root", func() response {
					p := attestPolicy(true, releaseSAN)
					p["trustedRoot"] = "nowhere"
					return e.setPolicy(t, attestServer, p)
				}, http.StatusBadRequest, []string{"policy.attestation.trustedRoot", "nowhere"}},
				{"policy without identity", func() response {
					return e.setPolicy(t, attestServer, map[string]any{"required": false, "trustedRoot": acmeRoot})
				}, http.StatusBadRequest, []string{"policy.attestation.identities"}},
				{"verify: malformed bundle", func() response {
					return call(t, "POST", e.in.URL+"/v1/attestations:verify", e.host, map[string]any{"bundle": "[]",
						"artifactDigest": npmIntegrity(tarball("3.0.0")), "policy": attestPolicy(true, releaseSAN)})
				}, http.StatusBadRequest, []string{"bundle"}},
				{"verify: unsupported digest", func() response {
					return call(t, "POST", e.in.URL+"/v1/attestations:verify", e.host, map[string]any{"bundle": good,
						"artifactDigest": "sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709", "policy": attestPolicy(true, releaseSAN)})
				}, http.StatusBadRequest, []string{"artifactDigest", "sha1"}},
				{"add: package entry that does not exist", func() response {
					return call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.0.0/attestations", e.owner,
						map[string]any{"attestation": map[string]any{"packageIndex": 1, "bundle": good}})
				}, http.StatusBadRequest, []string{"attestation.packageIndex 1"}},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					before := e.counts(t)
					refused(t, c.name, c.do(), c.status, c.parts...)
					if after := e.counts(t); after != before {
						t.Fatalf("stored something: %v -> %v", before, after)
					}
				})
			}
		})
	}
}
