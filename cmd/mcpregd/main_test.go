package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// buildDaemon compiles mcpregd once per test binary.
func buildDaemon(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpregd")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// run executes the root command in-process.
func run(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	return runWithInput(t, env, "", args...)
}

// runWithInput is run with input on standard input.
func runWithInput(t *testing.T, env map[string]string, input string, args ...string) (string, error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetIn(strings.NewReader(input))
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestServeWithNoConfiguration is the README's first command: no flags, no
// environment, an empty directory. It must create the SQLite file, answer
// /healthz on the default address, and stop cleanly on SIGTERM.
func TestServeWithNoConfiguration(t *testing.T) {
	bin := buildDaemon(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "serve")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() { _ = cmd.Process.Kill() }()
	if !testkit.Poll(20*time.Second, func() bool { return get("http://127.0.0.1:8080/healthz") == http.StatusOK }) {
		t.Fatalf("no /healthz on 127.0.0.1:8080\n%s", logs.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "mcpreg.db")); err != nil {
		t.Fatalf("no mcpreg.db in the working directory: %v", err)
	}
	if code := get("http://127.0.0.1:8080/v1/servers"); code != http.StatusUnauthorized {
		t.Fatalf("unauthenticated API call: %d, want 401", code)
	}
	if code := get("http://127.0.0.1:9091/metrics"); code != http.StatusOK {
		t.Fatalf("metrics: %d", code)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no graceful exit after SIGTERM")
	}
	if !strings.Contains(logs.String(), "shutting down") {
		t.Fatalf("logs do not show a graceful shutdown:\n%s", logs.String())
	}
}

func get(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestTokenAndAuditCommands(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		dsn := storetest.EmptyDSN(t, dialect)
		env := map[string]string{"MCPREG_DB": dsn}
		out, err := run(t, env, "token", "create", "--name", "alice", "--role", "reviewer")
		if err != nil {
			t.Fatalf("token create: %v\n%s", err, out)
		}
		if tok := lastLine(out); !strings.HasPrefix(tok, "mcpreg_") || len(tok) < 40 {
			t.Fatalf("last line is not a token: %q", tok)
		}
		if out, err = run(t, env, "token", "create", "--name", "alice", "--role", "admin"); err == nil {
			t.Fatalf("changing an existing principal's role succeeded:\n%s", out)
		}
		if out, err = run(t, env, "token", "create", "--name", "acme", "--role", "owner", "--namespace", "io.github.acme", "--ttl", "1h"); err != nil ||
			strings.Contains(out, "can submit nothing") {
			t.Fatalf("owner token: %v\n%s", err, out)
		}
		secret := lastLine(out)
		// An owner without namespaces is warned about, on standard error:
		// the token stays the last line.
		nsless, err := run(t, env, "token", "create", "--name", "lost", "--role", "owner")
		if err != nil || !strings.Contains(nsless, "warning: this owner has no namespace, so the token can submit nothing") {
			t.Fatalf("owner token without --namespace: %v\n%s", err, nsless)
		}
		list, err := run(t, env, "token", "list")
		if err != nil || !strings.Contains(list, "alice") || !strings.Contains(list, "acme") || strings.Contains(list, secret) {
			t.Fatalf("token list: %v\n%s", err, list)
		}
		id := strings.Fields(strings.Split(strings.TrimSpace(list), "\n")[1])[0]
		if out, err = run(t, env, "token", "revoke", id, "--reason", "rotated"); err != nil {
			t.Fatalf("revoke: %v\n%s", err, out)
		}
		if out, err = run(t, env, "audit", "verify"); err != nil || !strings.Contains(out, "audit chain ok: 7 events") {
			t.Fatalf("audit verify: %v\n%s", err, out)
		}
		tamper(t, dsn, "UPDATE audit_events SET details = 'principal=mallory' WHERE seq = 2")
		out, err = run(t, env, "audit", "verify")
		if err == nil || !strings.Contains(err.Error(), "event 2") {
			t.Fatalf("tampered chain: err=%v out=%s", err, out)
		}
	})
}

// tamper changes the database behind the service's back.
func tamper(t *testing.T, dsn, stmt string) {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	if _, err := st.DB.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}

func TestMigrateAndEnvValidation(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		dsn := storetest.EmptyDSN(t, dialect)
		if out, err := run(t, nil, "--db", dsn, "migrate", "up"); err != nil {
			t.Fatalf("migrate up: %v\n%s", err, out)
		}
		if out, err := run(t, nil, "--db", dsn, "migrate", "up"); err != nil {
			t.Fatalf("second migrate up: %v\n%s", err, out)
		}
		if out, err := run(t, nil, "--db", dsn, "--db-max-open-conns", "2", "--db-conn-max-lifetime", "1m", "migrate", "status"); err != nil || strings.Contains(out, "Applied:false") {
			t.Fatalf("pool flags, status after migrate up: %v\n%s", err, out)
		}
	})
	db := filepath.Join(t.TempDir(), "m.db")
	if _, err := run(t, nil, "--db", "mysql://x", "migrate", "up"); err == nil || !strings.Contains(err.Error(), "sqlite://") {
		t.Fatalf("bad scheme: %v", err)
	}
	if _, err := run(t, map[string]string{"MCPREG_MAX_BODY_BYTES": "lots"}, "serve"); err == nil || !strings.Contains(err.Error(), "MCPREG_MAX_BODY_BYTES") {
		t.Fatalf("bad env: %v", err)
	}
	if _, err := run(t, map[string]string{"MCPREG_DB_MAX_OPEN_CONNS": "-1"}, "--db", "sqlite://"+db, "migrate", "up"); err == nil || !strings.Contains(err.Error(), "--db-max-open-conns -1") {
		t.Fatalf("negative pool size: %v", err)
	}
}

// TestServeWithoutMigrating: replicas served with --migrate=false refuse a
// database that lacks migrations, naming them, and serve once `mcpregd
// migrate up` ran.
func TestServeWithoutMigrating(t *testing.T) {
	storetest.EachDialect(t, serveWithoutMigrating)
}

func serveWithoutMigrating(t *testing.T, dialect string) {
	dir := t.TempDir()
	db := storetest.EmptyDSN(t, dialect)
	args := []string{"--db", db, "serve", "--migrate=false", "--http-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0",
		"--metrics-addr", "127.0.0.1:0", "--discovery-key", filepath.Join(dir, "d.key"), "--secrets-key", filepath.Join(dir, "s.key"),
		"--scan-interval", "0"}
	_, err := run(t, nil, args...)
	if err == nil || !strings.Contains(err.Error(), "lacks") || !strings.Contains(err.Error(), "init.sql") || !strings.Contains(err.Error(), "mcpregd migrate up") {
		t.Fatalf("serve --migrate=false on an empty database: %v", err)
	}
	if out, err := run(t, nil, "--db", db, "migrate", "status"); err != nil || strings.Contains(out, "Applied:true") {
		t.Fatalf("the refused serve changed the schema: %v\n%s", err, out)
	}
	if out, err := run(t, nil, "--db", db, "migrate", "up"); err != nil {
		t.Fatalf("migrate up: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	select {
	case err := <-done:
		t.Fatalf("serve --migrate=false on a migrated database: %v", err)
	case <-time.After(2 * time.Second):
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve stopped with: %v", err)
	}
}

// TestServeRefusesInvalidConfig: serve refuses a configuration Verify
// refuses, in Verify's words (the test server does the same, see
// servertest), before the database is created.
func TestServeRefusesInvalidConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "never.db")
	_, err := run(t, nil, "--db", "sqlite://"+path, "serve", "--contract-max-token-ttl", "0s")
	if err == nil || !strings.Contains(err.Error(), "--contract-max-token-ttl 0s: want at least 1s") {
		t.Fatalf("serve --contract-max-token-ttl 0s: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the refused serve touched the database: %v", err)
	}
}
