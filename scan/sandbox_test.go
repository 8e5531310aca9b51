package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/sandbox"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// testSandbox returns a sandbox, or skips loudly where none can be set up
// (fails under MCPREG_TEST_REQUIRE_ALL=1).
func testSandbox(tb testing.TB, cfg sandbox.Config) *sandbox.Sandbox {
	tb.Helper()
	sb, err := sandbox.New(context.Background(), cfg)
	if err != nil {
		testkit.Unavailable(tb, "%s", "the scan sandbox cannot be set up here: "+err.Error())
	}
	return sb
}

// A sandboxed fixture serves as usual, as a uid of the range, in the
// sandbox's tmpfs, with the scrubbed environment.
// confined is how the registry confines the live reader's servers in sb.
func confined(sb *sandbox.Sandbox) *Confinement {
	return &Confinement{Home: sandbox.Home, Command: func(argv, env, readOnly []string) (ConfinedProcess, error) {
		p, err := sb.Command(sandbox.Cmd{Argv: argv, Env: env, ReadOnly: readOnly})
		if err != nil {
			return nil, err
		}
		return p, nil
	}}
}

func TestStdioSandboxed(t *testing.T) {
	sb := testSandbox(t, sandbox.Config{UIDs: sandbox.UIDRange{First: 100400, Count: 1}})
	t.Setenv("MCPREG_SCAN_TEST_SECRET", "hunter2")
	target := stdioFixture(t, "sdk", sdkConfig{EnvTool: true, Tools: 3}, nil)
	target.Command = copyExecutable(t, target.Command)
	target.Confinement = confined(sb)
	snap := mustRead(t, Limits{}, target)
	checkPins(t, snap)
	desc := envDescription(t, snap)
	for _, want := range []string{"uid=100400\n", "\ncwd=/tmp\n", "\nHOME=/tmp\n", "\nTMPDIR=/tmp\n"} {
		if !strings.Contains(desc, want) {
			t.Fatalf("sandboxed server lacks %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, "hunter2") {
		t.Fatalf("the sandboxed server saw the parent's secret:\n%s", desc)
	}
}

// Where the sandbox could not be set up, a stdio scan fails with the
// reason and starts nothing.
func TestStdioSandboxUnavailable(t *testing.T) {
	why := fmt.Errorf("%w: bubblewrap not found: install it", sandbox.ErrUnavailable)
	marker := t.TempDir() + "/ran"
	_, err := read(t, Limits{}, StdioTarget{Command: "sh", Args: []string{"-c", "touch " + marker}, Confinement: confined(sandbox.Unavailable(why))})
	if !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), "bubblewrap not found: install it") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the server ran although the sandbox is unavailable")
	}
}

// A server that forks in a loop ends the scan with a limit error naming
// the process cap, and leaves nothing behind.
func TestStdioSandboxForkBomb(t *testing.T) {
	sb := testSandbox(t, sandbox.Config{Pids: 32})
	marker := fmt.Sprintf("%d", 6000000+time.Now().UnixNano()%1000000)
	_, err := read(t, Limits{Deadline: 3 * time.Second}, StdioTarget{Command: "bash",
		Args: []string{"-c", "b() { sleep " + marker + " & b | b & }; b; sleep " + marker}, Confinement: confined(sb)})
	wantErr(t, err, ErrLimit, "process limit 32")
	if left := processesWith("sleep\x00" + marker); len(left) > 0 {
		t.Fatalf("processes left after the scan: %v", left)
	}
}

// A server that fills its tmpfs hits the size cap; the scan fails with
// the server's own error in its stderr.
func TestStdioSandboxTmpfsFull(t *testing.T) {
	sb := testSandbox(t, sandbox.Config{TmpfsBytes: 2 << 20})
	snap, err := read(t, Limits{}, StdioTarget{Command: "sh", Args: []string{"-c", "head -c 100M /dev/zero > /tmp/fill || exit 7"}, Confinement: confined(sb)})
	if err == nil || !strings.Contains(snap.Stderr, "No space left on device") {
		t.Fatalf("error %v, stderr %q", err, snap.Stderr)
	}
}

// processesWith lists live processes whose command line contains s.
func processesWith(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(cmdline), s) && alive(atoi(e.Name())) {
			out = append(out, e.Name())
		}
	}
	return out
}

func atoi(s string) int {
	n := 0
	_, _ = fmt.Sscan(s, &n) // 0 when s holds no number
	return n
}

// BenchmarkStdioScan compares a scan of the Go fixture run directly and in
// the sandbox: what the sandbox adds to a scan.
func BenchmarkStdioScan(b *testing.B) {
	for _, mode := range []string{"plain", "sandbox"} {
		b.Run(mode, func(b *testing.B) {
			target := stdioFixture(b, "sdk", sdkConfig{Tools: 5}, nil)
			target.Command = copyExecutable(b, target.Command)
			if mode == "sandbox" {
				target.Confinement = confined(testSandbox(b, sandbox.Config{}))
			}
			for b.Loop() {
				mustRead(b, Limits{}, target)
			}
		})
	}
}
