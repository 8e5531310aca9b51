package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/upstream/upstreamtest"
)

// TestUpstreamCommands: mcpregd upstream add, list, sync and remove work
// on the database with serve's settings from the environment; the token
// is read from a file and never printed; a pass an upstream cuts short
// exits non-zero saying so, and the next one resumes.
func TestUpstreamCommands(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"MCPREG_DB": storetest.EmptyDSN(t, store.DialectSQLite),
		"MCPREG_SECRETS_KEY": filepath.Join(dir, "secrets.key"), "MCPREG_DISCOVERY_KEY": filepath.Join(dir, "discovery.key"),
		"MCPREG_SCAN_NPM_DIR": servertest.ScanUserDir(t)}
	f := upstreamtest.New(t)
	f.Token = "cli-upstream-token-5678"
	for i := range 150 { // two pages of 100
		f.Put(upstreamtest.Server{Name: fmt.Sprintf("io.github.acme/s%03d", i), Version: "1.0.0"})
	}
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(f.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, env, "upstream", "add", "pub", "--url", f.URL, "--namespace", "io.github.acme", "--allow", "127.0.0.1",
		"--tools", "none", "--interval", "0", "--token-file", tokenFile)
	if err != nil || !strings.Contains(out, "upstream:pub") {
		t.Fatalf("add: %v\n%s", err, out)
	}
	if out, err := run(t, env, "upstream", "add", "pub2", "--url", "ftp://x", "--namespace", "io.github.acme"); err == nil {
		t.Errorf("add with an ftp URL: %s", out)
	}
	f.Intercept = func(w http.ResponseWriter, _ *http.Request, page int) bool {
		if page == 2 {
			http.Error(w, "try later", http.StatusBadGateway)
			return true
		}
		return false
	}
	out, err = run(t, env, "upstream", "sync", "pub", "--output", "json")
	if err == nil || !strings.Contains(err.Error(), "stopped early") || !strings.Contains(err.Error(), "502") {
		t.Fatalf("a pass cut short: %v\n%s", err, out)
	}
	f.Intercept = nil
	out, err = run(t, env, "upstream", "sync", "pub")
	if err != nil || !strings.Contains(out, "50 imported") {
		t.Fatalf("resumed pass: %v\n%s", err, out)
	}
	out, err = run(t, env, "upstream", "list", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	var ups []map[string]any
	if err := json.Unmarshal([]byte(out), &ups); err != nil || len(ups) != 1 || ups[0]["hasToken"] != true || ups[0]["lastError"] != nil {
		t.Errorf("list: %v %s", err, out)
	}
	table, err := run(t, env, "upstream", "list")
	if err != nil || !strings.Contains(table, f.URL) {
		t.Errorf("list table: %v %s", err, table)
	}
	for _, o := range []string{out, table} {
		if strings.Contains(o, f.Token) {
			t.Error("the upstream token was printed")
		}
	}
	if out, err := run(t, env, "upstream", "remove", "pub"); err != nil || !strings.Contains(out, "removed upstream pub") {
		t.Errorf("remove: %v %s", err, out)
	}
	if out, err := run(t, env, "upstream", "sync", "pub"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("sync after removal: %v %s", err, out)
	}
}
