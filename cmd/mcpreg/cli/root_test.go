package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/client"
)

// result is what one in-process run of the CLI produced.
type result struct {
	out, errOut string
	err         error
	g           *globals
}

// execute runs the CLI with args, the given environment and stdin.
func execute(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	root, g := newRoot(Streams{
		In: strings.NewReader(stdin), Out: &out, Err: &errOut,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return result{out: out.String(), errOut: errOut.String(), err: err, g: g}
}

const toolsFixture = "testdata/tools.json"

// unreachable is a server URL no test may reach: commands under test must
// fail before calling it.
const unreachable = "http://127.0.0.1:1"

func TestEnvAndFlagPrecedence(t *testing.T) {
	envBoth := map[string]string{EnvServer: "http://env.example:1", EnvToken: "mcpreg_env"}
	tests := []struct {
		name                  string
		env                   map[string]string
		flags                 []string
		wantServer, wantToken string
	}{
		{"defaults", nil, nil, DefaultServer, ""},
		{"environment", envBoth, nil, "http://env.example:1", "mcpreg_env"},
		{"flags win", envBoth, []string{"--server", "http://flag.example:2", "--token", "mcpreg_flag"},
			"http://flag.example:2", "mcpreg_flag"},
		{"one flag, one variable", envBoth, []string{"--token=mcpreg_flag"}, "http://env.example:1", "mcpreg_flag"},
		{"empty variables are unset", map[string]string{EnvServer: "", EnvToken: ""}, nil, DefaultServer, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{}, tt.flags...), "pin", toolsFixture)
			r := execute(t, tt.env, "", args...)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.g.server != tt.wantServer || r.g.token != tt.wantToken {
				t.Fatalf("server %q token %q; want %q %q", r.g.server, r.g.token, tt.wantServer, tt.wantToken)
			}
		})
	}
}

func TestGlobalFlagValidation(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--output", "yaml", "pin", toolsFixture}, `--output "yaml": want table or json`},
		{[]string{"-o", "JSON", "pin", toolsFixture}, `--output "JSON"`},
		{[]string{"--timeout", "0s", "pin", toolsFixture}, "--timeout 0s: want a positive duration"},
		{[]string{"--timeout", "soon", "pin", toolsFixture}, "invalid argument"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := execute(t, nil, "", tt.args...)
			if r.err == nil || !strings.Contains(r.err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", r.err, tt.wantErr)
			}
			if r.out != "" {
				t.Fatalf("printed %q before failing", r.out)
			}
		})
	}
}

func TestServiceCommandsNeedToken(t *testing.T) {
	for _, args := range [][]string{
		{"whoami"}, {"servers", "list"}, {"versions", "get", "io.github.acme/weather", "1.0.0"},
		{"audit", "verify"}, {"token", "list"}, {"approve", "io.github.acme/weather", "1.0.0", "--reason", "ok"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := execute(t, map[string]string{EnvServer: unreachable}, "", args...)
			if !errors.Is(r.err, errNoToken) {
				t.Fatalf("error = %v, want errNoToken", r.err)
			}
		})
	}
}

func TestBadServerURL(t *testing.T) {
	r := execute(t, map[string]string{EnvToken: "mcpreg_x"}, "", "--server", "registry.example", "whoami")
	if r.err == nil || !strings.Contains(r.err.Error(), "server URL") {
		t.Fatalf("error = %v, want a server URL error", r.err)
	}
}

func TestTransitionsNeedReason(t *testing.T) {
	env := map[string]string{EnvServer: unreachable, EnvToken: "mcpreg_x"}
	for _, a := range client.Actions {
		for _, reason := range [][]string{nil, {"--reason", ""}, {"--reason", " \t "}} {
			args := append([]string{string(a), "io.github.acme/weather", "1.0.0"}, reason...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				r := execute(t, env, "", args...)
				if r.err == nil || !strings.Contains(r.err.Error(), "--reason is required") {
					t.Fatalf("error = %v, want --reason is required", r.err)
				}
			})
		}
	}
}

func TestArgumentCounts(t *testing.T) {
	env := map[string]string{EnvServer: unreachable, EnvToken: "mcpreg_x"}
	for _, args := range [][]string{
		{"servers", "get"},
		{"servers", "get", "a/b", "c"},
		{"servers", "list", "extra"},
		{"versions", "get", "io.github.acme/weather"},
		{"versions", "list", "a/b", "c/d"},
		{"approve", "io.github.acme/weather", "--reason", "ok"},
		{"audit", "verify", "now"},
		{"whoami", "me"},
		{"token", "revoke"},
		{"pin"},
		{"pin", "a.json", "b.json"},
		{"submit", "server.json"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := execute(t, env, "", args...)
			if r.err == nil || !(strings.Contains(r.err.Error(), "arg(s)") || strings.Contains(r.err.Error(), "unknown command")) {
				t.Fatalf("error = %v, want an argument count error", r.err)
			}
		})
	}
}

func TestListFlagValidation(t *testing.T) {
	env := map[string]string{EnvServer: unreachable, EnvToken: "mcpreg_x"}
	r := execute(t, env, "", "servers", "list", "--page-size", "-1")
	if r.err == nil || !strings.Contains(r.err.Error(), "--page-size -1") {
		t.Fatalf("error = %v", r.err)
	}
	r = execute(t, env, "", "token", "create", "--principal", "p", "--ttl", "1500ms")
	if r.err == nil || !strings.Contains(r.err.Error(), "--ttl 1.5s") {
		t.Fatalf("error = %v", r.err)
	}
	r = execute(t, env, "", "token", "create")
	if r.err == nil || !strings.Contains(r.err.Error(), `"principal" not set`) {
		t.Fatalf("error = %v", r.err)
	}
}
