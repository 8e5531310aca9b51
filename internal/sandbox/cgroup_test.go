package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a cgroup v2 tree (here a fake one in a folder: the machines this
// runs on have v1), the parent gets memory and pids delegated and a run's
// cgroup its limits; missing controllers are an error naming them.
func TestCgroupV2Layout(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write("cgroup.controllers", "cpu io")
	if _, err := findHierarchy(root, "mcpreg"); err == nil || !strings.Contains(err.Error(), `offers controllers ["cpu" "io"], not memory and pids`) {
		t.Fatalf("v2 without memory and pids: %v", err)
	}
	write("cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc")
	h, err := findHierarchy(root, "mcpreg")
	if err != nil || !h.v2 {
		t.Fatalf("v2: %+v %v", h, err)
	}
	if read("cgroup.subtree_control") != "+memory +pids" || read("mcpreg/cgroup.subtree_control") != "+memory +pids" {
		t.Fatal("memory and pids not delegated below the root and the parent")
	}
	cfg := Config{MemoryBytes: 64 << 20, Pids: 20}.withDefaults()
	g, err := h.create("run-1", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if read("mcpreg/run-1/memory.max") != "67108864" || read("mcpreg/run-1/pids.max") != "20" {
		t.Fatalf("limits: memory.max %q pids.max %q", read("mcpreg/run-1/memory.max"), read("mcpreg/run-1/pids.max"))
	}
	write("mcpreg/run-1/pids.events", "max 3\n")
	write("mcpreg/run-1/memory.events", "low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\n")
	if hit := g.limitsHit(cfg); len(hit) != 2 || !strings.Contains(hit[0], "process limit 20") || !strings.Contains(hit[1], "memory limit 67108864") {
		t.Fatalf("limits hit: %q", hit)
	}
}

// Neither v1 controllers nor a v2 mount: the error says what is missing.
func TestNoCgroups(t *testing.T) {
	_, err := findHierarchy(t.TempDir(), "mcpreg")
	if err == nil || !strings.Contains(err.Error(), "no cgroup memory and pids controllers") {
		t.Fatalf("%v", err)
	}
}

// The sandbox refuses to start where bubblewrap is missing, saying what
// to install and how to run without it.
func TestNewWithoutBwrap(t *testing.T) {
	_, err := New(t.Context(), Config{Bwrap: "no-such-bwrap-here"})
	if err == nil || !strings.Contains(err.Error(), "--scan-sandbox=off") {
		t.Fatalf("%v", err)
	}
	if os.Geteuid() == 0 && !strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Fatalf("as root: %v", err)
	}
}
