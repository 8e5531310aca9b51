package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/storetest"
)

// Bounds of the registry process.
const (
	startTimeout = 30 * time.Second
	stopTimeout  = 20 * time.Second
	cmdTimeout   = 30 * time.Second
)

// registryProc is a running `mcpregd serve` on loopback with its own
// database (SQLite file or PostgreSQL database), discovery key and home
// folder.
type registryProc struct {
	dir     string
	dialect string // store.DialectSQLite or store.DialectPostgres
	db      string // the DSN that serve and the admin commands get
	url     string // http://127.0.0.1:PORT
	logs    *lockedBuffer
}

// forEachDialect runs fn as a subtest per dialect of storetest.Dialects:
// SQLite always, PostgreSQL when MCPREG_TEST_POSTGRES_DSN is set (and a
// failure without it under MCPREG_TEST_REQUIRE_ALL=1), one after the
// other: the flows are CPU-bound (argon2id, Chromium), and side by side on
// a two-core machine they were no faster.
func forEachDialect(t *testing.T, fn func(t *testing.T, dialect string)) {
	t.Helper()
	for _, d := range storetest.Dialects(t) {
		t.Run(d, func(t *testing.T) { fn(t, d) })
	}
}

// startRegistry starts mcpregd on a fresh, empty database of dialect (serve
// migrates it, as it does in production) and free loopback ports (port 0,
// the bound address read from its log), waits for /healthz and stops it
// with SIGTERM when the test ends, before the database is removed.
func startRegistry(t *testing.T, dialect string) *registryProc {
	t.Helper()
	dir := t.TempDir()
	r := &registryProc{dir: dir, dialect: dialect, db: storetest.EmptyDSN(t, dialect), logs: &lockedBuffer{}}
	cmd := exec.Command(bins.daemon, "serve", "--db", r.db, "--log-format", "json",
		"--http-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
		"--discovery-key", filepath.Join(dir, "d.key"), "--scan-allow-hosts", "127.0.0.1/32",
		"--scan-cooldown", "0", "--scan-interval", "0")
	cmd.Env, cmd.Dir = r.env(), dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mcpregd: %v", err)
	}
	addr := make(chan string, 1)
	go r.readLogs(stderr, addr)
	e := &exit{done: make(chan struct{})}
	go func() { e.err = cmd.Wait(); close(e.done) }()
	t.Cleanup(func() { r.stop(t, cmd, e) })
	select {
	case a := <-addr:
		r.url = "http://" + a
	case <-e.done:
		t.Fatalf("mcpregd exited before serving: %v\n%s", e.err, r.logs)
	case <-time.After(startTimeout):
		t.Fatalf("mcpregd did not log its address within %s\n%s", startTimeout, r.logs)
	}
	r.waitHealthy(t)
	return r
}

// env is a clean environment: no MCPREG_* setting of the caller leaks in.
func (r *registryProc) env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.dir, "TMPDIR=" + os.TempDir()}
}

// readLogs copies mcpregd's JSON log and sends the HTTP address it serves.
func (r *registryProc) readLogs(rd io.Reader, addr chan<- string) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		r.logs.Write(line)
		r.logs.Write([]byte{'\n'})
		var rec struct{ Msg, HTTP string }
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "mcpregd serving" && rec.HTTP != "" {
			select {
			case addr <- rec.HTTP:
			default:
			}
		}
	}
	_, _ = io.Copy(io.Discard, rd)
}

func (r *registryProc) waitHealthy(t *testing.T) {
	t.Helper()
	for end := time.Now().Add(startTimeout); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(r.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatalf("no /healthz on %s within %s\n%s", r.url, startTimeout, r.logs)
}

// exit is a process's end: done closes when it has exited with err.
type exit struct {
	done chan struct{}
	err  error
}

// stop sends SIGTERM and expects a clean exit within stopTimeout.
func (r *registryProc) stop(t *testing.T, cmd *exec.Cmd, e *exit) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.done:
		if e.err != nil {
			t.Errorf("mcpregd exit after SIGTERM: %v", e.err)
		}
	case <-time.After(stopTimeout):
		_ = cmd.Process.Kill()
		<-e.done
		t.Errorf("mcpregd did not stop within %s of SIGTERM", stopTimeout)
	}
	if t.Failed() {
		t.Logf("mcpregd log:\n%s", r.logs)
	}
}

// admin runs an mcpregd admin command on the same database.
func (r *registryProc) admin(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := r.exec(bins.daemon, nil, stdin, append(args, "--db", r.db)...)
	if err != nil {
		t.Fatalf("mcpregd %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// addUser gives principal name a web password (mcpregd user add).
func (r *registryProc) addUser(t *testing.T, name, role, password string) {
	t.Helper()
	r.admin(t, password+"\n", "user", "add", name, "--role", role)
}

// token creates an API token (mcpregd token create); the secret is the
// last line of its output.
func (r *registryProc) token(t *testing.T, name, role string, namespaces ...string) string {
	t.Helper()
	args := []string{"token", "create", "--name", name, "--role", role}
	for _, ns := range namespaces {
		args = append(args, "--namespace", ns)
	}
	out := strings.TrimSpace(r.admin(t, "", args...))
	tok := out[strings.LastIndexByte(out, '\n')+1:]
	if !strings.HasPrefix(tok, "mcpreg_") {
		t.Fatalf("token create: last line is not a token:\n%s", out)
	}
	return tok
}

// cli runs the mcpreg CLI against the registry; the token goes in
// MCPREG_TOKEN, not on the command line.
func (r *registryProc) cli(token string, args ...string) (string, error) {
	return r.exec(bins.cli, []string{"MCPREG_TOKEN=" + token}, "", append([]string{"--server", r.url}, args...)...)
}

// mustCLI is cli that fails the test on an error.
func (r *registryProc) mustCLI(t *testing.T, token string, args ...string) string {
	t.Helper()
	out, err := r.cli(token, args...)
	if err != nil {
		t.Fatalf("mcpreg %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (r *registryProc) exec(bin string, env []string, stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = append(r.env(), env...), r.dir, strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// version is what the tests read of `mcpreg versions get -o json`.
type version struct {
	State string `json:"state"`
	Pins  struct {
		Revision int `json:"revision"`
	} `json:"pins"`
}

func (r *registryProc) version(t *testing.T, token, name, ver string) version {
	t.Helper()
	out := r.mustCLI(t, token, "versions", "get", name, ver, "--output", "json")
	var v version
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("versions get output: %v\n%s", err, out)
	}
	return v
}

// lockedBuffer is a bytes.Buffer safe for one writer and many readers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
