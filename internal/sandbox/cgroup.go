package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// hierarchy is where run cgroups are made: the v1 memory and pids
// hierarchies, or the unified v2 one.
type hierarchy struct {
	v2     bool
	parent []string // the mcpreg parent cgroup in each hierarchy used
}

// findHierarchy detects cgroup v1 (memory and pids controllers mounted
// under root) or v2 (root is a cgroup2 mount offering both), and creates
// the parent cgroup.
func findHierarchy(root, parent string) (hierarchy, error) {
	if exists(filepath.Join(root, "memory", "memory.limit_in_bytes")) && exists(filepath.Join(root, "pids", "tasks")) {
		h := hierarchy{parent: []string{filepath.Join(root, "memory", parent), filepath.Join(root, "pids", parent)}}
		return h, h.makeParents()
	}
	if data, err := os.ReadFile(filepath.Join(root, "cgroup.controllers")); err == nil {
		have := strings.Fields(string(data))
		if !contains(have, "memory") || !contains(have, "pids") {
			return hierarchy{}, fmt.Errorf("cgroup v2 at %s offers controllers %q, not memory and pids: enable them for this service (for systemd: Delegate=memory pids)", root, have)
		}
		h := hierarchy{v2: true, parent: []string{filepath.Join(root, parent)}}
		if err := h.makeParents(); err != nil {
			return hierarchy{}, err
		}
		for _, dir := range []string{root, h.parent[0]} {
			if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+memory +pids"), 0); err != nil {
				return hierarchy{}, fmt.Errorf("cgroup v2: enabling memory and pids below %s: %w", dir, err)
			}
		}
		return h, nil
	}
	return hierarchy{}, fmt.Errorf("no cgroup memory and pids controllers under %s (neither v1 memory/ and pids/ nor a cgroup2 mount): the sandbox cannot cap memory and processes", root)
}

func (h hierarchy) makeParents() error {
	for _, p := range h.parent {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("creating cgroup %s: %w", p, err)
		}
	}
	return nil
}

// cgroup is the cgroup of one run (one directory per hierarchy).
type cgroup struct {
	v2   bool
	dirs []string
}

// create makes the cgroup name with the limits of c.
func (h hierarchy) create(name string, c Config) (*cgroup, error) {
	g := &cgroup{v2: h.v2}
	for _, p := range h.parent {
		dir := filepath.Join(p, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			_ = g.remove()
			return nil, fmt.Errorf("creating cgroup %s: %w", dir, err)
		}
		g.dirs = append(g.dirs, dir)
	}
	if err := g.limit(c); err != nil {
		_ = g.remove()
		return nil, err
	}
	return g, nil
}

// limit writes the memory and process limits (swap off where the kernel
// accounts it).
func (g *cgroup) limit(c Config) error {
	mem, pids := strconv.FormatInt(c.MemoryBytes, 10), strconv.Itoa(c.Pids)
	settings := [][3]string{{g.dirs[0], "memory.max", mem}, {g.dirs[0], "memory.swap.max?", "0"}, {g.dirs[0], "pids.max", pids}}
	if !g.v2 {
		settings = [][3]string{{g.dirs[0], "memory.limit_in_bytes", mem}, {g.dirs[0], "memory.memsw.limit_in_bytes?", mem}, {g.dirs[1], "pids.max", pids}}
	}
	for _, s := range settings {
		file, optional := strings.CutSuffix(s[1], "?")
		path := filepath.Join(s[0], file)
		if optional && !exists(path) {
			continue
		}
		if err := os.WriteFile(path, []byte(s[2]), 0); err != nil {
			return fmt.Errorf("setting %s to %s: %w", path, s[2], err)
		}
	}
	return nil
}

// add moves pid into the cgroup in every hierarchy.
func (g *cgroup) add(pid int) error {
	for _, d := range g.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("moving process %d into cgroup %s: %w", pid, d, err)
		}
	}
	return nil
}

// procs lists the processes in the cgroup (the pids hierarchy on v1).
func (g *cgroup) procs() ([]int, error) {
	data, err := os.ReadFile(filepath.Join(g.dirs[len(g.dirs)-1], "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out, nil
}

// kill sends SIGKILL to every process in the cgroup until it is empty or
// timeout passes. The first sweep kills the PID namespace's init, and the
// kernel then kills the rest of the namespace, forks included.
func (g *cgroup) kill(timeout time.Duration) error {
	if g.v2 {
		_ = os.WriteFile(filepath.Join(g.dirs[0], "cgroup.kill"), []byte("1"), 0)
	}
	deadline := time.Now().Add(timeout)
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, 20*time.Millisecond) {
		pids, err := g.procs()
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s still holds processes %v after %s", g.dirs[0], pids, timeout)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(wait)
	}
}

// remove deletes the (empty) cgroup directories.
func (g *cgroup) remove() error {
	var errs []error
	for _, d := range g.dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// limitsHit names the limits the run ran into: the process cap, the
// memory cap (an OOM kill).
func (g *cgroup) limitsHit(c Config) []string {
	var hit []string
	pidsDir, memDir, oomFile := g.dirs[0], g.dirs[0], "memory.events"
	if !g.v2 {
		pidsDir, oomFile = g.dirs[1], "memory.oom_control"
	}
	if counter(filepath.Join(pidsDir, "pids.events"), "max") > 0 {
		hit = append(hit, fmt.Sprintf("process limit %d (pids cgroup)", c.Pids))
	}
	if counter(filepath.Join(memDir, oomFile), "oom_kill") > 0 {
		hit = append(hit, fmt.Sprintf("memory limit %d bytes (a process was killed out of memory)", c.MemoryBytes))
	}
	return hit
}

// counter reads "NAME VALUE" from a cgroup events file; 0 when absent.
func counter(path, name string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == name {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
