package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Cmd is one command to run in the sandbox.
type Cmd struct {
	// Argv[0] is an absolute path or a name looked up in Env's PATH inside
	// the sandbox (which sees the host's /usr).
	Argv []string
	// Env is the command's whole environment.
	Env []string
	// Dir is the working directory inside the sandbox; "" means Home.
	Dir string
	// ReadOnly are host paths the command may read, at the same path.
	// Regular files are copied in (so they need not be readable by the
	// run's uid); folders are bound and must be readable by it.
	ReadOnly []string
	// Writable are host folders the command may write, bound at the same
	// path. They belong to the run's uid during the run and to their
	// previous owner again afterwards (see Job).
	Writable []string
	// Proxy, when set, is served inside the run's network namespace on
	// ProxyAddr: the one way out of an otherwise network-less run.
	Proxy *Proxy

	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Home is the run's tmpfs: HOME, TMPDIR and the default working directory.
const Home = "/tmp"

// ProxyAddr is where a Cmd's Proxy listens inside the run.
const ProxyAddr = "127.0.0.1:3128"

// Process is one run: the bubblewrap process started as the run's uid,
// the sandbox's first process inside it, and the run's cgroup.
type Process struct {
	sb  *Sandbox
	c   Cmd
	cmd *exec.Cmd

	uid      uint32
	cg       *cgroup
	init     int // pid (host view) of the sandbox's first process
	listener net.Listener
	closers  []io.Closer // child ends of pipes, closed after start
	owners   []owner     // Writable folders and their owners before the run

	killOnce sync.Once
	killErr  error
	waitOnce sync.Once
	waitErr  error
	unwatch  func() bool
}

// Command prepares c; nothing runs before Start.
func (s *Sandbox) Command(c Cmd) (*Process, error) {
	if s.err != nil {
		return nil, s.err
	}
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return nil, errors.New("sandbox: empty command")
	}
	return &Process{sb: s, c: c}, nil
}

// StdinPipe returns a pipe to the command's standard input (before Start).
func (p *Process) StdinPipe() (io.WriteCloser, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.c.Stdin, p.closers = r, append(p.closers, r)
	return w, nil
}

// StdoutPipe returns a pipe from the command's standard output (before
// Start).
func (p *Process) StdoutPipe() (io.ReadCloser, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.c.Stdout, p.closers = w, append(p.closers, w)
	return r, nil
}

// SetStderr sets where the command's standard error goes (before Start).
func (p *Process) SetStderr(w io.Writer) { p.c.Stderr = w }

// Start runs the command. When ctx ends, the whole run is killed.
func (p *Process) Start(ctx context.Context) (err error) {
	uid, err := p.sb.acquire(ctx)
	if err != nil {
		return err
	}
	p.uid = uid
	defer func() {
		if err != nil {
			p.abort()
		}
	}()
	if p.cg, err = p.sb.cg.create(runName(uid), p.sb.cfg); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if err := p.own(); err != nil {
		return err
	}
	info, block, err := p.startBwrap()
	if err != nil {
		return err
	}
	defer func() { _ = block.Close() }()
	if p.init, err = readInit(ctx, info); err != nil {
		return fmt.Errorf("sandbox: %w (stderr of bubblewrap goes to the command's)", err)
	}
	if err := p.confine(); err != nil {
		return err
	}
	if _, err := block.Write([]byte{1}); err != nil {
		return fmt.Errorf("sandbox: releasing the run: %w", err)
	}
	p.unwatch = context.AfterFunc(ctx, func() { _ = p.Kill() })
	return nil
}

// startBwrap starts bubblewrap as the run's uid, holding it before the
// command runs; it returns the read end of its info pipe and the write end
// of its block pipe.
func (p *Process) startBwrap() (*os.File, *os.File, error) {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	blockR, blockW, err := os.Pipe()
	if err != nil {
		_ = infoR.Close()
		_ = infoW.Close()
		return nil, nil, err
	}
	args, files, err := p.args()
	if err != nil {
		return nil, nil, errors.Join(err, infoR.Close(), infoW.Close(), blockR.Close(), blockW.Close())
	}
	cmd := &exec.Cmd{
		Path: p.sb.prlimit, Args: append(p.limits(), args...), Env: p.c.Env, Dir: "/",
		Stdin: p.c.Stdin, Stdout: p.c.Stdout, Stderr: p.c.Stderr,
		ExtraFiles: append([]*os.File{infoW, blockR}, files...),
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true,
			Credential: &syscall.Credential{Uid: p.uid, Gid: p.uid, Groups: []uint32{}}},
		WaitDelay: time.Second,
	}
	err = cmd.Start()
	_ = infoW.Close()
	_ = blockR.Close()
	for _, f := range files {
		_ = f.Close()
	}
	for _, c := range p.closers {
		_ = c.Close()
	}
	p.closers = nil
	if err != nil {
		_ = infoR.Close()
		_ = blockW.Close()
		return nil, nil, fmt.Errorf("sandbox: starting bubblewrap: %w", err)
	}
	p.cmd = cmd
	return infoR, blockW, nil
}

// limits is the start of the command line: prlimit(1) lowers its own
// limits, which bubblewrap and the whole run inherit, then runs bubblewrap.
// (Setting them from outside with prlimit(2) would need CAP_SYS_RESOURCE,
// which containers often drop; lowering one's own needs nothing.)
func (p *Process) limits() []string {
	c := p.sb.cfg
	return []string{"prlimit", fmt.Sprintf("--cpu=%d:%d", c.CPUSeconds, c.CPUSeconds+1),
		fmt.Sprintf("--nofile=%d:%d", c.OpenFiles, c.OpenFiles), "--core=0:0", "--", p.sb.bwrap}
}

// readInit reads the pid of the sandbox's first process from bubblewrap's
// info pipe.
func readInit(ctx context.Context, info *os.File) (int, error) {
	defer func() { _ = info.Close() }()
	stop := context.AfterFunc(ctx, func() { _ = info.SetReadDeadline(time.Now()) })
	defer stop()
	var v struct {
		ChildPid int `json:"child-pid"`
	}
	if err := json.NewDecoder(io.LimitReader(info, 64<<10)).Decode(&v); err != nil {
		return 0, fmt.Errorf("bubblewrap did not report its sandbox's pid (%w)", err)
	}
	if v.ChildPid <= 0 {
		return 0, errors.New("bubblewrap did not report its sandbox's pid")
	}
	return v.ChildPid, nil
}

// confine moves the held first process into the run's cgroup and starts
// the proxy inside its network namespace.
func (p *Process) confine() error {
	if err := p.cg.add(p.init); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if p.c.Proxy == nil {
		return nil
	}
	l, err := listenIn(p.init, ProxyAddr)
	if err != nil {
		return fmt.Errorf("sandbox: proxy inside the run: %w", err)
	}
	p.listener = l
	go func() { _ = p.c.Proxy.Serve(l) }()
	return nil
}

// Kill ends every process of the run. It is safe to call more than once
// and concurrently with Wait.
func (p *Process) Kill() error {
	p.killOnce.Do(func() {
		if p.cg != nil {
			p.killErr = p.cg.kill(p.sb.cfg.KillTimeout)
		}
		if p.cmd != nil && p.cmd.Process != nil {
			_ = p.cmd.Process.Kill() // bubblewrap itself, outside the cgroup
		}
	})
	return p.killErr
}

// Wait waits for the command to exit, then kills what is left of the run,
// removes its cgroup and frees its uid. The error names limits the run
// ran into.
func (p *Process) Wait() error {
	p.waitOnce.Do(func() {
		err := p.cmd.Wait()
		if p.unwatch != nil {
			p.unwatch()
		}
		hit := p.cg.limitsHit(p.sb.cfg)
		if kerr := p.finish(); kerr != nil {
			err = errors.Join(err, kerr)
		}
		if len(hit) > 0 {
			err = fmt.Errorf("%w: the run hit its %s", ErrLimit, strings.Join(hit, " and "))
		}
		p.waitErr = err
	})
	return p.waitErr
}

// ErrLimit marks a run that hit a cgroup limit (processes, memory).
var ErrLimit = errors.New("sandbox limit")

// LimitHit waits for the run and returns its error when the run hit a
// limit (ErrLimit), else nil.
func (p *Process) LimitHit() error {
	if err := p.Wait(); errors.Is(err, ErrLimit) {
		return err
	}
	return nil
}

// CgroupProcs lists the processes of the run's cgroup (for tests and
// diagnostics); after Wait the cgroup is gone and the error says so.
func (p *Process) CgroupProcs() ([]int, error) { return p.cg.procs() }

// finish kills the rest of the run and frees what it held.
func (p *Process) finish() error {
	kerr := p.Kill()
	if p.listener != nil {
		p.listener.Close()
	}
	var rerr error
	if kerr == nil {
		rerr = p.cg.remove()
	}
	oerr := p.disown()
	p.sb.release(p.uid)
	return errors.Join(kerr, rerr, oerr)
}

// abort undoes a Start that failed half way.
func (p *Process) abort() {
	if p.unwatch != nil {
		p.unwatch()
	}
	for _, c := range p.closers {
		_ = c.Close()
	}
	if p.cmd != nil {
		_ = p.Kill()
		_ = p.cmd.Wait()
	}
	if p.cg != nil {
		_ = p.cg.kill(p.sb.cfg.KillTimeout)
		_ = p.cg.remove()
	}
	_ = p.disown()
	p.sb.release(p.uid)
}

func runName(uid uint32) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("run-%d-%s", uid, hex.EncodeToString(b))
}
