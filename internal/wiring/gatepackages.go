package wiring

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/sandbox"
	"github.com/mcpreg/mcpreg/scan"
)

// GatePackagesConfig sets how mcpreg gate serve starts stdio packages.
type GatePackagesConfig struct {
	// Sandbox is config.SandboxBwrap (every package confined, refused when
	// the sandbox cannot be set up) or config.SandboxOff (unconfined).
	Sandbox string
	// UIDs are the sandbox's uids, "FIRST-LAST"; "" means
	// DefaultGateUIDRange (apart from mcpregd's scan sandbox).
	UIDs string
	// NPMDir keeps fetched packages; "" means the user's cache directory.
	NPMDir string
	// NPMRegistry is the npm registry; "" means fetch.DefaultRegistry.
	NPMRegistry string
	// AllowHosts are restricted addresses (CIDR blocks, addresses, names)
	// npm may reach, as --scan-allow-hosts.
	AllowHosts []string
	// Stderr gets the servers' standard error.
	Stderr io.Writer
	Log    *slog.Logger
}

// DefaultGateUIDRange are the gateway sandbox's uids: not the scan
// sandbox's default range, so that both may run on one machine.
const DefaultGateUIDRange = "100200-100263"

// GatePackages starts the stdio packages of approved versions for the
// HTTP gateway: the npm package is fetched and checked against the digest
// the discovery document names (and the npm registry's integrity), then
// run with node, confined in the sandbox with the network the version's
// contract allows: none for egress denied, the allow-list's destinations
// through a proxy for allowlisted_external; internal_only and
// brokered_gateway are refused (the gateway cannot tell what they reach).
type GatePackages struct {
	npm        *fetch.NPM
	sb         *sandbox.Sandbox // nil with the sandbox off
	sandboxErr error            // why stdio packages are refused
	stderr     io.Writer
	log        *slog.Logger
}

// NewGatePackages sets up fetching and the sandbox. A sandbox that cannot
// be set up is not an error here (remotes are still served): Start then
// refuses every package with the reason.
func NewGatePackages(ctx context.Context, c GatePackagesConfig) (*GatePackages, error) {
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	allow, err := scan.ParseAllowList(strings.Join(c.AllowHosts, ","))
	if err != nil {
		return nil, err
	}
	registryURL := c.NPMRegistry
	if registryURL == "" {
		registryURL = fetch.DefaultRegistry
	}
	p := &GatePackages{npm: &fetch.NPM{Registry: registryURL}, stderr: c.Stderr, log: c.Log}
	if err := p.npm.Check(); err != nil {
		return nil, fmt.Errorf("--npm-registry: %w", err)
	}
	switch c.Sandbox {
	case config.SandboxOff:
		c.Log.Warn("gate: stdio packages run without the sandbox (--sandbox=off): each runs with this process's user and network")
		p.npm.Dir, err = gateNPMDir(c.NPMDir, nil)
		return p, err
	case config.SandboxBwrap:
	default:
		return nil, fmt.Errorf("--sandbox %q: want bwrap or off", c.Sandbox)
	}
	uids, err := sandbox.ParseUIDRange(cmp.Or(c.UIDs, DefaultGateUIDRange))
	if err != nil {
		return nil, fmt.Errorf("--sandbox-uid-range: %w", err)
	}
	sb, err := sandbox.New(ctx, sandbox.Config{UIDs: uids, CgroupParent: "mcpreg-gate"})
	if err != nil {
		p.sandboxErr = err
		c.Log.Warn("gate: stdio packages are refused: the sandbox is unavailable (remotes are served)", "err", err)
		return p, nil
	}
	hostport, err := sandbox.RegistryHostPort(registryURL)
	if err != nil {
		return nil, fmt.Errorf("--npm-registry: %w", err)
	}
	p.sb = sb
	if p.npm.Dir, err = gateNPMDir(c.NPMDir, &syscall.Credential{Uid: uids.First, Gid: uids.First}); err != nil {
		return nil, err
	}
	p.npm.Runner = stepsInSandbox{&sandbox.Runner{Sandbox: sb, Allow: hostport, Dial: allow.Dialer(), Log: c.Log}}
	return p, nil
}

// gateNPMDir is where fetched packages are kept: --npm-dir, else the
// user's cache directory, or /var/cache when confined runs (cred) must
// reach it (root's home is private).
func gateNPMDir(dir string, cred *syscall.Credential) (string, error) {
	if dir == "" {
		cache, err := os.UserCacheDir()
		if cred != nil || err != nil {
			cache = "/var/cache"
		}
		dir = filepath.Join(cache, "mcpreg", "gate-npm")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--npm-dir: %w", err)
	}
	if err := reachable(dir, cred); err != nil {
		return "", fmt.Errorf("--npm-dir %s: %w", dir, err)
	}
	return dir, nil
}

// SandboxErr is why stdio packages are refused, or nil.
func (p *GatePackages) SandboxErr() error { return p.sandboxErr }

// Start fetches e's npm stdio package and starts it; the connection ends
// the run when closed.
func (p *GatePackages) Start(ctx context.Context, e discovery.Entry) (gate.Conn, error) {
	if p.sandboxErr != nil {
		return nil, fmt.Errorf("%s@%s is a stdio package, and the gateway starts packages only in the sandbox, which is unavailable here (%w): serve it from a remote, run it behind the stdio wrapper, or set --sandbox=off",
			e.Name, e.Version, p.sandboxErr)
	}
	pkg, err := npmStdioPackage(e)
	if err != nil {
		return nil, err
	}
	egress, err := egressOf(e)
	if err != nil {
		return nil, err
	}
	var want attest.Digest
	if pkg.Digest != "" {
		if want, err = attest.ParseDigest(pkg.Digest); err != nil {
			return nil, fmt.Errorf("%s@%s: package digest %q: %w", e.Name, e.Version, pkg.Digest, err)
		}
	}
	fetched, err := p.npm.Fetch(ctx, pkg.Identifier, pkg.Version, want)
	if err != nil {
		return nil, fmt.Errorf("fetching %s@%s: %w", pkg.Identifier, pkg.Version, err)
	}
	env := []string{"PATH=" + scan.DefaultPath, "HOME=" + sandbox.Home, "TMPDIR=" + sandbox.Home, "NODE_ENV=production"}
	node, err := scan.LookPath("node", env)
	if err != nil {
		return nil, err
	}
	if p.sb == nil {
		return gate.StartUpstream(node, []string{fetched.Bin}, env, p.stderr)
	}
	cmd := sandbox.Cmd{Argv: []string{node, fetched.Bin}, Env: env, ReadOnly: []string{fetched.Dir}, Stderr: p.stderr}
	if egress.Mode == contract.EgressAllowlistedExternal {
		listed, err := scan.ParseAllowList(strings.Join(egress.ListedAddresses(), ","))
		if err != nil {
			return nil, err
		}
		cmd.Proxy = &sandbox.Proxy{Permits: egress.Allows, Dial: listed.Dialer(), Log: p.log}
		proxy := "http://" + sandbox.ProxyAddr
		cmd.Env = append(cmd.Env, "HTTP_PROXY="+proxy, "HTTPS_PROXY="+proxy, "http_proxy="+proxy, "https_proxy="+proxy, "NODE_USE_ENV_PROXY=1")
	}
	return startConfined(ctx, p.sb, cmd)
}

// npmStdioPackage is e's npm package run over stdio.
func npmStdioPackage(e discovery.Entry) (discovery.Package, error) {
	for _, pkg := range e.Packages {
		if pkg.RegistryType == "npm" && (pkg.Transport == "" || pkg.Transport == "stdio") {
			if pkg.Version == "" {
				return pkg, fmt.Errorf("%s@%s: its npm package %s names no version, and the gateway runs only exact versions", e.Name, e.Version, pkg.Identifier)
			}
			return pkg, nil
		}
	}
	return discovery.Package{}, fmt.Errorf("%s@%s has neither a streamable-http remote nor an npm stdio package the gateway can start", e.Name, e.Version)
}

// egressOf is the network the version's contract allows a confined run;
// a version without a contract gets none.
func egressOf(e discovery.Entry) (contract.Egress, error) {
	if len(e.Contract) == 0 || string(e.Contract) == "null" {
		return contract.Egress{Mode: contract.EgressDenied}, nil
	}
	c, err := contract.DecodeNormalized(e.Contract)
	if err != nil {
		return contract.Egress{}, fmt.Errorf("%s@%s: its contract cannot be read, so its network cannot be set: %w", e.Name, e.Version, err)
	}
	switch c.Egress.Mode {
	case contract.EgressDenied, contract.EgressAllowlistedExternal:
		return c.Egress, nil
	}
	return contract.Egress{}, fmt.Errorf("%s@%s: its contract's egress is %s, a network the gateway cannot give a confined server (it gives denied or allowlisted_external): serve it from a remote or behind the stdio wrapper",
		e.Name, e.Version, c.Egress.Mode)
}

// confinedConn is a server running in the sandbox.
type confinedConn struct {
	p    *sandbox.Process
	in   io.WriteCloser
	out  io.ReadCloser
	done chan struct{}
}

func startConfined(ctx context.Context, sb *sandbox.Sandbox, c sandbox.Cmd) (gate.Conn, error) {
	p, err := sb.Command(c)
	if err != nil {
		return nil, err
	}
	in, err := p.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := p.StdoutPipe()
	if err != nil {
		return nil, errors.Join(err, in.Close())
	}
	if err := p.Start(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("starting %s in the sandbox: %w", c.Argv[len(c.Argv)-1], err), in.Close(), out.Close())
	}
	cc := &confinedConn{p: p, in: in, out: out, done: make(chan struct{})}
	go func() {
		_ = p.Wait()
		close(cc.done)
	}()
	return cc, nil
}

func (c *confinedConn) Reader() io.Reader { return c.out }
func (c *confinedConn) Writer() io.Writer { return c.in }

// Close closes the server's input, gives it two seconds to exit, then
// ends the whole run.
func (c *confinedConn) Close() error {
	_ = c.in.Close()
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
		_ = c.p.Kill()
		<-c.done
	}
	return c.out.Close()
}
