// Package daemon builds and runs real mcpregd processes on loopback: for
// the tests that need several replicas or a crash, and for the scripts that
// start a local multi-replica setup or measure one. It is not part of the
// service.
package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// StartTimeout bounds how long a process may take to serve.
const StartTimeout = 30 * time.Second

// Build compiles mcpregd and the mcpreg CLI from this module into dir and
// returns their paths.
func Build(dir string) (daemon, cli string, err error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", "", errors.New("not inside the mcpreg module")
	}
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/mcpregd", "./cmd/mcpreg")
	cmd.Dir = filepath.Dir(gomod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build ./cmd/mcpregd ./cmd/mcpreg: %w\n%s", err, out)
	}
	return filepath.Join(dir, "mcpregd"), filepath.Join(dir, "mcpreg"), nil
}

// Env is a clean environment for a process working in dir: no MCPREG_*
// setting of the caller leaks in.
func Env(dir string, extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + os.TempDir()}, extra...)
}

// Proc is one running `mcpregd serve`.
type Proc struct {
	Name               string
	URL, GRPC, Metrics string // http://HOST:PORT, HOST:PORT, http://HOST:PORT
	Logs               *Buffer
	cmd                *exec.Cmd
	done               chan struct{}
	err                error
	bin, dir           string
	env, args          []string
}

// Start runs `mcpregd serve ARGS` in dir with env on free loopback ports
// (unless ARGS name them), reads the bound addresses from its JSON log and
// waits until /healthz answers.
func Start(bin, dir string, env []string, name string, args ...string) (*Proc, error) {
	p := &Proc{Name: name, bin: bin, dir: dir, env: env, args: args}
	return p, p.start()
}

func (p *Proc) start() error {
	args := append([]string{"serve", "--log-format", "json"}, p.args...)
	for _, flag := range []string{"--http-addr", "--grpc-addr", "--metrics-addr"} {
		if !hasFlag(p.args, flag) {
			args = append(args, flag, "127.0.0.1:0")
		}
	}
	p.Logs, p.done, p.err = &Buffer{}, make(chan struct{}), nil
	p.cmd = exec.Command(p.bin, args...)
	p.cmd.Env, p.cmd.Dir = p.env, p.dir
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("start mcpregd %s: %w", p.Name, err)
	}
	addrs := make(chan [3]string, 1)
	logsDone := make(chan struct{})
	go func() { p.readLogs(stderr, addrs); close(logsDone) }()
	go func() {
		<-logsDone // Wait closes the pipe: read it to the end first
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	select {
	case a := <-addrs:
		p.URL, p.GRPC, p.Metrics = "http://"+a[0], a[1], "http://"+a[2]
	case <-p.done:
		return fmt.Errorf("mcpregd %s exited before serving: %v\n%s", p.Name, p.err, p.Logs) //nolint:errorlint // p.err is nil after a clean exit, which %w would print as %!w(<nil>)
	case <-time.After(StartTimeout):
		p.Kill()
		return fmt.Errorf("mcpregd %s did not log its addresses within %s\n%s", p.Name, StartTimeout, p.Logs)
	}
	if err := p.waitHealthy(); err != nil {
		p.Kill() // an error means nothing is left running
		return err
	}
	return nil
}

// Restart starts the process again with the same settings (after Kill or
// Stop); its ports are new.
func (p *Proc) Restart() error { return p.start() }

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

func (p *Proc) readLogs(rd io.Reader, addrs chan<- [3]string) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		_, _ = p.Logs.Write(append(line, '\n'))
		var rec struct{ Msg, HTTP, GRPC, Metrics string }
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "mcpregd serving" {
			select {
			case addrs <- [3]string{rec.HTTP, rec.GRPC, rec.Metrics}:
			default:
			}
		}
	}
	_, _ = io.Copy(io.Discard, rd)
}

func (p *Proc) waitHealthy() error {
	for end := time.Now().Add(StartTimeout); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(p.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("no /healthz on %s within %s\n%s", p.URL, StartTimeout, p.Logs)
}

// Kill ends the process with SIGKILL (a crash: nothing is flushed or
// handed back) and waits for it.
func (p *Proc) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Stop sends SIGTERM and waits up to timeout for a clean exit, then kills.
func (p *Proc) Stop(timeout time.Duration) error {
	select {
	case <-p.done:
		return nil // already gone (killed)
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		p.Kill()
		return fmt.Errorf("mcpregd %s did not stop within %s of SIGTERM", p.Name, timeout)
	}
}

// PID is the process id of the running mcpregd (for /proc readings).
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Running reports whether the process has not exited.
func (p *Proc) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Admin runs an mcpregd admin command (token create, audit verify, ...)
// and returns its combined output.
func Admin(ctx context.Context, bin, dir string, env []string, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, dir, strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Token creates an API token with `mcpregd token create` and returns it
// (the last line of the output).
func Token(ctx context.Context, bin, dir string, env []string, db, name, role string, namespaces ...string) (string, error) {
	args := []string{"token", "create", "--db", db, "--name", name, "--role", role}
	for _, ns := range namespaces {
		args = append(args, "--namespace", ns)
	}
	out, err := Admin(ctx, bin, dir, env, "", args...)
	if err != nil {
		return "", fmt.Errorf("token create %s: %w\n%s", name, err, out)
	}
	out = strings.TrimSpace(out)
	tok := out[strings.LastIndexByte(out, '\n')+1:]
	if !strings.HasPrefix(tok, "mcpreg_") {
		return "", fmt.Errorf("token create %s: the last line is not a token:\n%s", name, out)
	}
	return tok, nil
}

// Buffer is a bytes.Buffer safe for one writer and concurrent readers.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
