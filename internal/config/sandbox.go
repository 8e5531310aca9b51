package config

import (
	"errors"
	"fmt"

	"github.com/mcpreg/mcpreg/internal/sandbox"
)

// --scan-sandbox values, and the mode of a sandbox that could not be set
// up.
const (
	SandboxBwrap = "bwrap"
	SandboxOff   = "off"
	// SandboxUnavailable is the mode when bwrap was asked for and could
	// not be set up: stdio scans are refused.
	SandboxUnavailable = "unavailable"
)

// Sandbox reads the sandbox flags.
func (c Config) Sandbox() (sandbox.Config, error) {
	if c.ScanSandbox != SandboxBwrap && c.ScanSandbox != SandboxOff {
		return sandbox.Config{}, fmt.Errorf("--scan-sandbox %q: want %s or %s", c.ScanSandbox, SandboxBwrap, SandboxOff)
	}
	if c.ScanStdioNetwork != "none" {
		return sandbox.Config{}, fmt.Errorf("--scan-stdio-network %q: want none (stdio servers under scan have no network)", c.ScanStdioNetwork)
	}
	uids, err := sandbox.ParseUIDRange(c.ScanUIDRange)
	if err != nil {
		return sandbox.Config{}, fmt.Errorf("--scan-uid-range: %w", err)
	}
	if c.ScanSandboxMemoryMiB < 0 || c.ScanSandboxTmpfsMiB < 0 || c.ScanSandboxPids < 0 || c.ScanSandboxCPU < 0 || c.ScanSandboxOpenFiles < 0 {
		return sandbox.Config{}, errors.New("--scan-sandbox-memory-mib, -tmpfs-mib, -pids, -cpu and -open-files: want 0 (default) or more")
	}
	sc := sandbox.Config{UIDs: uids, MemoryBytes: c.ScanSandboxMemoryMiB << 20, TmpfsBytes: c.ScanSandboxTmpfsMiB << 20,
		Pids: c.ScanSandboxPids, CPUSeconds: int(c.ScanSandboxCPU.Seconds()), OpenFiles: c.ScanSandboxOpenFiles}
	if c.ScanSandboxCPU > 0 && sc.CPUSeconds == 0 {
		sc.CPUSeconds = 1
	}
	if err := sc.Verify(); err != nil {
		return sandbox.Config{}, fmt.Errorf("--scan-sandbox-*: %w", err)
	}
	return sc, nil
}
