package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunIsConfined: what a run sees of itself: its own uid from the
// range, no capabilities, no_new_privs, the rlimits, a loopback-only
// network, a read-only root and system, a writable tmpfs of the set size.
func TestRunIsConfined(t *testing.T) {
	sb := newTestSandbox(t, Config{UIDs: UIDRange{First: 100200, Count: 2}, TmpfsBytes: 8 << 20, CPUSeconds: 7, OpenFiles: 77})
	out, stderr, err := run(t, sb, Cmd{Argv: []string{"sh", "-c", `id -u; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; ulimit -t; ulimit -n
ls /sys/class/net 2>/dev/null || tail -n +3 /proc/net/dev | cut -d: -f1
touch /x 2>/dev/null || echo root-ro; touch /usr/x 2>/dev/null || echo usr-ro; touch /dev/x 2>/dev/null || echo dev-ro
touch /tmp/ok && echo tmp-rw; df -k /tmp | tail -1 | awk '{print $2}'; test -e /etc/shadow || echo no-shadow; pwd; cat /proc/self/cgroup | grep -c mcpreg/run-`}})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	for _, want := range []string{"CapEff:\t0000000000000000", "NoNewPrivs:\t1", "\n7\n77\n", "lo\n", "root-ro", "usr-ro", "dev-ro", "tmp-rw", "\n8192\n", "no-shadow", "\n/tmp\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("run output lacks %q:\n%s", want, out)
		}
	}
	if uid := strings.SplitN(out, "\n", 2)[0]; uid != "100200" && uid != "100201" {
		t.Fatalf("run as uid %s, want one of 100200-100201", uid)
	}
	if strings.Contains(out, "eth") {
		t.Fatalf("run sees a network interface besides lo:\n%s", out)
	}
}

// TestSetsidGrandchildDies: a grandchild that starts its own session and
// outlives its parent is killed with the run, and the run's cgroup is
// emptied and removed.
func TestSetsidGrandchildDies(t *testing.T) {
	sb := newTestSandbox(t, Config{})
	marker := fmt.Sprintf("%d", 4000000+time.Now().UnixNano()%1000000)
	path := script(t, "setsid sleep "+marker+" </dev/null >/dev/null 2>&1 &\nsleep 0.2\necho parent-exits\n")
	out, stderr, err := run(t, sb, Cmd{Argv: []string{path}})
	if err != nil || !strings.Contains(out, "parent-exits") {
		t.Fatalf("run: %v %q %s", err, out, stderr)
	}
	if left := markerAlive("sleep\x00" + marker); len(left) > 0 {
		t.Fatalf("setsid grandchild outlived the run: %v", left)
	}
}

// TestNoNetwork: a run reaches neither a listener on the host's loopback
// nor the cloud metadata address.
func TestNoNetwork(t *testing.T) {
	sb := newTestSandbox(t, Config{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var seen atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			seen.Add(1)
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	path := script(t, fmt.Sprintf(`(exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && echo loopback=connected || echo loopback=failed
(exec 3<>/dev/tcp/169.254.169.254/80) 2>/dev/null && echo metadata=connected || echo metadata=failed
`, port))
	out, stderr, err := run(t, sb, Cmd{Argv: []string{path}})
	if err != nil {
		t.Fatalf("run: %v %s", err, stderr)
	}
	if !strings.Contains(out, "loopback=failed") || !strings.Contains(out, "metadata=failed") {
		t.Fatalf("a connection got out:\n%s", out)
	}
	time.Sleep(50 * time.Millisecond)
	if n := seen.Load(); n != 0 {
		t.Fatalf("the host listener saw %d connections from the run", n)
	}
}

// TestTmpfsFull: filling the tmpfs stops at its size with ENOSPC.
func TestTmpfsFull(t *testing.T) {
	sb := newTestSandbox(t, Config{TmpfsBytes: 4 << 20})
	out, stderr, err := run(t, sb, Cmd{Argv: []string{"sh", "-c", "head -c 64M /dev/zero > /tmp/fill; echo rc=$?; wc -c < /tmp/fill"}})
	if err != nil {
		t.Fatalf("run: %v %s", err, stderr)
	}
	if !strings.Contains(stderr, "No space left on device") || !strings.Contains(out, "rc=1") {
		t.Fatalf("filling the tmpfs: %q %q", out, stderr)
	}
	var n int64
	if _, err := fmt.Sscan(strings.TrimSpace(out[strings.Index(out, "\n")+1:]), &n); err != nil {
		t.Fatalf("reading the size written from %q: %v", out, err)
	}
	if n > 4<<20 || n == 0 {
		t.Fatalf("the run wrote %d bytes into a 4 MiB tmpfs", n)
	}
}

// TestForkBomb: a fork loop is capped by the pids cgroup, killed at the
// deadline, reported as a limit, and leaves nothing behind.
func TestForkBomb(t *testing.T) {
	sb := newTestSandbox(t, Config{Pids: 32})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var stderr syncBuilder
	p, err := sb.Command(Cmd{Argv: []string{"bash", "-c", "b() { b | b & }; b; sleep 100"}, Env: []string{"PATH=/usr/bin:/bin"}, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = p.Wait()
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "process limit 32") {
		t.Fatalf("fork bomb: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the fork bomb took %s to end", d)
	}
	assertGone(t, p)
	if _, err := os.ReadFile("/proc/self/status"); err != nil { // this process still works
		t.Fatal(err)
	}
}

// TestMemoryLimit: a run allocating past its memory cap is killed and the
// limit named.
func TestMemoryLimit(t *testing.T) {
	sb := newTestSandbox(t, Config{MemoryBytes: 32 << 20, TmpfsBytes: 16 << 20})
	_, _, err := run(t, sb, Cmd{Argv: []string{"sh", "-c", "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo ${#x}"}})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "memory limit 33554432") {
		t.Fatalf("memory hog: %v", err)
	}
}

// TestUIDsPerRun: concurrent runs have distinct uids, and a run waits for
// a free uid.
func TestUIDsPerRun(t *testing.T) {
	sb := newTestSandbox(t, Config{UIDs: UIDRange{First: 100300, Count: 2}})
	var procs []*Process
	var outs []*syncBuilder
	for range 2 {
		out := &syncBuilder{}
		p, err := sb.Command(Cmd{Argv: []string{"sh", "-c", "id -u; sleep 10"}, Env: []string{"PATH=/usr/bin:/bin"}, Stdout: out})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		procs, outs = append(procs, p), append(outs, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	p3, _ := sb.Command(Cmd{Argv: []string{"true"}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err := p3.Start(ctx); err == nil || !strings.Contains(err.Error(), "waiting for a free uid of 100300-100301") {
		t.Fatalf("third run with two uids: %v", err)
	}
	for _, p := range procs {
		_ = p.Kill()
		_ = p.Wait()
		assertGone(t, p)
	}
	if a, b := outs[0].String(), outs[1].String(); a == b || a == "" || b == "" {
		t.Fatalf("two runs shared uid %q / %q", a, b)
	}
}
