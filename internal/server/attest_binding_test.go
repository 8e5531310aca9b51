package server_test

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/attest/attesttest"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// TestForeignProvenanceDoesNotApprove is the attack of issue 13 section 4:
// the public provenance bundle of sigstore@1.3.0, with the digest of that
// tarball, attached to a version whose package is
// totally-different-evil-pkg@6.6.6 under a required policy naming
// sigstore-js's release workflow. Even when the npm registry publishes the
// very same bytes under the evil name, the statement is about another
// package: the attestation does not verify and approval is refused,
// naming both.
func TestForeignProvenanceDoesNotApprove(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		npm := startFakeNPM(t)
		npm.publish("totally-different-evil-pkg", "6.6.6", npmIntegrity13)
		in := servertest.Start(t, dialect, func(c *config.Config) { c.ScanNPMRegistry = npm.srv.URL })
		owner := in.Token(t, "mallory", registry.RoleOwner, "io.github.evil")
		reviewer := in.Token(t, "rita", registry.RoleReviewer)
		const name = "io.github.evil/pkg"
		bundle, err := os.ReadFile(npmBundle)
		if err != nil {
			t.Fatal(err)
		}
		doc := `{"$schema": "` + schemaURL + `", "name": "` + name + `", "description": "Evil", "version": "6.6.6",
  "packages": [{"registryType": "npm", "identifier": "totally-different-evil-pkg", "version": "6.6.6", "transport": {"type": "stdio"}}],
  "_meta": {"io.mcpreg/registry": {"packages": [{"identifier": "totally-different-evil-pkg", "digest": "` + npmIntegrity13 + `"}]}}}`
		ok(t, "first version", call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": doc, "tools": toolsJSON}))
		proposed := ok(t, "required policy", call(t, "PUT", in.URL+"/v1/servers/"+name+"/policy", reviewer, map[string]any{"reason": "supply chain",
			"policy": map[string]any{"attestation": map[string]any{"required": true,
				"identities":       []any{map[string]any{"issuer": githubIssuer, "san": sigstoreJSSAN}},
				"sourceRepository": sigstoreJSRepo, "sourceRepositoryRef": "refs/heads/main"}}})).json(t)
		// A server's first attestation policy is a weakening (it starts
		// trusting a signer): a second reviewer puts it in force.
		pending, _ := proposed["pending"].(map[string]any)
		if pending == nil {
			t.Fatalf("the first attestation policy was not held for a second reviewer: %v", proposed)
		}
		ok(t, "confirm policy", call(t, "POST", in.URL+"/v1/servers/"+name+"/policy:confirm", in.Token(t, "bob", registry.RoleReviewer),
			map[string]any{"digest": pending["digest"], "reason": "second pair of eyes"}))
		doc2 := `{"$schema": "` + schemaURL + `", "name": "` + name + `", "description": "Evil", "version": "6.6.7",
  "packages": [{"registryType": "npm", "identifier": "totally-different-evil-pkg", "version": "6.6.6", "transport": {"type": "stdio"}}],
  "_meta": {"io.mcpreg/registry": {"packages": [{"identifier": "totally-different-evil-pkg", "digest": "` + npmIntegrity13 + `"}]}}}`
		ok(t, "submit with the foreign bundle", call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": doc2, "tools": toolsJSON,
			"attestations": []any{map[string]any{"packageIndex": 0, "bundle": string(bundle)}}}))
		refused(t, "approve with a foreign provenance", call(t, "POST", in.URL+"/v1/servers/"+name+"/versions/6.6.7/approve", reviewer,
			map[string]any{"reason": "looks signed"}), http.StatusConflict,
			"pkg:npm/sigstore@1.3.0", "totally-different-evil-pkg@6.6.6")
	})
}

// npmServerJSONBare is npmServerJSON without a digest in _meta: the
// registry obtains it from the npm registry.
func npmServerJSONBare(version string) string {
	return fmt.Sprintf(`{"$schema": %q, "name": %q, "description": "Signed weather", "version": %q,
  "packages": [{"registryType": "npm", "identifier": %q, "version": %q, "transport": {"type": "stdio"}}]}`,
		schemaURL, attestServer, version, attestPackage, version)
}

// TestOwnerDigestMustBeTheNPMRegistrys: the digest that counts is the
// npm registry's integrity for that exact version. An owner digest that
// disagrees is a high finding that blocks approval, naming both; a
// bundle about the owner's bytes does not verify against the published
// ones; a version the npm registry does not have is refused.
func TestOwnerDigestMustBeTheNPMRegistrys(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startAttest(t, dialect)
		ok(t, "first version", e.submit(t, npmServerJSONBare("0.1.0")))
		ok(t, "set policy", e.setPolicy(t, attestServer, attestPolicy(true, releaseSAN)))

		// server.json claims the tampered tarball; the bundle is about the
		// published one.
		doc := strings.Replace(npmServerJSON("2.0.0"), npmIntegrity(tarball("2.0.0")), npmIntegrity(tarball("2.0.0-tampered")), 1)
		r := ok(t, "submit with a wrong owner digest", e.submit(t, doc,
			map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "2.0.0")}))
		a := attestationsOf(t, r)
		published := "sha512:" + sha512Hex(tarball("2.0.0"))
		if len(a) != 1 || a[0]["verified"] != true || a[0]["digestSource"] != "npm_registry" || a[0]["artifactDigest"] != published ||
			a[0]["ownerDigest"] == true {
			t.Fatalf("attestation: %v", a)
		}
		if f := findingOf(t, r, "artifact.digest_mismatch"); f == nil || f["severity"] != "high" ||
			!strings.Contains(f["message"].(string), sha512Hex(tarball("2.0.0-tampered"))) || !strings.Contains(f["message"].(string), sha512Hex(tarball("2.0.0"))) {
			t.Fatalf("findings: %v", r.json(t)["findings"])
		}
		refused(t, "approve", e.transition(t, "approve", attestServer, "2.0.0"), http.StatusConflict,
			"owner's digest", sha512Hex(tarball("2.0.0-tampered")), sha512Hex(tarball("2.0.0")))

		// A bundle about the owner's (unpublished) bytes does not verify.
		doc = strings.Replace(npmServerJSON("1.2.0"), npmIntegrity(tarball("1.2.0")), npmIntegrity(tarball("1.1.0-evil")), 1)
		st := attesttest.Statement(attesttest.SLSAProvenanceV1, "pkg:npm/"+attestPackage+"@1.2.0", map[string]string{"sha512": sha512Hex(tarball("1.1.0-evil"))})
		bundle, err := e.ss.Attest(releaseSAN, acmeIssuer, st)
		if err != nil {
			t.Fatal(err)
		}
		r = ok(t, "submit a bundle about other bytes", e.submit(t, doc, map[string]any{"packageIndex": 0, "bundle": string(bundle)}))
		if a := attestationsOf(t, r); len(a) != 1 || a[0]["verified"] != false || !strings.Contains(a[0]["error"].(string), published[:20]) &&
			!strings.Contains(a[0]["error"].(string), "does not match") {
			t.Fatalf("attestation about other bytes: %v", a)
		}
		refused(t, "approve 1.2.0", e.transition(t, "approve", attestServer, "1.2.0"), http.StatusConflict, "package 0")

		// A version the npm registry does not publish.
		before := e.counts(t)
		refused(t, "unpublished version", e.submit(t, npmServerJSONBare("9.9.9"),
			map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "9.9.9")}), http.StatusConflict,
			"attestations[0]", "no version 9.9.9 of "+attestPackage, e.npm.srv.URL)
		if after := e.counts(t); after != before {
			t.Errorf("a refused submission changed rows: %v -> %v", before, after)
		}
		// Without any digest in server.json the npm registry's counts.
		r = ok(t, "submit without a digest", e.submit(t, npmServerJSONBare("1.3.0"),
			map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "1.3.0")}))
		if a := attestationsOf(t, r); len(a) != 1 || a[0]["verified"] != true || a[0]["digestSource"] != "npm_registry" {
			t.Fatalf("attestation without a declared digest: %v", a)
		}
		ok(t, "approve 1.3.0", e.transition(t, "approve", attestServer, "1.3.0"))
	})
}

// TestUnfetchedDigestIsTheOwnersWord: for a PyPI package the registry
// cannot obtain the digest itself. A required policy counts such an
// attestation only with allowUnfetchedDigests, the API marks it, and the
// subject must still name a distribution file of that project and version.
func TestUnfetchedDigestIsTheOwnersWord(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startAttest(t, dialect)
		const name = "io.github.acme/pyweather"
		wheel := []byte("weather_mcp-1.0.0-py3-none-any.whl contents")
		doc := func(v string) string {
			return fmt.Sprintf(`{"$schema": %q, "name": %q, "description": "Py weather", "version": %q,
  "packages": [{"registryType": "pypi", "identifier": "weather-mcp", "version": "1.0.0", "transport": {"type": "stdio"}}],
  "_meta": {"io.mcpreg/registry": {"packages": [{"identifier": "weather-mcp", "digest": "sha256:%s"}]}}}`, schemaURL, name, v, sha256Hex(wheel))
		}
		ok(t, "first version", e.submit(t, doc("0.1.0")))
		ok(t, "set policy", e.setPolicy(t, name, attestPolicy(true, releaseSAN)))
		attestAbout := func(subject string) string {
			b, err := e.ss.Attest(releaseSAN, acmeIssuer, attesttest.Statement(attesttest.SLSAProvenanceV1, subject, map[string]string{"sha256": sha256Hex(wheel)}))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		r := ok(t, "submit", e.submit(t, doc("1.0.0"), map[string]any{"packageIndex": 0, "bundle": attestAbout("weather_mcp-1.0.0-py3-none-any.whl")}))
		if a := attestationsOf(t, r); len(a) != 1 || a[0]["verified"] != true || a[0]["ownerDigest"] != true || a[0]["digestSource"] != "server_json_meta" {
			t.Fatalf("attestation: %v", a)
		}
		refused(t, "approve without allowUnfetchedDigests", e.transition(t, "approve", name, "1.0.0"), http.StatusConflict,
			"owner's word", "server_json_meta", "allowUnfetchedDigests")
		// Another project's wheel with the same bytes is not about this one.
		r = ok(t, "submit foreign wheel", e.submit(t, doc("1.0.1"), map[string]any{"packageIndex": 0, "bundle": attestAbout("weather_mcp_evil-1.0.0-py3-none-any.whl")}))
		if a := attestationsOf(t, r); len(a) != 1 || a[0]["verified"] != false ||
			!strings.Contains(a[0]["error"].(string), "weather_mcp_evil-1.0.0-py3-none-any.whl") || !strings.Contains(a[0]["error"].(string), "pypi weather-mcp 1.0.0") {
			t.Fatalf("foreign wheel: %v", a)
		}
		pol := attestPolicy(true, releaseSAN)
		pol["allowUnfetchedDigests"] = true
		ok(t, "allow unfetched digests", e.setPolicy(t, name, pol))
		got := ok(t, "get policy", call(t, "GET", e.in.URL+"/v1/servers/"+name+"/policy", e.reviewer, nil)).json(t)
		if ap, _ := got["attestation"].(map[string]any); ap["allowUnfetchedDigests"] != true {
			t.Fatalf("policy as served: %v", got)
		}
		ok(t, "approve with allowUnfetchedDigests", e.transition(t, "approve", name, "1.0.0"))
		refused(t, "approve the foreign wheel", e.transition(t, "approve", name, "1.0.1"), http.StatusConflict, "weather_mcp_evil")
	})
}

// TestAttestationOnApprovedVersionIsPending: an attestation added to an
// approved version changes nothing hosts see (discovery digest and
// attestations, the scanner's digest) until a reviewer other than the
// principal who added it confirms it; the adder cannot (four-eyes, on
// REST and gRPC); the confirmation is audited and leaves the state alone.
func TestAttestationOnApprovedVersionIsPending(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startAttest(t, dialect)
		ok(t, "first version", e.submit(t, npmServerJSONBare("0.1.0")))
		ok(t, "submit 1.0.0", e.submit(t, npmServerJSONBare("1.0.0")))
		ok(t, "approve 1.0.0", e.transition(t, "approve", attestServer, "1.0.0"))
		ok(t, "set policy", e.setPolicy(t, attestServer, attestPolicy(false, releaseSAN)))
		// The entries (not the document's sequence, which counts audit events).
		resolve := func() string {
			doc := decodePayload(t, ok(t, "resolve", call(t, "GET", e.in.URL+"/v1/discovery/servers?name="+attestServer+"&version=1.0.0", e.host, nil)).Body)
			_, servers, _ := strings.Cut(doc, `"servers":`)
			return servers
		}
		before := resolve()
		if strings.Contains(before, `"digest":"sha512:`) {
			t.Fatalf("discovery before: %s", before)
		}
		// An owner digest that disagrees with the npm registry's is refused
		// outright on an approved version (not even a finding appears).
		refused(t, "disagreeing digest on an approved version", call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.0.0/attestations", e.admin,
			map[string]any{"attestation": map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "1.0.0"),
				"artifactDigest": npmIntegrity(tarball("2.0.0-tampered"))}}), http.StatusConflict,
			"owner's digest", sha512Hex(tarball("2.0.0-tampered")), sha512Hex(tarball("1.0.0")))
		// A bundle that does not verify waits too, without a finding yet.
		r := ok(t, "admin adds a foreign signer's bundle", call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.0.0/attestations", e.admin,
			map[string]any{"attestation": map[string]any{"packageIndex": 0, "bundle": e.provenance(t, otherSAN, "1.0.0")}}))
		if a := attestationsOf(t, r); len(a) != 1 || a[0]["pending"] != true || a[0]["verified"] != false ||
			hasHighFinding(r.json(t), "attestation_unverified") {
			t.Fatalf("pending unverified attestation: %v", r.json(t))
		}
		unverifiedID := attestationsOf(t, r)[0]["id"].(string)
		// An admin (who owns every namespace) adds a bundle.
		r = ok(t, "admin adds", call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.0.0/attestations", e.admin,
			map[string]any{"attestation": map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "1.0.0")}}))
		a := attestationsOf(t, r)
		if len(a) != 2 || a[1]["pending"] != true || a[1]["verified"] != true || r.json(t)["state"] != "approved" {
			t.Fatalf("attestation on an approved version: %v (state %v)", a, r.json(t)["state"])
		}
		id := a[1]["id"].(string)
		e.in.Service.Discovery.InvalidateDiscovery()
		if after := resolve(); after != before {
			t.Fatalf("a pending attestation changed discovery:\nbefore %s\nafter  %s", before, after)
		}
		confirm := func(tok string) response {
			return call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.0.0/attestations/"+id+":confirm", tok,
				map[string]any{"reason": "checked the provenance"})
		}
		refused(t, "adder confirms", confirm(e.admin), http.StatusForbidden, "four-eyes", "root", "attestation "+id)
		refused(t, "owner confirms", confirm(e.owner), http.StatusForbidden, "owner")
		refused(t, "host confirms", confirm(e.host), http.StatusForbidden, "host")
		refused(t, "confirm without reason", call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.0.0/attestations/"+id+":confirm",
			e.reviewer, map[string]any{}), http.StatusBadRequest, "reason")
		refused(t, "confirm unknown", call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.0.0/attestations/999999:confirm",
			e.reviewer, map[string]any{"reason": "x"}), http.StatusNotFound, "attestation 999999")
		rc := grpcClient(t, e.in)
		n, _ := strconv.ParseInt(id, 10, 64)
		_, err := rc.ConfirmAttestation(withToken(context.Background(), e.admin),
			&mcpregv1.ConfirmAttestationRequest{Name: attestServer, Version: "1.0.0", Id: n, Reason: "mine"})
		if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "four-eyes") {
			t.Fatalf("gRPC confirm by the adder: %v", err)
		}

		r = ok(t, "reviewer confirms", confirm(e.reviewer))
		if a := attestationsOf(t, r); len(a) != 2 || a[1]["pending"] == true || a[1]["confirmedBy"] != "rita" || r.json(t)["state"] != "approved" {
			t.Fatalf("after confirmation: %v", r.json(t))
		}
		refused(t, "confirm twice", confirm(e.reviewer), http.StatusConflict, "not pending", "rita")
		// Confirming the one that does not verify records its finding now.
		r = ok(t, "confirm the unverified one", call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.0.0/attestations/"+unverifiedID+":confirm",
			e.reviewer, map[string]any{"reason": "keep it on record"}))
		if !hasHighFinding(r.json(t), "attestation_unverified") || r.json(t)["state"] != "approved" {
			t.Fatalf("after confirming the unverified one: %v", r.json(t))
		}
		after := resolve()
		if !strings.Contains(after, `"digest":"sha512:`+sha512Hex(tarball("1.0.0"))+`"`) || !strings.Contains(after, `"digestSource":"npm_registry"`) ||
			!strings.Contains(after, `"san":"`+releaseSAN+`"`) {
			t.Fatalf("discovery after confirmation: %s", after)
		}
		ev := ok(t, "audit", call(t, "GET", e.in.URL+"/v1/audit/events?action=attestation.confirm", e.admin, nil)).json(t)["events"].([]any)
		if len(ev) != 2 || ev[0].(map[string]any)["actor"] != "rita" || !strings.Contains(ev[0].(map[string]any)["details"].(string), "added_by=root") {
			t.Fatalf("audit: %v", ev)
		}
		// On a version awaiting review nothing waits: it counts at once.
		ok(t, "submit 1.1.0", e.submit(t, npmServerJSONBare("1.1.0")))
		r = ok(t, "owner adds to a pending version", call(t, "POST", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.1.0/attestations", e.owner,
			map[string]any{"attestation": map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "1.1.0")}}))
		if a := attestationsOf(t, r); len(a) != 1 || a[0]["pending"] == true {
			t.Fatalf("attestation on a version awaiting review: %v", a)
		}
	})
}

func sha512Hex(data []byte) string {
	sum := sha512.Sum512(data)
	return hex.EncodeToString(sum[:])
}

// findingOf is the first finding of kind in a version response.
func findingOf(t *testing.T, r response, kind string) map[string]any {
	t.Helper()
	fs, _ := r.json(t)["findings"].([]any)
	for _, f := range fs {
		if m := f.(map[string]any); m["kind"] == kind {
			return m
		}
	}
	return nil
}
