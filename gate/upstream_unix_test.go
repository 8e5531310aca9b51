//go:build unix

package gate_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// startShell starts sh -c script as an upstream, its standard error to
// stderr.
func startShell(t *testing.T, script string, stderr io.Writer) *gate.Upstream {
	t.Helper()
	u, err := gate.StartUpstream("/bin/sh", []string{"-c", script}, []string{"PATH=" + os.Getenv("PATH")}, stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := u.Stop(0); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return u
}

// readPID reads the pid a script printed on its first line.
func readPID(t *testing.T, r io.Reader) int {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case line := <-got:
		pid, err := strconv.Atoi(line)
		if err != nil || pid <= 1 {
			t.Fatalf("the script printed %q, want a pid", line)
		}
		return pid
	case <-time.After(timeout):
		t.Fatalf("the script printed no pid within %v", timeout)
		return 0
	}
}

// gone reports whether pid no longer runs: it does not exist, or it is a
// zombie no one reaped yet (init in a container may not).
func gone(pid int) bool {
	err := syscall.Kill(pid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, rerr := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if rerr != nil {
		return false
	}
	// pid (comm) STATE ...
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitGone waits, boundedly, for pid to be gone.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs %v after Stop", pid, timeout)
		}
		time.Sleep(10 * time.Millisecond) // bounded polling
	}
}

// Stop stops the whole process group: the server and its children, even
// when the server ignores the end of its input and SIGTERM, and even when
// the server itself has already exited.
func TestStopKillsProcessGroup(t *testing.T) {
	tests := []struct{ name, script string }{
		{"ignores stdin EOF", `sleep 1000 & echo $!; wait`},
		{"ignores SIGTERM too", `trap '' TERM; sleep 1000 & echo $!; wait`},
		{"exits on stdin EOF", `sleep 1000 & echo $!; cat >/dev/null`},
	}
	stderrs := map[string]func(t *testing.T) io.Writer{
		// A file, as the CLI gives: the server writes to it directly.
		"stderr file": func(t *testing.T) io.Writer {
			f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = f.Close() })
			return f
		},
		// Any other writer: its standard error is copied.
		"stderr buffer": func(*testing.T) io.Writer { return &testkit.SyncBuffer{} },
	}
	for _, tt := range tests {
		for name, stderr := range stderrs {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				u := startShell(t, tt.script, stderr(t))
				child := readPID(t, u.Stdout)
				if gone(child) {
					t.Fatalf("child %d is not running", child)
				}
				stopped := make(chan error, 1)
				go func() { stopped <- u.Stop(200 * time.Millisecond) }()
				select {
				case err := <-stopped:
					if err != nil {
						t.Fatalf("Stop: %v", err)
					}
				case <-time.After(timeout):
					t.Fatalf("Stop did not return within %v", timeout)
				}
				select {
				case <-u.Done():
				default:
					t.Error("Done is not closed after Stop")
				}
				waitGone(t, child)
			})
		}
	}
}

// The server's standard error reaches the writer given, never the
// protocol stream.
func TestUpstreamStderr(t *testing.T) {
	stderr := &testkit.SyncBuffer{}
	u := startShell(t, `echo "to the log" >&2; echo '{"jsonrpc":"2.0","method":"x"}'`, stderr)
	line, err := bufio.NewReader(u.Stdout).ReadString('\n')
	if err != nil || line != `{"jsonrpc":"2.0","method":"x"}`+"\n" {
		t.Fatalf("stdout: %q, %v", line, err)
	}
	select {
	case <-u.Done():
	case <-time.After(timeout):
		t.Fatal("the server did not exit")
	}
	deadline := time.Now().Add(timeout)
	for stderr.String() != "to the log\n" {
		if time.Now().After(deadline) {
			t.Fatalf("stderr got %q", stderr.String())
		}
		time.Sleep(10 * time.Millisecond) // bounded polling: the copy ends on its own
	}
}

// Without a writer for it, the server's standard error is the null
// device, not a closed descriptor.
func TestUpstreamNilStderr(t *testing.T) {
	u := startShell(t, `{ echo x >&2; } && echo open || echo closed`, nil)
	line, err := bufio.NewReader(u.Stdout).ReadString('\n')
	if err != nil || line != "open\n" {
		t.Fatalf("stdout: %q, %v; want standard error open", line, err)
	}
}

// An upstream that writes and exits: the relay reads everything it wrote
// and Run says it closed its output.
func TestUpstreamExitReadToTheEnd(t *testing.T) {
	const note = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}`
	for range 20 {
		u := startShell(t, `i=0; while [ $i -lt 50 ]; do printf '%s\n' '`+note+`'; i=$((i+1)); done; exit 3`, nil)
		hostIn, hostInW := io.Pipe()
		hostOutR, hostOutW := io.Pipe()
		toHost := lineChan(hostOutR)
		runErr := make(chan error, 1)
		go func() {
			runErr <- gate.NewRelay(gate.Options{}).Run(context.Background(), hostIn, hostOutW, u.Stdout, u.Stdin)
		}()
		for i := range 50 {
			if m := recv(t, toHost, "host"); string(m.raw) != note {
				t.Fatalf("message %d: host got %s", i, m.raw)
			}
		}
		select {
		case err := <-runErr:
			if !errors.Is(err, gate.ErrUpstreamClosed) {
				t.Fatalf("Run returned %v, want ErrUpstreamClosed", err)
			}
		case <-time.After(timeout):
			t.Fatalf("Run did not return within %v", timeout)
		}
		_ = hostInW.Close()
		_ = hostOutW.Close()
	}
}
