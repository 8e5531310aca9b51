// Package fetch obtains the exact package artifact a version was attested
// for, checks it against its digest, and prepares it to run, so the
// scanner reads the server that was signed and not whatever a package
// manager resolves at launch time.
package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcpreg/mcpreg/attest"
)

// ErrFetch marks a package that could not be obtained or prepared (npm
// unreachable, unknown package, broken tarball). It says nothing about the
// package's integrity.
var ErrFetch = errors.New("fetching package")

// DigestMismatchError is a package whose published bytes differ from the
// digest the version declares: what would run is not what was attested.
type DigestMismatchError struct {
	Package string
	Want    attest.Digest
	Got     attest.Digest
}

func (e *DigestMismatchError) Error() string {
	return fmt.Sprintf("the published artifact of %s has digest %s, but the version declares %s: it is not what was attested",
		e.Package, e.Got, e.Want)
}

// NPM fetches npm packages with `npm pack`, checks the tarball's digest,
// unpacks it and installs its production dependencies without running
// install scripts. Prepared packages are kept under Dir by digest, so a
// version is installed once however often it is scanned.
type NPM struct {
	// Command is the npm executable; empty means "npm" from PATH.
	Command string
	// Dir keeps prepared packages; it must be private to mcpregd.
	Dir string
	// StepTimeout bounds each npm invocation; zero means 5 minutes.
	StepTimeout time.Duration
	// Limits bound the unpacked tarball; zero values mean DefaultLimits.
	Limits Limits

	group singleflight.Group
	mu    sync.Mutex
}

// Package is a prepared npm package.
type Package struct {
	// Dir is the unpacked package with its node_modules.
	Dir string
	// Bin is the absolute path of the package's executable script.
	Bin string
	// Digest is the verified digest of the tarball.
	Digest attest.Digest
}

// npmName is what npm accepts as a package name (scoped or not).
var npmName = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// npmVersion is an exact version: no ranges, tags or URLs.
var npmVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// Fetch returns the package name@version whose tarball has digest want,
// preparing it on first use. A tarball with another digest is a
// *DigestMismatchError; nothing of it is kept.
func (n *NPM) Fetch(ctx context.Context, name, version string, want attest.Digest) (*Package, error) {
	spec := name + "@" + version
	if !npmName.MatchString(name) {
		return nil, fmt.Errorf("%w: %q is not an npm package name", ErrFetch, name)
	}
	if !npmVersion.MatchString(version) {
		return nil, fmt.Errorf("%w: %s: an attested npm package needs an exact version, not %q", ErrFetch, name, version)
	}
	if want.Algorithm == "" {
		return nil, fmt.Errorf("%w: %s: no digest to check", ErrFetch, spec)
	}
	key := want.String() + " " + spec
	v, err, _ := n.group.Do(key, func() (any, error) { return n.fetch(context.WithoutCancel(ctx), spec, want) })
	if err != nil {
		return nil, err
	}
	return v.(*Package), nil
}

func (n *NPM) fetch(ctx context.Context, spec string, want attest.Digest) (*Package, error) {
	final := filepath.Join(n.Dir, want.Algorithm+"-"+want.Hex)
	if p, err := readPrepared(final, want); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(n.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	work, err := os.MkdirTemp(n.Dir, ".prepare-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	defer os.RemoveAll(work)
	if err := os.Chmod(work, 0o755); err != nil { // readable by a scan user
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	tarball, err := n.pack(ctx, spec, work)
	if err != nil {
		return nil, err
	}
	got, err := attest.DigestOf(tarball, want.Algorithm)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	if got != want {
		return nil, &DigestMismatchError{Package: "npm " + spec, Want: want, Got: got}
	}
	pkgDir := filepath.Join(work, "package")
	if err := unpack(tarball, pkgDir, n.limits()); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFetch, spec, err)
	}
	if _, err := binOf(pkgDir); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFetch, spec, err)
	}
	if err := n.run(ctx, pkgDir, "install", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund",
		"--no-package-lock", "--prefer-offline"); err != nil {
		return nil, fmt.Errorf("%w: %s: installing dependencies: %v", ErrFetch, spec, err)
	}
	if err := os.WriteFile(filepath.Join(work, "digest"), []byte(want.String()), 0o644); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if p, err := readPrepared(final, want); err == nil { // another caller got there first
		return p, nil
	}
	_ = os.RemoveAll(final)
	if err := os.Rename(work, final); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	return readPrepared(final, want)
}

// readPrepared loads a prepared package, complete only once its digest
// file exists (it is written last, before the directory is renamed into
// place).
func readPrepared(dir string, want attest.Digest) (*Package, error) {
	data, err := os.ReadFile(filepath.Join(dir, "digest"))
	if err != nil || string(data) != want.String() {
		return nil, errors.New("not prepared")
	}
	pkgDir := filepath.Join(dir, "package")
	bin, err := binOf(pkgDir)
	if err != nil {
		return nil, err
	}
	return &Package{Dir: pkgDir, Bin: bin, Digest: want}, nil
}

// pack downloads spec's tarball into dir with npm pack and returns its bytes.
func (n *NPM) pack(ctx context.Context, spec, dir string) ([]byte, error) {
	out, err := n.output(ctx, dir, "pack", "--json", "--pack-destination", dir, spec)
	if err != nil {
		return nil, fmt.Errorf("%w: npm pack %s: %v", ErrFetch, spec, err)
	}
	var packed []struct {
		Filename string `json:"filename"`
	}
	if err := json.Unmarshal(out, &packed); err != nil || len(packed) != 1 || packed[0].Filename == "" {
		return nil, fmt.Errorf("%w: npm pack %s: unexpected output %.200q", ErrFetch, spec, out)
	}
	file := filepath.Join(dir, filepath.Base(packed[0].Filename))
	info, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("%w: npm pack %s: %v", ErrFetch, spec, err)
	}
	if info.Size() > n.limits().MaxTarballBytes {
		return nil, fmt.Errorf("%w: %s: tarball is %d bytes, the limit is %d", ErrFetch, spec, info.Size(), n.limits().MaxTarballBytes)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	return data, os.Remove(file)
}

func (n *NPM) run(ctx context.Context, dir string, args ...string) error {
	_, err := n.output(ctx, dir, args...)
	return err
}

// output runs npm in dir within the step timeout, killing its whole
// process group when the time is up, and returns its standard output.
func (n *NPM) output(ctx context.Context, dir string, args ...string) ([]byte, error) {
	timeout := n.StepTimeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	command := n.Command
	if command == "" {
		command = "npm"
	}
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false", "npm_config_loglevel=error")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &limitedBuffer{buf: &stderr, max: 4 << 10}
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("npm %s did not finish within %s", args[0], timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
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

// binOf reads the executable a package declares in package.json "bin": the
// only one, or the one named like the package.
func binOf(pkgDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("package.json: %v", err)
	}
	var pj struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(data, &pj); err != nil {
		return "", fmt.Errorf("package.json: %v", err)
	}
	var rel string
	var one string
	var many map[string]string
	switch {
	case len(pj.Bin) == 0:
		return "", errors.New(`package.json has no "bin": nothing to launch`)
	case json.Unmarshal(pj.Bin, &one) == nil:
		rel = one
	case json.Unmarshal(pj.Bin, &many) == nil:
		short := pj.Name[strings.LastIndex(pj.Name, "/")+1:]
		for name, p := range many {
			if len(many) == 1 || name == short {
				rel = p
			}
		}
		if rel == "" {
			return "", fmt.Errorf(`package.json "bin" has %d entries and none is named %q`, len(many), short)
		}
	default:
		return "", errors.New(`package.json "bin" is neither a path nor an object of paths`)
	}
	clean := path.Clean("/" + filepath.ToSlash(rel))[1:]
	if clean == "" || clean != strings.TrimPrefix(path.Clean(filepath.ToSlash(rel)), "./") {
		return "", fmt.Errorf(`package.json "bin" %q leaves the package`, rel)
	}
	bin := filepath.Join(pkgDir, filepath.FromSlash(clean))
	if info, err := os.Lstat(bin); err != nil || !info.Mode().IsRegular() {
		return "", fmt.Errorf(`package.json "bin" %q is not a file in the package`, rel)
	}
	return bin, nil
}
