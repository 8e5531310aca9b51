package scan

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTarget is a server started as a child process speaking MCP over its
// standard input and output.
//
// The command is run directly, never through a shell. Which commands may run
// is the caller's decision (the registry uses admin-approved launch
// templates); this package only runs the already resolved command it is
// given, in a scrubbed environment, in a fresh working directory, in its own
// process group, which is killed when the scan ends or its deadline passes.
type StdioTarget struct {
	// Command is an absolute path, or a name looked up in the child's PATH.
	Command string
	// Args are the arguments after the command name.
	Args []string
	// Env is the child's whole environment besides PATH, HOME and TMPDIR:
	// nothing is inherited from this process. PATH defaults to DefaultPath;
	// HOME and TMPDIR default to the working directory. Entries here win.
	Env map[string]string
	// Dir is where the per-scan working directory is created (and removed
	// afterwards); "" means os.TempDir().
	Dir string
	// Credential, when set, runs the child as that user and group (the
	// scanning user, who cannot read the registry's database or keys). The
	// working directory is given to that user. Needs the privilege to
	// switch users.
	Credential *syscall.Credential
	// Confinement, when set, runs the server confined (the registry's
	// sandbox: its own uid, namespaces, no network, a tmpfs as HOME, TMPDIR
	// and working directory, capped memory and processes, and the whole tree
	// killed at the end). Dir and Credential are then unused.
	Confinement *Confinement
	// ReadOnly are host paths a confined server may read besides the
	// system folders and its command's folder (a prepared npm package).
	ReadOnly []string
}

// Confinement runs stdio servers confined. The registry builds one from its
// sandbox; hosts reading their own servers leave StdioTarget.Confinement nil.
type Confinement struct {
	// Home is a confined server's HOME, TMPDIR and working directory, as
	// the server sees it.
	Home string
	// Command prepares a confined run of argv with env that may read the
	// host paths readOnly; nothing runs before Start.
	Command func(argv, env, readOnly []string) (ConfinedProcess, error)
}

// ConfinedProcess is one confined run.
type ConfinedProcess interface {
	StdinPipe() (io.WriteCloser, error)
	StdoutPipe() (io.ReadCloser, error)
	SetStderr(w io.Writer)
	// Start runs the command; when ctx ends, the whole run is killed.
	Start(ctx context.Context) error
	// Kill ends the whole run.
	Kill() error
	// Wait waits for the run and frees what it held.
	Wait() error
	// LimitHit waits for the run and returns its error when the run hit a
	// limit (processes, memory), else nil.
	LimitHit() error
}

// DefaultPath is the PATH of a stdio server unless its Env sets one.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin"

func (t StdioTarget) open(ctx context.Context, s *session) (*link, error) {
	if t.Confinement != nil {
		return t.openSandboxed(ctx, s)
	}
	work, err := t.workDir()
	if err != nil {
		return nil, err
	}
	p, err := t.start(ctx, work, s)
	if err != nil {
		_ = os.RemoveAll(work)
		return nil, err
	}
	closeLink := func() { p.stop(); _ = os.RemoveAll(work) }
	return &link{transport: p.transport, close: closeLink, stderr: p.stderr.result}, nil
}

// workDir creates the child's working directory.
func (t StdioTarget) workDir() (string, error) {
	work, err := os.MkdirTemp(t.Dir, "mcpreg-scan-")
	if err != nil {
		return "", fmt.Errorf("scan: working directory: %w", err)
	}
	if c := t.Credential; c != nil {
		if err := os.Chown(work, int(c.Uid), int(c.Gid)); err != nil {
			_ = os.RemoveAll(work)
			return "", fmt.Errorf("scan: working directory for uid %d: %w", c.Uid, err)
		}
	}
	return work, nil
}

// environ returns the child's environment, sorted.
func (t StdioTarget) environ(work string) ([]string, error) {
	env := map[string]string{"PATH": DefaultPath, "HOME": work, "TMPDIR": work}
	for k, v := range t.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return nil, fmt.Errorf("scan: environment variable %q: invalid name or value", k)
		}
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out, nil
}

// command builds the child's exec.Cmd, without a shell.
func (t StdioTarget) command(work string) (*exec.Cmd, error) {
	env, err := t.environ(work)
	if err != nil {
		return nil, err
	}
	path, err := LookPath(t.Command, env)
	if err != nil {
		return nil, err
	}
	return &exec.Cmd{
		Path:        path,
		Args:        append([]string{t.Command}, t.Args...),
		Env:         env,
		Dir:         work,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Credential: t.Credential},
	}, nil
}

func pathOf(env []string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			return v
		}
	}
	return ""
}

// LookPath finds the command name as a child with the environment env
// would: in the absolute directories of env's PATH (not this process's
// PATH; relative entries are skipped). A name with a slash must be
// absolute.
func LookPath(name string, env []string) (string, error) { return lookPath(name, pathOf(env)) }

// lookPath finds name in the directories of path (the child's PATH, not
// this process's). A name with a slash must be absolute.
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			return "", fmt.Errorf("scan: command %q: a path must be absolute", name)
		}
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		f := filepath.Join(dir, name)
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return f, nil
		}
	}
	return "", fmt.Errorf("scan: command %q not found in the server's PATH %q", name, path)
}

// transportFor connects the SDK to the child's pipes through the taps.
func transportFor(p *process, s *session) mcp.Transport {
	return &mcp.IOTransport{
		Reader:        newLineTap(p.stdout, s.lim, s.budget, s.rec.receive, s.trip),
		Writer:        &writeTap{w: p.stdin, sent: s.rec.sent},
		MaxLineLength: sdkFrameLimit(s.lim),
	}
}
