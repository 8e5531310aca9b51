package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/attest/attesttest"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

func ok(t *testing.T, what string, r response) response {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("%s: %d %s", what, r.Status, r.Body)
	}
	return r
}

func refused(t *testing.T, what string, r response, status int, parts ...string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: %d %s, want %d", what, r.Status, r.Body, status)
	}
	t.Logf("%s: %s", what, r.message(t))
	for _, p := range parts {
		if !strings.Contains(r.message(t), p) {
			t.Errorf("%s: message %q does not mention %q", what, r.message(t), p)
		}
	}
}

// TestAttestedApproval is the acceptance path: a bundle for the policy's
// identity yields a receipt and an approvable version; one from another
// identity, or none at all, is refused at approval naming the package and
// why; AddAttestation then fixes it.
func TestAttestedApproval(t *testing.T) {
	for _, dialect := range storetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			e := startAttest(t, dialect)
			// Before any policy: a malformed bundle is refused, a good one
			// is stored unverified, without a finding.
			refused(t, "malformed bundle without policy", e.submit(t, npmServerJSON("1.0.0"),
				map[string]any{"packageIndex": 0, "bundle": `{"mediaType": 7}`}), http.StatusBadRequest, "attestations[0].bundle")
			r := ok(t, "submit 1.0.0", e.submit(t, npmServerJSON("1.0.0"),
				map[string]any{"packageIdentifier": attestPackage, "bundle": e.provenance(t, releaseSAN, "1.0.0")}))
			a := attestationsOf(t, r)
			if len(a) != 1 || a[0]["verified"] != false || !strings.Contains(a[0]["error"].(string), "no attestation policy") ||
				a[0]["digestSource"] != "npm_registry" || !strings.HasPrefix(a[0]["artifactDigest"].(string), "sha512:") {
				t.Fatalf("attestation without policy: %v", a)
			}
			ok(t, "set policy", e.setPolicy(t, attestServer, attestPolicy(true, releaseSAN)))
			pol := ok(t, "get policy", call(t, "GET", e.in.URL+"/v1/servers/"+attestServer+"/policy", e.owner, nil)).json(t)
			if ap, _ := pol["attestation"].(map[string]any); ap == nil || ap["required"] != true || ap["trustedRoot"] != acmeRoot ||
				!strings.HasPrefix(pol["attestationDigest"].(string), "sha256:") {
				t.Fatalf("policy as served: %v", pol)
			}
			if r := call(t, "PUT", e.in.URL+"/v1/servers/"+attestServer+"/policy", e.owner,
				map[string]any{"policy": map[string]any{}, "reason": "weaken"}); r.Status != http.StatusForbidden {
				t.Fatalf("owner changed the policy: %d %s", r.Status, r.Body)
			}
			// Approval re-verifies under the policy now in force.
			ok(t, "approve 1.0.0", e.transition(t, "approve", attestServer, "1.0.0"))

			r = ok(t, "submit 1.1.0", e.submit(t, npmServerJSON("1.1.0"),
				map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "1.1.0")}))
			a = attestationsOf(t, r)
			if len(a) != 1 || a[0]["verified"] != true || a[0]["san"] != releaseSAN || a[0]["issuer"] != acmeIssuer ||
				a[0]["integratedTime"] == nil || a[0]["receipt"] == "" || a[0]["package"] != "npm @acme/signed-mcp 1.1.0" {
				t.Fatalf("receipt on the version: %v", a)
			}
			ok(t, "approve 1.1.0", e.transition(t, "approve", attestServer, "1.1.0"))
			// Discovery tells hosts the digest to check and who signed it.
			doc := decodePayload(t, ok(t, "resolve", call(t, "GET", e.in.URL+"/v1/discovery/servers?name="+attestServer+"&version=1.1.0", e.reviewer, nil)).Body)
			if !strings.Contains(doc, `"san":"`+releaseSAN+`"`) || !strings.Contains(doc, `"digest":"sha512:`) ||
				!strings.Contains(doc, `"digestSource":"server_json_meta"`) {
				t.Fatalf("discovery entry lacks the attestation summary or digest: %s", doc)
			}

			r = ok(t, "submit 1.2.0 signed by another identity", e.submit(t, npmServerJSON("1.2.0"),
				map[string]any{"packageIndex": 0, "bundle": e.provenance(t, otherSAN, "1.2.0")}))
			if a = attestationsOf(t, r); a[0]["verified"] != false || !hasHighFinding(r.json(t), "attestation_unverified") {
				t.Fatalf("bad identity: attestation %v, findings %v", a, r.json(t)["findings"])
			}
			refused(t, "approve 1.2.0", e.transition(t, "approve", attestServer, "1.2.0"), http.StatusConflict,
				"package 0 (npm @acme/signed-mcp 1.2.0)", "no verified attestation", "SAN", otherSAN)

			ok(t, "submit 1.3.0 without attestation", e.submit(t, npmServerJSON("1.3.0")))
			refused(t, "approve 1.3.0", e.transition(t, "approve", attestServer, "1.3.0"), http.StatusConflict,
				"package 0 (npm @acme/signed-mcp 1.3.0)", "no attestation")
			add := call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.3.0/attestations", e.owner,
				map[string]any{"attestation": map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "1.3.0")}})
			if a = attestationsOf(t, ok(t, "add attestation", add)); len(a) != 1 || a[0]["verified"] != true || a[0]["addedBy"] != "olga" {
				t.Fatalf("added attestation: %v", a)
			}
			outsider := e.in.Token(t, "mallory", registry.RoleOwner, "io.github.evil")
			if r := call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.3.0/attestations", outsider,
				map[string]any{"attestation": map[string]any{"bundle": e.provenance(t, otherSAN, "1.3.0")}}); r.Status != http.StatusForbidden {
				t.Fatalf("owner of another namespace attached an attestation: %d %s", r.Status, r.Body)
			}
			ok(t, "approve 1.3.0 after AddAttestation", e.transition(t, "approve", attestServer, "1.3.0"))
			ev := call(t, "GET", e.in.URL+"/v1/audit/events?action=attestation.add", e.reviewer, nil).json(t)["events"].([]any)
			if len(ev) != 1 {
				t.Fatalf("attestation.add audit events: %v", ev)
			}
			pe := call(t, "GET", e.in.URL+"/v1/audit/events?action=policy.confirm", e.reviewer, nil).json(t)["events"].([]any)
			if len(pe) != 1 || !strings.Contains(pe[0].(map[string]any)["after"].(string), "attestation=sha256:") {
				t.Fatalf("policy.confirm audit: %v", pe)
			}
		})
	}
}

// TestAttestedOCIPackage: the digest comes from the OCI reference.
func TestAttestedOCIPackage(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startAttest(t, dialect)
		manifest := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"}`)
		image := "ghcr.io/acme/oci-mcp@sha256:" + sha256Hex(manifest)
		sj := `{"$schema": "` + schemaURL + `", "name": "io.github.acme/oci", "description": "OCI server", "version": "1.0.0",
  "packages": [{"registryType": "oci", "identifier": "` + image + `", "transport": {"type": "stdio"}}]}`
		ok(t, "first submission", e.submit(t, strings.Replace(sj, `"1.0.0"`, `"0.9.0"`, 1)))
		ok(t, "policy", e.setPolicy(t, "io.github.acme/oci", map[string]any{"required": true, "trustedRoot": acmeRoot,
			"identities": []any{map[string]any{"issuerRegexp": "^https://issuer\\.acme\\.example$", "sanRegexp": "^release@acme\\.example$"}}}))
		bundle, err := e.ss.Sign(releaseSAN, acmeIssuer, manifest)
		if err != nil {
			t.Fatal(err)
		}
		r := ok(t, "submit", e.submit(t, sj, map[string]any{"packageIdentifier": image, "bundle": string(bundle)}))
		if a := attestationsOf(t, r); a[0]["verified"] != true || a[0]["digestSource"] != "oci_reference" ||
			a[0]["artifactDigest"] != "sha256:"+sha256Hex(manifest) {
			t.Fatalf("OCI attestation: %v", a)
		}
		ok(t, "approve", e.transition(t, "approve", "io.github.acme/oci", "1.0.0"))
	})
}

// hasHighFinding reports a finding of kind with severity high in version v.
func hasHighFinding(v map[string]any, kind string) bool {
	fs, _ := v["findings"].([]any)
	for _, f := range fs {
		m := f.(map[string]any)
		if m["kind"] == kind && m["severity"] == "high" {
			return true
		}
	}
	return false
}

// TestVerifyAttestationStoresNothing: owners' CI verifies through the same
// code path; nothing is stored or audited.
func TestVerifyAttestationStoresNothing(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startAttest(t, dialect)
		before := e.counts(t)
		body := func(san string) map[string]any {
			return map[string]any{"bundle": e.provenance(t, san, "2.0.0"), "artifactDigest": npmIntegrity(tarball("2.0.0")),
				"policy": attestPolicy(true, releaseSAN)}
		}
		r := ok(t, "verify", call(t, "POST", e.in.URL+"/v1/attestations:verify", e.host, body(releaseSAN)))
		a := r.json(t)["attestation"].(map[string]any)
		if a["verified"] != true || a["san"] != releaseSAN || a["receipt"] == "" {
			t.Fatalf("verify: %v", a)
		}
		r = ok(t, "verify other identity", call(t, "POST", e.in.URL+"/v1/attestations:verify", e.owner, body(otherSAN)))
		a = r.json(t)["attestation"].(map[string]any)
		if a["verified"] != false || !strings.Contains(a["error"].(string), otherSAN) {
			t.Fatalf("verify other identity: %v", a)
		}
		if after := e.counts(t); after != before {
			t.Fatalf("VerifyAttestation stored something: %v -> %v", before, after)
		}
	})
}

// TestKeySignedAttestation: a policy of public keys, a key-signed bundle
// timestamped by a TSA, the digest from fileSha256.
func TestKeySignedAttestation(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startAttest(t, dialect)
		signer, err := attesttest.NewKeySigner()
		if err != nil {
			t.Fatal(err)
		}
		pem, err := signer.PublicKeyPEM()
		if err != nil {
			t.Fatal(err)
		}
		sj := func(version string) string {
			return strings.Replace(npmServerJSON(version), `"transport"`, `"fileSha256": "`+sha256Hex(tarball(version))+`", "transport"`, 1)
		}
		ok(t, "first", e.submit(t, sj("0.1.0")))
		// The npm registry publishes only a sha512 integrity, so the
		// sha256 fileSha256 the key signed is the owner's word: the policy
		// must allow such digests to count.
		ok(t, "policy", e.setPolicy(t, attestServer, map[string]any{"required": true, "trustedRoot": acmeTSARoot, "publicKeys": []any{pem},
			"allowUnfetchedDigests": true}))
		bundle, err := signer.Sign(tarball("1.0.0"), e.ss)
		if err != nil {
			t.Fatal(err)
		}
		r := ok(t, "submit", e.submit(t, sj("1.0.0"), map[string]any{"packageIndex": 0, "bundle": string(bundle)}))
		if a := attestationsOf(t, r); a[0]["verified"] != true || a[0]["digestSource"] != "file_sha256" || a[0]["keyFingerprint"] == "" ||
			a[0]["ownerDigest"] != true {
			t.Fatalf("key-signed attestation: %v", a)
		}
		ok(t, "approve", e.transition(t, "approve", attestServer, "1.0.0"))
		other, _ := attesttest.NewKeySigner()
		bundle, _ = other.Sign(tarball("1.1.0"), e.ss)
		ok(t, "submit other key", e.submit(t, sj("1.1.0"), map[string]any{"packageIndex": 0, "bundle": string(bundle)}))
		refused(t, "approve other key", e.transition(t, "approve", attestServer, "1.1.0"), http.StatusConflict, "package 0", "no verified attestation")
	})
}
