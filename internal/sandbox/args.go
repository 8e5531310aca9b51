package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// systemDirs are bound read-only (or recreated as the same symlinks, on
// merged-/usr systems) so programs and their libraries run.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcFiles are the parts of /etc programs read to run: the dynamic
// linker's cache, users and groups (no password hashes), time zone, TLS
// trust, Debian alternatives. No resolv.conf: runs have no network, and
// a proxied job resolves nothing itself.
var etcFiles = []string{"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/passwd", "/etc/group",
	"/etc/nsswitch.conf", "/etc/hosts", "/etc/localtime", "/etc/ssl", "/etc/ca-certificates", "/etc/pki",
	"/etc/alternatives", "/etc/mime.types"}

// firstExtraFD is the descriptor of the first file passed beyond the info
// (3) and block (4) pipes.
const firstExtraFD = 5

// args builds bubblewrap's arguments, and the files whose contents it
// copies in (descriptors firstExtraFD on).
func (p *Process) args() ([]string, []*os.File, error) {
	c := p.c
	a := []string{"--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
		"--hostname", "mcpreg-sandbox", "--info-fd", "3", "--block-fd", "4"}
	for _, d := range systemDirs {
		a = appendSystem(a, d)
	}
	for _, f := range etcFiles {
		a = append(a, "--ro-bind-try", f, f)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev",
		"--size", strconv.FormatInt(p.sb.cfg.TmpfsBytes, 10), "--perms", "0700", "--tmpfs", Home)
	if dir := commandDir(c.Argv[0]); dir != "" {
		a = append(a, "--ro-bind", dir, dir)
	}
	var files []*os.File
	for _, path := range c.ReadOnly {
		if !filepath.IsAbs(path) {
			closeAll(files)
			return nil, nil, fmt.Errorf("sandbox: read-only path %q is not absolute", path)
		}
		info, err := os.Stat(path)
		if err != nil {
			closeAll(files)
			return nil, nil, fmt.Errorf("sandbox: read-only path: %w", err)
		}
		if info.IsDir() {
			a = append(a, "--ro-bind", path, path)
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			closeAll(files)
			return nil, nil, fmt.Errorf("sandbox: read-only file: %w", err)
		}
		a = append(a, "--perms", "0444", "--ro-bind-data", strconv.Itoa(firstExtraFD+len(files)), path)
		files = append(files, f)
	}
	for _, path := range c.Writable {
		if !filepath.IsAbs(path) {
			closeAll(files)
			return nil, nil, fmt.Errorf("sandbox: writable path %q is not absolute", path)
		}
		a = append(a, "--bind", path, path)
	}
	dir := c.Dir
	if dir == "" {
		dir = Home
	}
	a = append(a, "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", dir, "--")
	return append(a, c.Argv...), files, nil
}

// appendSystem binds a system folder read-only, or recreates it as the
// same relative symlink (/bin -> usr/bin), or skips it when absent.
func appendSystem(a []string, dir string) []string {
	info, err := os.Lstat(dir)
	switch {
	case err != nil:
		return a
	case info.Mode()&os.ModeSymlink != 0:
		if target, err := os.Readlink(dir); err == nil {
			return append(a, "--symlink", target, dir)
		}
		return a
	}
	return append(a, "--ro-bind", dir, dir)
}

// commandDir is the folder of an absolute command outside the system
// folders (a package's own executable, a test fixture), which is bound
// read-only so the command can run.
func commandDir(cmd string) string {
	if !filepath.IsAbs(cmd) {
		return ""
	}
	dir := filepath.Dir(filepath.Clean(cmd))
	for _, d := range append(systemDirs, "/etc") {
		if dir == d || strings.HasPrefix(dir, d+"/") {
			return ""
		}
	}
	if dir == "/" || dir == Home {
		return "" // never bind the host's /tmp itself over the run's tmpfs
	}
	return dir
}

func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
