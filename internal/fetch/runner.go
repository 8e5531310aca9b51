package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Step is one npm invocation.
type Step struct {
	// Argv is the command; argv[0] is "npm" or an absolute path.
	Argv []string
	// Dir is the working directory; it is writable for the step.
	Dir string
	// Env is the complete environment: nothing is inherited.
	Env []string
	// Writable are the host folders the step may write (Dir, HOME and
	// the npm cache inside it), bound at the same path. They belong to
	// mcpregd's user; a runner that runs the step as another user makes
	// them writable for it. Afterwards the fetcher gives everything
	// below Dir back to mcpregd's user and takes write permission from
	// everybody else.
	Writable []string
	// ReadOnly are host files and folders the step may read (the
	// registry-written npm configuration), bound at the same path.
	ReadOnly []string
	// Network says the step needs the configured npm registry; false
	// means no network at all.
	Network bool
}

// Runner runs steps. The error of a failed step says why (its exit status
// and the end of what it wrote to standard error).
type Runner interface {
	Run(ctx context.Context, s Step, stdout io.Writer) error
}

// ExecRunner runs steps as plain child processes with exactly Step.Env, in
// their own process group, which is killed when ctx ends. It confines
// nothing beyond that: Writable, ReadOnly and Network are for runners that
// can enforce them.
type ExecRunner struct{}

// Run runs s and copies its standard output to stdout.
func (ExecRunner) Run(ctx context.Context, s Step, stdout io.Writer) error {
	if len(s.Argv) == 0 {
		return errors.New("empty command")
	}
	cmd := exec.CommandContext(ctx, s.Argv[0], s.Argv[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean "inherit"
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &limitedBuffer{buf: &stderr, max: 4 << 10}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
