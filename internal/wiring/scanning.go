package wiring

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/scan"
)

// ScanningFrom builds the live-read settings of `serve`.
func ScanningFrom(cfg config.Config) (registry.Scanning, error) {
	allow, err := scan.ParseAllowList(strings.Join(cfg.ScanAllowHosts, ","))
	if err != nil {
		return registry.Scanning{}, fmt.Errorf("--scan-allow-hosts: %w", err)
	}
	reader, err := scan.NewReader(scan.Limits{Deadline: cfg.ScanDeadline}, allow)
	if err != nil {
		return registry.Scanning{}, err
	}
	sc := registry.Scanning{Reader: reader, Replica: cfg.Replica, Interval: cfg.ScanInterval,
		Concurrency: cfg.ScanConcurrency, LeaseTTL: cfg.ScanLeaseTTL}
	for _, t := range cfg.ScanLaunchTemplates {
		lt, err := registry.ParseLaunchTemplate(t)
		if err != nil {
			return registry.Scanning{}, fmt.Errorf("--scan-launch-template: %w", err)
		}
		sc.Templates = append(sc.Templates, lt)
	}
	if sc.DriftPolicy, err = loadDriftPolicy(cfg.DriftPolicy); err != nil {
		return registry.Scanning{}, err
	}
	if sc.Credential, err = scanCredential(cfg.ScanUser); err != nil {
		return registry.Scanning{}, err
	}
	runAs, err := scanSandbox(cfg, &sc)
	if err != nil {
		return registry.Scanning{}, err
	}
	npm, err := npmFetcher(cfg, runAs)
	if err != nil {
		return registry.Scanning{}, err
	}
	if sc.Sandbox != nil {
		npm.Runner, err = sandboxedSteps(cfg, sc.Sandbox, allow)
	}
	sc.NPM = npm
	return sc, err
}

// npmFetcher fetches npm packages from the configured registry and keeps
// them in --scan-npm-dir: by default in the user's cache directory, or
// under /var/cache when stdio servers run as a scan user (root's home is
// private). The scan user must be able to reach the folder, since it runs
// the packages from there.
func npmFetcher(cfg config.Config, cred *syscall.Credential) (*fetch.NPM, error) {
	dir := cfg.ScanNPMDir
	if dir == "" {
		cache, err := os.UserCacheDir()
		if cred != nil || err != nil {
			cache = "/var/cache"
		}
		dir = filepath.Join(cache, "mcpreg", "npm")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("--scan-npm-dir: %w", err)
	}
	if err := reachable(dir, cred); err != nil {
		return nil, fmt.Errorf("--scan-npm-dir %s: %w", dir, err)
	}
	if cfg.ScanNPMTimeout < 0 {
		return nil, fmt.Errorf("--scan-npm-timeout %s: must not be negative", cfg.ScanNPMTimeout)
	}
	n := &fetch.NPM{Dir: dir, Registry: cfg.ScanNPMRegistry, Timeout: cfg.ScanNPMTimeout}
	if err := n.Check(); err != nil {
		return nil, fmt.Errorf("--scan-npm-registry: %w", err)
	}
	return n, nil
}

// reachable checks that the user of cred may enter dir and every folder
// above it; folders not created yet are created mode 0755 when needed.
func reachable(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	for p := dir; ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) && p != filepath.Dir(p) {
			continue
		} else if err != nil {
			return err
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		mode := info.Mode().Perm()
		enter := mode&0o001 != 0 || (ok && st.Uid == cred.Uid && mode&0o100 != 0) || (ok && st.Gid == cred.Gid && mode&0o010 != 0)
		if !enter {
			return fmt.Errorf("the scan user (uid %d) cannot enter %s (mode %#o), so it could not run the packages kept there: choose a folder it can reach", cred.Uid, p, mode)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// loadDriftPolicy reads and validates a drift policy file; "" is the
// default policy.
func loadDriftPolicy(path string) (*diffreview.Policy, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--drift-policy: %w", err)
	}
	var p diffreview.Policy
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("--drift-policy %s: %w", path, err)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("--drift-policy %s: %w", path, err)
	}
	return &p, nil
}

// scanCredential drops stdio servers to the scan user when mcpregd runs as
// root; running them as root is refused.
func scanCredential(name string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if name == "" {
		name = "nobody"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("--scan-user %q: %w", name, err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	if uid == 0 {
		return nil, fmt.Errorf("--scan-user %q is root: stdio servers must run unprivileged", name)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}
