package scan

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitDelay bounds how long stopping a child waits for its pipes to close
// after it died: a grandchild that escaped the process group may hold them.
const waitDelay = time.Second

// process is a running stdio server in its own process group.
type process struct {
	cmd       *exec.Cmd
	sandboxed ConfinedProcess // instead of cmd, confined
	stdin     io.WriteCloser
	stdout    io.ReadCloser
	stderr    *stderrBuffer
	transport mcp.Transport

	mu       sync.Mutex
	reaped   bool
	stopOnce sync.Once
	unwatch  func() bool
}

// start runs the target's command in work with pipes to the SDK.
func (t StdioTarget) start(ctx context.Context, work string, s *session) (*process, error) {
	cmd, err := t.command(work)
	if err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, stderr: &stderrBuffer{max: s.lim.MaxStderrBytes}}
	cmd.Stderr, cmd.WaitDelay = p.stderr, waitDelay
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("scan: starting %s: %w", t.Command, err)
	}
	p.unwatch = context.AfterFunc(ctx, p.kill)
	p.transport = transportFor(p, s)
	return p, nil
}

// kill sends SIGKILL to the whole process group, until the leader is
// reaped (after which its id could be reused).
func (p *process) kill() {
	if p.sandboxed != nil {
		_ = p.sandboxed.Kill()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// stop kills the process group and reaps the leader. A scan has what it
// needs by then, so there is no graceful shutdown to wait for.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		if p.sandboxed != nil {
			_ = p.sandboxed.Kill()
			_ = p.sandboxed.Wait()
			_ = p.stdin.Close() // our ends of the pipes (exec.Cmd closes its own)
			p.stdout.Close()
			return
		}
		p.unwatch()
		p.kill()
		_ = p.cmd.Wait()
		p.mu.Lock()
		p.reaped = true
		p.mu.Unlock()
	})
}

// stderrBuffer keeps the first max bytes written to it and drops the rest,
// never blocking the child.
type stderrBuffer struct {
	mu        sync.Mutex
	max       int
	buf       []byte
	truncated bool
}

func (b *stderrBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	keep := min(len(p), b.max-len(b.buf))
	b.buf = append(b.buf, p[:keep]...)
	b.truncated = b.truncated || keep < len(p)
	return len(p), nil
}

// result returns what was kept and whether anything was dropped.
func (b *stderrBuffer) result() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf), b.truncated
}
