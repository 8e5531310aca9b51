package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Job is a one-shot command (an npm step): the same fields as fetch.Step,
// so an adapter is a field-by-field copy.
type Job struct {
	Argv []string // argv[0] is a name in Env's PATH or an absolute path
	Dir  string   // working directory (host path); writable for the job
	Env  []string // the complete environment (nothing inherited)
	// Writable are host folders the job may write, bound at the same path.
	// During the job they belong to the job's uid; afterwards everything
	// in them belongs to the folder's previous owner again.
	Writable []string
	// ReadOnly are host files and folders the job may read, at the same
	// path (files are copied in, so they may stay private to mcpregd).
	ReadOnly []string
	// Network, when true, lets the job reach the Runner's Allow host:port
	// through a proxy (npm's proxy settings are set in its environment);
	// false: no network at all.
	Network bool
}

// Runner runs Jobs in a Sandbox.
type Runner struct {
	Sandbox *Sandbox
	// Allow is the one "host:port" a job with Network may reach: the npm
	// registry's (see RegistryHostPort).
	Allow string
	// Dial connects to Allow (mcpregd passes the scanner's dial guard); nil
	// means a plain dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	Log  *slog.Logger
	// MaxStderrBytes caps the job's standard error kept for the error
	// message; default 16 KiB.
	MaxStderrBytes int
}

// proxyEnv points npm (and other tools honouring the usual variables) at
// the proxy served inside the job.
var proxyEnv = []string{"npm_config_proxy=http://" + ProxyAddr, "npm_config_https_proxy=http://" + ProxyAddr,
	"npm_config_noproxy=", "http_proxy=http://" + ProxyAddr, "https_proxy=http://" + ProxyAddr, "no_proxy="}

// Run runs j to its end, its standard output to stdout. The error of a
// job that failed carries the end of its standard error.
func (r *Runner) Run(ctx context.Context, j Job, stdout io.Writer) error {
	c := Cmd{Argv: j.Argv, Env: j.Env, Dir: j.Dir, ReadOnly: j.ReadOnly, Writable: j.Writable, Stdout: stdout}
	if j.Dir != "" && !slices.Contains(c.Writable, j.Dir) {
		c.Writable = append(slices.Clip(c.Writable), j.Dir)
	}
	if j.Network {
		if r.Allow == "" {
			return errors.New("sandbox: the job needs the network, but the runner allows no host")
		}
		c.Proxy = &Proxy{Allow: r.Allow, Dial: r.Dial, Log: r.Log}
		c.Env = withEnv(j.Env, proxyEnv)
	}
	stderr := &tail{max: orDefault(r.MaxStderrBytes, 16<<10)}
	c.Stderr = stderr
	p, err := r.Sandbox.Command(c)
	if err != nil {
		return err
	}
	if err := p.Start(ctx); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("%w; stderr: %s", err, msg)
		}
		return err
	}
	if err := p.Wait(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		return fmt.Errorf("sandbox: %s: %w; stderr: %s", j.Argv[0], err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// RegistryHostPort is the host:port of a registry URL such as
// https://registry.npmjs.org/ (port 443 or 80 when the URL has none).
func RegistryHostPort(rawURL string) (string, error) {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	host, _, _ := strings.Cut(rest, "/")
	if !ok || host == "" || strings.ContainsAny(host, "@ ") || (scheme != "https" && scheme != "http") {
		return "", fmt.Errorf("registry URL %q: want http(s)://HOST[:PORT]/", rawURL)
	}
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host, nil
	}
	port := map[string]string{"https": "443", "http": "80"}[scheme]
	return net.JoinHostPort(strings.Trim(host, "[]"), port), nil
}

// withEnv returns env with the entries of set replacing those of the same
// name.
func withEnv(env, set []string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		if !slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			out = append(out, e)
		}
	}
	return append(out, set...)
}

// own gives the Writable folders to the run's uid, remembering their
// owners.
func (p *Process) own() error {
	for _, dir := range p.c.Writable {
		info, err := os.Lstat(dir)
		if err != nil {
			return fmt.Errorf("sandbox: writable path %s: not a folder (%w)", dir, err)
		}
		if !info.IsDir() {
			return fmt.Errorf("sandbox: writable path %s: not a folder", dir)
		}
		st := info.Sys().(*syscall.Stat_t)
		p.owners = append(p.owners, owner{dir, int(st.Uid), int(st.Gid)})
		if err := chownTree(dir, int(p.uid), int(p.uid)); err != nil {
			return fmt.Errorf("sandbox: giving %s to uid %d: %w", dir, p.uid, err)
		}
	}
	return nil
}

// disown gives the Writable folders, and all the run put in them, back to
// their owners.
func (p *Process) disown() error {
	var errs []error
	for _, o := range p.owners {
		if err := chownTree(o.dir, o.uid, o.gid); err != nil {
			errs = append(errs, fmt.Errorf("sandbox: giving %s back to uid %d: %w", o.dir, o.uid, err))
		}
	}
	p.owners = nil
	return errors.Join(errs...)
}

type owner struct {
	dir      string
	uid, gid int
}

// chownTree changes the owner of dir and everything below it, never
// following symbolic links.
func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(b), nil
}

func (t *tail) String() string { return string(t.buf) }
