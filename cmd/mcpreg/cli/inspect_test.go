package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/pin"
)

// weatherServer serves two tools over Streamable HTTP on loopback.
func weatherServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.2.3"}, &mcp.ServerOptions{Instructions: "Be brief."})
	for _, name := range []string{"get_weather", "get_forecast"} {
		s.AddTool(&mcp.Tool{Name: name, Description: "Weather <b>now</b>", InputSchema: json.RawMessage(`{"type":"object"}`),
			Icons: []mcp.Icon{{Source: "https://example.com/w.png"}}},
			func(_ context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// inspectJSON is the part of the JSON output the tests read.
type inspectJSON struct {
	ProtocolVersion string          `json:"protocolVersion"`
	ServerInfo      json.RawMessage `json:"serverInfo"`
	Instructions    *string         `json:"instructions"`
	ToolsFile       json.RawMessage `json:"toolsFile"`
	Pins            pin.Pins        `json:"pins"`
	Lists           int             `json:"lists"`
	Findings        []any           `json:"findings"`
}

func TestInspectURLJSON(t *testing.T) {
	r := execute(t, offlineEnv, "", "inspect", "--url", weatherServer(t), "--output", "json")
	if r.err != nil {
		t.Fatal(r.err)
	}
	var got inspectJSON
	if err := json.Unmarshal([]byte(r.out), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	list, err := pin.ParseToolsList(got.ToolsFile, pin.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	want, err := pin.Compute(list)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pins.ToolDefinitionHash != want.ToolDefinitionHash || got.Pins.InstructionsHash != want.InstructionsHash || len(got.Pins.Tools) != 2 {
		t.Fatalf("pins %+v; want %+v", got.Pins, want)
	}
	if got.Instructions == nil || *got.Instructions != "Be brief." || got.Lists != 2 || !strings.Contains(string(got.ServerInfo), `"1.2.3"`) {
		t.Fatalf("output %+v", got)
	}
	if !strings.Contains(r.out, `"icons": [`) || !strings.Contains(r.out, "<b>now</b>") {
		t.Fatalf("raw tools missing or escaped:\n%s", r.out)
	}
}

func TestInspectURLTable(t *testing.T) {
	r := execute(t, offlineEnv, "", "inspect", "--url", weatherServer(t))
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, want := range []string{"Protocol version:", "2025-11-25", "Instructions:", "9 characters", "2 (1 pages, listed 2 times)",
		"Pins (mcpreg-pin-v2):", "Prompts:", "Tool definitions:", "get_forecast", "get_weather"} {
		if !strings.Contains(r.out, want) {
			t.Fatalf("table lacks %q:\n%s", want, r.out)
		}
	}
}

// A POSIX shell script speaking MCP over stdio: it echoes each call's id and
// answers with the JSON in $INIT and $TOOLS, which --env passes.
const scriptServer = `while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
  *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$INIT" ;;
  *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$TOOLS" ;;
  esac
done
`

func writeScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "my server.sh")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInspectStdio(t *testing.T) {
	script := writeScript(t, scriptServer)
	env := map[string]string{"PATH": os.Getenv("PATH"), "MY_TOOLS": `{"tools":[{"name":"shell_tool","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`}
	r := execute(t, env, "", "inspect", "--stdio", `sh "`+script+`"`, "-o", "json",
		"--env", `INIT={"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"sh","version":"0"},"instructions":""}`,
		"--env", "TOOLS="+env["MY_TOOLS"])
	if r.err != nil {
		t.Fatal(r.err)
	}
	var got inspectJSON
	if err := json.Unmarshal([]byte(r.out), &got); err != nil {
		t.Fatal(err)
	}
	var tools bytes.Buffer
	if err := json.Compact(&tools, got.ToolsFile); err != nil {
		t.Fatal(err)
	}
	if got.Instructions == nil || *got.Instructions != "" || !strings.Contains(tools.String(), `"execution":{"taskSupport":"optional"}`) {
		t.Fatalf("output:\n%s", r.out)
	}
	if got.Pins.InstructionsHash != pin.InstructionsHash(new("")) {
		t.Fatal("instructions \"\" pinned like absent instructions")
	}
}

func TestInspectErrors(t *testing.T) {
	failing := writeScript(t, "echo 'cannot start: missing API key' >&2; exit 1\n")
	silent := writeScript(t, "cat >/dev/null\n")
	env := map[string]string{"PATH": os.Getenv("PATH")}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"inspect"}, "at least one of the flags in the group [stdio url] is required"},
		{[]string{"inspect", "--stdio", "x", "--url", "http://x"}, "none of the others can be"},
		{[]string{"inspect", "--stdio", `sh 'unterminated`}, "--stdio: unterminated quote"},
		{[]string{"inspect", "--stdio", `sh "` + failing + `" x`, "--env", "NOT_SET"}, "--env NOT_SET: not set in your environment"},
		{[]string{"inspect", "--stdio", `sh "` + failing + `"`}, "server stderr:\ncannot start: missing API key"},
		{[]string{"inspect", "--stdio", `sh "` + silent + `"`, "--timeout", "300ms"}, "scan: deadline exceeded: during initialize (deadline 300ms)"},
		{[]string{"inspect", "--url", "http://169.254.169.254/mcp"}, "cloud metadata"},
		{[]string{"inspect", "--url", "http://10.0.0.1:1/mcp", "--allow-host", "not a host"}, "--allow-host"},
		{[]string{"inspect", "--url", "http://x", "--header", "no colon"}, `want "Name: value"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := execute(t, env, "", tt.args...)
			if r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
				t.Fatalf("error %v; want %q", r.err, tt.want)
			}
		})
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"npx -y @scope/server@1.0.0", []string{"npx", "-y", "@scope/server@1.0.0"}},
		{`  python3   -m  srv  `, []string{"python3", "-m", "srv"}},
		{`node 'my dir/server.js' "a \"b\" \$HOME \n" c\ d ''`, []string{"node", "my dir/server.js", `a "b" $HOME \n`, "c d", ""}},
		{`echo $HOME ~ *`, []string{"echo", "$HOME", "~", "*"}},
		{`it's"quoted"together`, nil},
		{`a'b'"c"\d`, []string{"abcd"}},
	}
	for _, tt := range tests {
		got, err := splitCommand(tt.in)
		if tt.want == nil {
			if err == nil {
				t.Errorf("%q: split %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := splitCommand("   "); err == nil {
		t.Error("blank command accepted")
	}
}
