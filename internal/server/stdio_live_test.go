package server_test

import (
	"os/exec"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// TestLiveSubmitThroughLaunchTemplate reads an npm package's server over
// stdio through an admin-approved launch template, never a command from
// the submission; npm packages always run from the fetched, prepared copy.
func TestLiveSubmitThroughLaunchTemplate(t *testing.T) {
	bin, err := exec.LookPath("mcp-server-everything")
	if err != nil {
		testkit.Unavailable(t, "%s", "mcp-server-everything is not installed (npm install -g @modelcontextprotocol/server-everything@2026.8.31)")
	}
	npmDir := everythingNPMDir(t)
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect, func(c *config.Config) {
			// The template names no {package_bin}: npm packages run
			// from the prepared copy as node {package_bin} all the same.
			c.ScanLaunchTemplates = []string{"npm=" + bin + " stdio"}
			c.ScanNPMDir = npmDir
			sandboxWhenRoot(c)
		})
		owner := in.Token(t, "everything-ci", registry.RoleOwner, "io.github.modelcontextprotocol")
		sj := `{"$schema":"` + schemaURL + `","name":"io.github.modelcontextprotocol/everything","description":"Reference server","version":"2026.8.31",
 "packages":[{"registryType":"npm","identifier":"@modelcontextprotocol/server-everything","version":"2026.8.31","transport":{"type":"stdio"}}]}`
		r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": sj, "live": true})
		if r.Status != 200 {
			t.Fatalf("live submit over stdio: %d %s", r.Status, r.Body)
		}
		v := r.json(t)
		if n := len(v["snapshot"].(map[string]any)["tools"].([]any)); n < 5 {
			t.Fatalf("snapshot has %d tools", n)
		}
		// Without a template for the registry type, the registry refuses rather than improvise a command.
		pypi := `{"$schema":"` + schemaURL + `","name":"io.github.modelcontextprotocol/py","description":"d","version":"1.0.0",
 "packages":[{"registryType":"pypi","identifier":"mcp-server-x","version":"1.0.0","transport":{"type":"stdio"}}]}`
		r = call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": pypi, "live": true})
		if r.Status != 409 || !contains(r.message(t), "launch template") {
			t.Fatalf("no template: %d %s", r.Status, r.Body)
		}
	})
}
