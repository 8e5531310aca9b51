package cli_test

import (
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
)

// TestCLIScanCredentials: an admin stores a credential read from a file;
// list and the answers name it without its value; a value on the command
// line is refused; a reviewer cannot set one.
func TestCLIScanCredentials(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	admin := in.Token(t, "root", registry.RoleAdmin)
	alice := in.Token(t, "alice", registry.RoleReviewer)
	const secret = "Bearer cli-canary-55aa01"
	file := writeFile(t, t.TempDir(), "token", []byte(secret+"\n"))
	out := mustRun(t, in.URL, admin, "scan-credentials", "set", "io.github.acme/weather", "reader",
		"--header", "Authorization=@"+file, "--scope", "weather:read", "--origin", "https://weather.example")
	if !strings.Contains(out, "reader") || !strings.Contains(out, "Authorization") || strings.Contains(out, "canary") {
		t.Fatalf("set:\n%s", out)
	}
	out = mustRun(t, in.URL, alice, "scan-credentials", "list", "io.github.acme/weather", "-o", "json")
	if !strings.Contains(out, `"weather:read"`) || !strings.Contains(out, `"https://weather.example"`) || strings.Contains(out, "canary") {
		t.Fatalf("list:\n%s", out)
	}
	if out, err := runCLI(t, in.URL, admin, "scan-credentials", "set", "io.github.acme/weather", "x", "--header", "Authorization="+secret); err == nil ||
		!strings.Contains(err.Error(), "never given on the command line") || strings.Contains(err.Error(), "canary") {
		t.Fatalf("inline value: %v\n%s", err, out)
	}
	if out, err := runCLI(t, in.URL, alice, "scan-credentials", "set", "io.github.acme/weather", "x", "--header", "Authorization=@"+file); err == nil ||
		!strings.Contains(out+err.Error(), "403") {
		t.Fatalf("a reviewer sets credentials: %v\n%s", err, out)
	}
	mustRun(t, in.URL, admin, "scan-credentials", "delete", "io.github.acme/weather", "reader")
	if out := mustRun(t, in.URL, alice, "scan-credentials", "list", "io.github.acme/weather"); strings.Contains(out, "reader") {
		t.Fatalf("after delete:\n%s", out)
	}
}
