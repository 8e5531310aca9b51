package cli_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/cmd/mcpreg/cli"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// runCLI runs mcpreg in-process against a service.
func runCLI(t *testing.T, url, token string, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := map[string]string{"MCPREG_SERVER": url, "MCPREG_TOKEN": token}
	cmd := cli.NewRootCmd(cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String() + errb.String(), err
}

const e2eServerJSON = `{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
 "name":"io.github.acme/weather","description":"Weather","version":"1.0.0",
 "remotes":[{"type":"streamable-http","url":"https://weather.acme.example/mcp"}]}`

// The same tools/list in two layouts: key order and whitespace differ.
var e2eTools = []string{
	`{"tools":[{"name":"forecast","description":"Forecast for a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}},
  {"name":"alerts","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}],"instructions":"Be brief."}`,
	`{"instructions" : "Be brief.", "tools" : [ {"inputSchema":{"properties":{"city":{"type":"string"}},"type":"object"},
   "description":"Forecast for a city.","name":"forecast"}, {"annotations":{"readOnlyHint":true},"name":"alerts",
   "inputSchema":{"type":"object"}} ] }`,
}

type pins struct {
	ToolDefinitionHash string `json:"toolDefinitionHash"`
	SchemaHash         string `json:"schemaHash"`
	InstructionsHash   string `json:"instructionsHash"`
	Tools              []struct{ Name, Hash string }
}

// TestPinCommandMatchesService: `mcpreg pin` and the service compute the same
// pins, whatever the layout of the input.
func TestPinCommandMatchesService(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect)
		owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
		dir := t.TempDir()
		sj := writeFile(t, dir, "server.json", []byte(e2eServerJSON))
		var offline []pins
		for i, tools := range e2eTools {
			f := writeFile(t, dir, "tools"+string(rune('0'+i))+".json", []byte(tools))
			out, err := runCLI(t, "", "", "pin", f, "--output", "json")
			if err != nil {
				t.Fatalf("pin: %v\n%s", err, out)
			}
			var p pins
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatalf("pin output: %v\n%s", err, out)
			}
			offline = append(offline, p)
		}
		if offline[0].ToolDefinitionHash != offline[1].ToolDefinitionHash || offline[0].SchemaHash != offline[1].SchemaHash {
			t.Fatalf("layout changed the pins: %+v vs %+v", offline[0], offline[1])
		}
		out, err := runCLI(t, in.URL, owner, "submit", "--server-json", sj, "--tools", filepath.Join(dir, "tools1.json"), "--output", "json")
		if err != nil {
			t.Fatalf("submit: %v\n%s", err, out)
		}
		var v struct{ Pins pins }
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("submit output: %v\n%s", err, out)
		}
		got, want := v.Pins, offline[0]
		if got.ToolDefinitionHash != want.ToolDefinitionHash || got.SchemaHash != want.SchemaHash ||
			got.InstructionsHash != want.InstructionsHash || len(got.Tools) != 2 ||
			got.Tools[0] != want.Tools[0] || got.Tools[1] != want.Tools[1] {
			t.Fatalf("service pins %+v differ from mcpreg pin %+v", got, want)
		}
	})
}

// TestCLIReviewFlow drives submit, a refused self-approval, approve and the
// audit log through the CLI.
func TestCLIReviewFlow(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect)
		admin := in.Token(t, "root", registry.RoleAdmin)
		alice := in.Token(t, "alice", registry.RoleReviewer)
		dir := t.TempDir()
		sj, tl := writeFile(t, dir, "s.json", []byte(e2eServerJSON)), writeFile(t, dir, "t.json", []byte(e2eTools[0]))
		if out, err := runCLI(t, in.URL, admin, "submit", "--server-json", sj, "--tools", tl); err != nil {
			t.Fatalf("submit: %v\n%s", err, out)
		}
		out, err := runCLI(t, in.URL, admin, "approve", "io.github.acme/weather", "1.0.0", "--reason", "mine")
		if err == nil || !strings.Contains(out+err.Error(), "403") {
			t.Fatalf("self-approval via CLI: %v\n%s", err, out)
		}
		if out, err := runCLI(t, in.URL, alice, "approve", "io.github.acme/weather", "1.0.0", "--reason", "ok"); err != nil {
			t.Fatalf("approve: %v\n%s", err, out)
		}
		out, err = runCLI(t, in.URL, alice, "versions", "get", "io.github.acme/weather", "1.0.0")
		if err != nil || !strings.Contains(out, "approved") || !strings.Contains(out, "forecast") {
			t.Fatalf("versions get: %v\n%s", err, out)
		}
		if out, err := runCLI(t, in.URL, alice, "deprecate", "io.github.acme/weather", "1.0.0"); err == nil {
			t.Fatalf("deprecate without a message: %s", out)
		}
		out, err = runCLI(t, in.URL, alice, "deprecate", "io.github.acme/weather", "--message", "use io.github.acme/forecast")
		if err != nil || !strings.Contains(out, "deprecated") || !strings.Contains(out, "use io.github.acme/forecast") {
			t.Fatalf("deprecate: %v\n%s", err, out)
		}
		out, err = runCLI(t, in.URL, alice, "undeprecate", "io.github.acme/weather", "1.0.0", "--output", "json")
		if err != nil || !strings.Contains(strings.ReplaceAll(out, " ", ""), `"status":"active"`) {
			t.Fatalf("undeprecate: %v\n%s", err, out)
		}
		out, err = runCLI(t, in.URL, alice, "audit", "verify")
		if err != nil {
			t.Fatalf("audit verify: %v\n%s", err, out)
		}
		out, _ = runCLI(t, in.URL, alice, "audit", "list", "--output", "json")
		for _, action := range []string{"version.submit", "version.approve", "version.deprecate", "version.undeprecate"} {
			if !strings.Contains(out, action) {
				t.Fatalf("audit list lacks %s:\n%s", action, out)
			}
		}
	})
}
