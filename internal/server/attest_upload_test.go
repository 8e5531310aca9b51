package server_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestUploadedArtifact: an owner uploads the artifact instead of naming its
// digest. The registry hashes it in the algorithm server.json's digest
// uses, refuses bytes that do not match, refuses oversized uploads and
// uploads given with a digest too, and keeps only the digest.
func TestUploadedArtifact(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startAttest(t, dialect)
		ok(t, "first", e.submit(t, npmServerJSON("0.1.0")))
		ok(t, "policy", e.setPolicy(t, attestServer, attestPolicy(true, releaseSAN)))
		b64 := base64.StdEncoding.EncodeToString
		// Without a digest in server.json: npm, so sha512 of the upload,
		// which agrees with the npm registry's integrity: that one counts.
		bare := fmt.Sprintf(`{"$schema": %q, "name": %q, "description": "Signed weather", "version": "1.0.0",
  "packages": [{"registryType": "npm", "identifier": %q, "version": "1.0.0", "transport": {"type": "stdio"}}]}`,
			schemaURL, attestServer, attestPackage)
		before := e.counts(t)
		// An empty upload is no upload; for a PyPI package nothing else
		// gives a digest.
		pypiBare := strings.Replace(strings.Replace(bare, `"npm"`, `"pypi"`, 1), `"`+attestPackage+`"`, `"signed-mcp"`, 1)
		refused(t, "empty upload", e.submit(t, pypiBare, map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "1.0.0"),
			"artifact": ""}), http.StatusBadRequest)
		refused(t, "upload and digest", e.submit(t, bare, map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "1.0.0"),
			"artifact": b64(tarball("1.0.0")), "artifactDigest": npmIntegrity(tarball("1.0.0"))}), http.StatusBadRequest, "not both")
		refused(t, "oversized upload", e.submit(t, bare, map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "1.0.0"),
			"artifact": b64(make([]byte, 4<<20+1))}), http.StatusRequestEntityTooLarge, "attestations[0].artifact", "limit")
		if after := e.counts(t); after != before {
			t.Fatalf("refused uploads stored something: %v -> %v", before, after)
		}
		r := ok(t, "submit with upload", e.submit(t, bare, map[string]any{"packageIndex": 0,
			"bundle": e.provenance(t, releaseSAN, "1.0.0"), "artifact": b64(tarball("1.0.0"))}))
		a := attestationsOf(t, r)
		if len(a) != 1 || a[0]["verified"] != true || a[0]["digestSource"] != "npm_registry" || !strings.HasPrefix(a[0]["artifactDigest"].(string), "sha512:") {
			t.Fatalf("uploaded artifact: %v", a)
		}
		ok(t, "approve", e.transition(t, "approve", attestServer, "1.0.0"))

		// With a digest in server.json, the upload must match it.
		refused(t, "upload contradicting server.json", e.submit(t, npmServerJSON("1.1.0"), map[string]any{"packageIndex": 0,
			"bundle": e.provenance(t, releaseSAN, "1.1.0"), "artifact": b64(tarball("1.1.0-evil"))}), http.StatusBadRequest,
			"uploaded bytes have digest sha512:", "server_json_meta")
		r = ok(t, "upload matching server.json", e.submit(t, npmServerJSON("1.1.0"), map[string]any{"packageIndex": 0,
			"bundle": e.provenance(t, releaseSAN, "1.1.0"), "artifact": b64(tarball("1.1.0"))}))
		if a = attestationsOf(t, r); a[0]["verified"] != true || a[0]["digestSource"] != "npm_registry" || hasHighFinding(r.json(t), "artifact.digest_mismatch") {
			t.Fatalf("upload matching server.json: %v", a)
		}

		// Uploaded bytes the npm registry does not publish for that version
		// disagree with its integrity: a high finding that blocks approval.
		r = ok(t, "upload of unpublished bytes", e.submit(t, npmServerJSONBare("1.2.0"), map[string]any{"packageIndex": 0,
			"bundle": e.provenance(t, releaseSAN, "1.2.0"), "artifact": b64(tarball("1.1.0-evil"))}))
		if !hasHighFinding(r.json(t), "artifact.digest_mismatch") {
			t.Fatalf("upload of unpublished bytes: %v", r.json(t)["findings"])
		}
		refused(t, "approve unpublished upload", e.transition(t, "approve", attestServer, "1.2.0"), http.StatusConflict, "upload", sha512Hex(tarball("1.1.0-evil")))

		// The verify API takes the bytes as well.
		verify := func(artifact []byte) map[string]any {
			body := map[string]any{"bundle": e.provenance(t, releaseSAN, "2.0.0"), "artifact": b64(artifact), "policy": attestPolicy(true, releaseSAN)}
			return ok(t, "verify upload", call(t, "POST", e.in.URL+"/v1/attestations:verify", e.owner, body)).json(t)["attestation"].(map[string]any)
		}
		if v := verify(tarball("2.0.0")); v["verified"] != true || v["digestSource"] != "upload" {
			t.Fatalf("verify with bytes: %v", v)
		}
		if v := verify(tarball("2.0.0-tampered")); v["verified"] != false || v["error"] == "" {
			t.Fatalf("verify tampered bytes: %v", v)
		}
	})
}
