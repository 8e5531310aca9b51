package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSubmitValidation(t *testing.T) {
	dir := t.TempDir()
	latin1 := filepath.Join(dir, "latin1.json")
	if err := os.WriteFile(latin1, []byte("{\"tools\":[{\"name\":\"caf\xe9\"}]}"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{EnvServer: unreachable, EnvToken: "mcpreg_x"}
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"stdin twice", []string{"--server-json", "-", "--tools", "-"}, errStdinTwice.Error()},
		{"stdin twice with initialize", []string{"--server-json", "testdata/server.json", "--tools", "-", "--initialize", "-"}, errStdinTwice.Error()},
		{"tools missing", []string{"--server-json", "testdata/server.json"}, `required flag(s) "tools" not set`},
		{"server json missing", []string{"--tools", toolsFixture}, `required flag(s) "server-json" not set`},
		{"no such file", []string{"--server-json", "testdata/nope.json", "--tools", toolsFixture}, "--server-json: open testdata/nope.json"},
		{"not utf-8", []string{"--server-json", "testdata/server.json", "--tools", latin1}, "not valid UTF-8 (at byte 22)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, env, "{}", append([]string{"submit"}, tt.args...)...)
			if r.err == nil || !strings.Contains(r.err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", r.err, tt.wantErr)
			}
		})
	}
}

func TestSubmitRequestIsVerbatim(t *testing.T) {
	stdin := "[{\"name\":\"a\",\"name\":\"dup\"}]\n" // invalid for the service, not for the CLI
	g := &globals{io: Streams{In: strings.NewReader(stdin)}}
	req, err := g.submitRequest(submitFiles{serverJSON: "testdata/server.json", tools: "-",
		initialize: "testdata/server.json", idempotencyKey: "retry-1"})
	if err != nil {
		t.Fatal(err)
	}
	serverJSON, _ := os.ReadFile("testdata/server.json")
	if req.GetServerJson() != string(serverJSON) || req.GetInitializeResult() != string(serverJSON) {
		t.Errorf("documents changed on the way: %q", req.GetServerJson())
	}
	if req.GetTools() != stdin || req.GetIdempotencyKey() != "retry-1" {
		t.Errorf("tools %q key %q", req.GetTools(), req.GetIdempotencyKey())
	}
	if _, err := g.submitRequest(submitFiles{serverJSON: "-", tools: "-"}); !errors.Is(err, errStdinTwice) {
		t.Errorf("error = %v, want errStdinTwice", err)
	}
}

func TestReadInputCap(t *testing.T) {
	g := &globals{io: Streams{In: &zeros{}}, inputLimit: 4096}
	_, err := g.readInput("--tools", "-")
	if err == nil || !strings.Contains(err.Error(), "larger than 4096 bytes") {
		t.Fatalf("error = %v, want a size error", err)
	}
}

// zeros is an endless standard input.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
