package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpreg/mcpreg/diffreview"
	"github.com/mcpreg/mcpreg/registry"
	"github.com/mcpreg/mcpreg/scan"
)

// ScanningFrom builds the live-read settings of `serve`.
func ScanningFrom(cfg Config) (registry.Scanning, error) {
	allow, err := scan.ParseAllowList(strings.Join(cfg.ScanAllowHosts, ","))
	if err != nil {
		return registry.Scanning{}, fmt.Errorf("--scan-allow-hosts: %w", err)
	}
	reader, err := scan.NewReader(scan.Limits{Deadline: cfg.ScanDeadline}, allow)
	if err != nil {
		return registry.Scanning{}, err
	}
	sc := registry.Scanning{Reader: reader}
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
	sc.Credential, err = scanCredential(cfg.ScanUser)
	return sc, err
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
