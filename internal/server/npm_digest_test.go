package server_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// everythingIntegrity is the sha512 the npm registry publishes for
// @modelcontextprotocol/server-everything@2026.8.31.
const everythingIntegrity = "sha512-5U3OZh8Xq0Li4nA26l6uNvV9/1suMDuWSn+NjLZIhzinhMY6N3A4DCrxVecBGPf2PsNFKTEv5krxGPRwzxc7jQ=="

// wrongIntegrity is a well-formed sha512 of other bytes.
const wrongIntegrity = "sha512-" + "z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="

func everythingWithDigest(serverVersion, digest string) string {
	return fmt.Sprintf(`{"$schema":%q,"name":"io.github.modelcontextprotocol/everything","description":"Reference server","version":%q,
 "packages":[{"registryType":"npm","identifier":"@modelcontextprotocol/server-everything","version":"2026.8.31","transport":{"type":"stdio"}}],
 "_meta":{"io.mcpreg/registry":{"packages":[{"identifier":"@modelcontextprotocol/server-everything","digest":%q}]}}}`,
		schemaURL, serverVersion, digest)
}

// TestScannerRunsTheAttestedNPMPackage: for an npm package with a digest
// the registry fetches the tarball from the npm registry, checks the digest,
// installs that copy and launches it (the template here can only launch a
// fetched copy). A mismatch refuses a live submission, is a high finding
// that blocks approval, and quarantines an approved version.
func TestScannerRunsTheAttestedNPMPackage(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		testkit.Unavailable(t, "npm is not installed")
	}
	npmDir := everythingNPMDir(t)
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect, func(c *config.Config) {
			c.ScanLaunchTemplates = []string{"npm=node {package_bin} stdio"}
			c.ScanNPMDir = npmDir
			sandboxWhenRoot(c)
		})
		owner := in.Token(t, "everything-ci", registry.RoleOwner, "io.github.modelcontextprotocol")
		reviewer := in.Token(t, "rita", registry.RoleReviewer)
		const name = "io.github.modelcontextprotocol/everything"

		r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": everythingWithDigest("1.0.0", everythingIntegrity), "live": true})
		if r.Status != http.StatusOK {
			t.Fatalf("live submit of the attested package: %d %s", r.Status, r.Body)
		}
		if n := len(r.json(t)["snapshot"].(map[string]any)["tools"].([]any)); n < 5 {
			t.Fatalf("snapshot has %d tools", n)
		}
		if entries, _ := os.ReadDir(filepath.Join(npmDir, "v2")); len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "sha512-e54dce66") {
			t.Fatalf("prepared packages: %v", entries)
		}
		ok(t, "approve 1.0.0", call(t, "POST", in.URL+"/v1/servers/"+name+"/versions/1.0.0/approve", reviewer, map[string]any{"reason": "reviewed"}))
		sr := ok(t, "scan 1.0.0", call(t, "POST", in.URL+"/v1/servers/"+name+"/versions/1.0.0/scan", reviewer, map[string]any{})).json(t)
		if sc := sr["scan"].(map[string]any); sc["outcome"] != string(states.OutcomeMatch) {
			t.Fatalf("scan of the attested copy: %v", sr)
		}

		// A live submission whose digest does not name the published tarball.
		refused(t, "live submit with a wrong digest", call(t, "POST", in.URL+"/v1/versions", owner,
			map[string]any{"serverJson": everythingWithDigest("1.0.1", wrongIntegrity), "live": true}),
			http.StatusConflict, "not what was attested", "@modelcontextprotocol/server-everything@2026.8.31")

		// A stored version with a wrong digest: the scan finds the mismatch,
		// which blocks approval.
		snap := ok(t, "tools of 1.0.0", call(t, "GET", in.URL+"/v1/servers/"+name+"/versions/1.0.0", reviewer, nil)).json(t)["snapshot"]
		var raw []string
		for _, tool := range snap.(map[string]any)["tools"].([]any) {
			raw = append(raw, tool.(map[string]any)["rawJson"].(string))
		}
		toolsJSON := `{"tools":[` + strings.Join(raw, ",") + `]}`
		ok(t, "submit 1.0.2", call(t, "POST", in.URL+"/v1/versions", owner,
			map[string]any{"serverJson": everythingWithDigest("1.0.2", wrongIntegrity), "tools": toolsJSON}))
		sr = ok(t, "scan 1.0.2", call(t, "POST", in.URL+"/v1/servers/"+name+"/versions/1.0.2/scan", reviewer, map[string]any{})).json(t)
		if sc := sr["scan"].(map[string]any); sc["outcome"] != string(states.OutcomeError) || sc["errorKind"] != string(states.ErrorKindDigestMismatch) {
			t.Fatalf("scan of a mismatching package: %v", sr)
		}
		v := ok(t, "get 1.0.2", call(t, "GET", in.URL+"/v1/servers/"+name+"/versions/1.0.2", reviewer, nil)).json(t)
		if !hasHighFinding(v, registry.KindDigestMismatch) {
			t.Fatalf("no high digest finding: %v", v["findings"])
		}
		refused(t, "approve 1.0.2", call(t, "POST", in.URL+"/v1/servers/"+name+"/versions/1.0.2/approve", reviewer,
			map[string]any{"reason": "looks fine"}), http.StatusConflict, "cannot approve", "not what was attested", "submit a new version")

		// Approved before any scan, quarantined by the first one.
		ok(t, "submit 1.0.3", call(t, "POST", in.URL+"/v1/versions", owner,
			map[string]any{"serverJson": everythingWithDigest("1.0.3", wrongIntegrity), "tools": toolsJSON}))
		ok(t, "approve 1.0.3", call(t, "POST", in.URL+"/v1/servers/"+name+"/versions/1.0.3/approve", reviewer, map[string]any{"reason": "reviewed"}))
		sr = ok(t, "scan 1.0.3", call(t, "POST", in.URL+"/v1/servers/"+name+"/versions/1.0.3/scan", reviewer, map[string]any{})).json(t)
		if sr["state"] != "quarantined" {
			t.Fatalf("approved mismatching version not quarantined: %v", sr)
		}
		refused(t, "release 1.0.3", call(t, "POST", in.URL+"/v1/servers/"+name+"/versions/1.0.3/release", reviewer,
			map[string]any{"reason": "trust me"}), http.StatusConflict, "cannot release")
		ev := call(t, "GET", in.URL+"/v1/audit/events?action=version.quarantine", reviewer, nil).json(t)["events"].([]any)
		if len(ev) != 1 || ev[0].(map[string]any)["actor"] != "mcpreg-scanner" {
			t.Fatalf("quarantine audit: %v", ev)
		}
	})
}
