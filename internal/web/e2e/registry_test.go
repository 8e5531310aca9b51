package e2e_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/daemon"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// Bounds of the registry process and of each command run against it.
const (
	stopTimeout = 20 * time.Second
	cmdTimeout  = 30 * time.Second
)

// registryProc is a running `mcpregd serve` on loopback with its own
// database (SQLite file or PostgreSQL database), discovery key and home
// folder.
type registryProc struct {
	dir     string
	dialect string // store.DialectSQLite or store.DialectPostgres
	db      string // the DSN that serve and the admin commands get
	url     string // http://127.0.0.1:PORT
	proc    *daemon.Proc
}

// startRegistry starts mcpregd (daemon.Start: a clean environment, free
// loopback ports read from its log, /healthz answering) on a fresh, empty
// database of dialect, which serve migrates as it does in production, and
// stops it with SIGTERM when the test ends, before the database is removed.
func startRegistry(t *testing.T, dialect string) *registryProc {
	t.Helper()
	dir := t.TempDir()
	r := &registryProc{dir: dir, dialect: dialect, db: storetest.EmptyDSN(t, dialect)}
	p, err := daemon.Start(bins.daemon, dir, daemon.Env(dir), dialect, "--db", r.db,
		"--discovery-key", filepath.Join(dir, "d.key"), "--scan-allow-hosts", "127.0.0.1/32",
		"--scan-cooldown", "0", "--scan-interval", "0")
	if err != nil {
		t.Fatal(err) // the error carries the log; nothing is left running
	}
	r.proc, r.url = p, p.URL
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop expects mcpregd to be serving still and to exit cleanly within
// stopTimeout of SIGTERM; when the test failed it shows mcpregd's log.
func (r *registryProc) stop(t *testing.T) {
	if !r.proc.Running() {
		t.Errorf("mcpregd exited before the test ended")
	} else if err := r.proc.Stop(stopTimeout); err != nil {
		t.Errorf("mcpregd after SIGTERM: %v", err)
	}
	if t.Failed() {
		t.Logf("mcpregd log:\n%s", r.proc.Logs)
	}
}

// admin runs an mcpregd admin command on the same database.
func (r *registryProc) admin(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	return r.run(t, "mcpregd "+strings.Join(args, " "), bins.daemon, nil, stdin, append(args, "--db", r.db)...)
}

// addUser gives principal name a web password (mcpregd user add).
func (r *registryProc) addUser(t *testing.T, name, role, password string) {
	t.Helper()
	r.admin(t, password+"\n", "user", "add", name, "--role", role)
}

// token creates an API token (mcpregd token create).
func (r *registryProc) token(t *testing.T, name, role string, namespaces ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), cmdTimeout)
	defer cancel()
	tok, err := daemon.Token(ctx, bins.daemon, r.dir, daemon.Env(r.dir), r.db, name, role, namespaces...)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// mustCLI runs the mcpreg CLI against the registry and fails the test on
// an error; the token goes in MCPREG_TOKEN, not on the command line.
func (r *registryProc) mustCLI(t *testing.T, token string, args ...string) string {
	t.Helper()
	return r.run(t, "mcpreg "+strings.Join(args, " "), bins.cli, []string{"MCPREG_TOKEN=" + token}, "",
		append([]string{"--server", r.url}, args...)...)
}

// run runs bin in the registry's folder with a clean environment plus env,
// within cmdTimeout, and fails the test, naming the command as what, when
// it does not exit 0.
func (r *registryProc) run(t *testing.T, what, bin string, env []string, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), cmdTimeout)
	defer cancel()
	out, err := daemon.Admin(ctx, bin, r.dir, daemon.Env(r.dir, env...), stdin, args...)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, out)
	}
	return out
}

// version is what the tests read of `mcpreg versions get -o json`.
type version struct {
	State string `json:"state"`
	Pins  struct {
		Revision int `json:"revision"`
	} `json:"pins"`
}

// firstVersion is version 1.0.0 of name (the one the tests submit) as
// token sees it.
func (r *registryProc) firstVersion(t *testing.T, token, name string) version {
	t.Helper()
	out := r.mustCLI(t, token, "versions", "get", name, "1.0.0", "--output", "json")
	var v version
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("versions get output: %v\n%s", err, out)
	}
	return v
}
