package gate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// Upstream is a stdio MCP server the gate started: the host's own command,
// run as the host would run it (no sandbox: it is the host's process), in
// a process group of its own so that stopping it stops its children too.
type Upstream struct {
	cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	done   chan struct{}
}

// StartUpstream starts path with args and env; its standard error goes to
// stderr (the host's log), never to the protocol stream.
//
// Stdout is a pipe of the gate's own, not exec's StdoutPipe, which Wait
// closes as soon as the server exits: what the server wrote last would be
// lost to the relay still reading it. When the server exits, what it left
// in its process group is killed, so that Stdout ends once read.
func StartUpstream(path string, args, env []string, stderr io.Writer) (*Upstream, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	setProcessGroup(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, outW, err := os.Pipe()
	if err != nil {
		_ = in.Close()
		return nil, err
	}
	cmd.Stdout = outW
	// Not a writer exec copies to: Wait would wait for the copy, which
	// lasts as long as any child holds the server's standard error.
	errR, errW, err := stderrFile(stderr)
	if err != nil {
		_, _ = in.Close(), out.Close()
		_ = outW.Close()
		return nil, err
	}
	if errW != nil {
		cmd.Stderr = errW // not a nil *os.File: that would close fd 2
	}
	err = cmd.Start()
	_ = outW.Close() // the server has its own copies
	if errR != nil {
		_ = errW.Close()
		if err == nil {
			go func() {
				_, _ = io.Copy(stderr, errR)
				_ = errR.Close()
			}()
		} else {
			_ = errR.Close()
		}
	}
	if err != nil {
		_, _ = in.Close(), out.Close()
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	u := &Upstream{cmd: cmd, Stdin: in, Stdout: out, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = killGroup(cmd) // the server's leftovers would hold Stdout open
		close(u.done)
	}()
	return u, nil
}

// stderrFile is the file the server writes its standard error to: w
// itself when it is a file (or nil: the null device), else the write end
// of a pipe whose read end r is to be copied to w.
func stderrFile(w io.Writer) (r, f *os.File, err error) {
	if w == nil {
		return nil, nil, nil
	}
	if f, ok := w.(*os.File); ok {
		return nil, f, nil
	}
	return os.Pipe()
}

// Stop closes the server's input and gives it grace to exit, then
// terminates its process group, then kills it; then it closes Stdout.
func (u *Upstream) Stop(grace time.Duration) error {
	_ = u.Stdin.Close()
	defer func() { _ = u.Stdout.Close() }()
	for _, sig := range []func(*exec.Cmd) error{nil, terminateGroup, killGroup} {
		if sig != nil {
			if err := sig(u.cmd); err != nil && !errors.Is(err, errGone) {
				return err
			}
		}
		select {
		case <-u.done:
			return nil
		case <-time.After(grace):
		}
	}
	<-u.done
	return nil
}

// Done is closed when the server process has exited.
func (u *Upstream) Done() <-chan struct{} { return u.done }

// Reader is the server's standard output.
func (u *Upstream) Reader() io.Reader { return u.Stdout }

// Writer is the server's standard input.
func (u *Upstream) Writer() io.Writer { return u.Stdin }

// Close stops the server (Stop with a grace of two seconds).
func (u *Upstream) Close() error { return u.Stop(2 * time.Second) }
