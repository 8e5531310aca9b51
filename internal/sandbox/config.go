package sandbox

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Config sets the limits of every run. A zero field means its default.
type Config struct {
	// Bwrap is the bubblewrap executable; "" looks up "bwrap" in PATH.
	Bwrap string
	// UIDs are the uids runs use, one per concurrent run (its gid is the
	// same number). They must belong to no user or file on the host.
	UIDs UIDRange
	// MemoryBytes caps the memory of one run, its tmpfs included.
	MemoryBytes int64
	// Pids caps the processes (and threads) of one run.
	Pids int
	// TmpfsBytes caps the tmpfs at /tmp.
	TmpfsBytes int64
	// CPUSeconds is RLIMIT_CPU of every process of a run.
	CPUSeconds int
	// OpenFiles is RLIMIT_NOFILE of every process of a run.
	OpenFiles int
	// CgroupParent is the cgroup under which each run's cgroup is created.
	CgroupParent string
	// CgroupRoot is where cgroup hierarchies are mounted; "" means
	// /sys/fs/cgroup.
	CgroupRoot string
	// KillTimeout bounds how long the end of a run waits for its cgroup to
	// empty.
	KillTimeout time.Duration
}

// Defaults.
const (
	DefaultFirstUID     = 100000
	DefaultUIDCount     = 64
	DefaultMemoryBytes  = 1 << 30
	DefaultPids         = 256
	DefaultTmpfsBytes   = 256 << 20
	DefaultCPUSeconds   = 120
	DefaultOpenFiles    = 1024
	DefaultCgroupParent = "mcpreg"
	DefaultKillTimeout  = 5 * time.Second
)

// UIDRange is First..First+Count-1.
type UIDRange struct {
	First uint32
	Count int
}

// ParseUIDRange reads "FIRST-LAST", e.g. "100000-100063".
func ParseUIDRange(s string) (UIDRange, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "-")
	first, err1 := strconv.ParseUint(a, 10, 32)
	last, err2 := strconv.ParseUint(b, 10, 32)
	if !ok || err1 != nil || err2 != nil || last < first {
		return UIDRange{}, fmt.Errorf("uid range %q: want FIRST-LAST, e.g. 100000-100063", s)
	}
	r := UIDRange{First: uint32(first), Count: int(last-first) + 1}
	return r, r.verify()
}

func (r UIDRange) verify() error {
	if r.First < 1000 {
		return fmt.Errorf("uid range %s: starts below 1000, where system users live", r)
	}
	if r.Count < 1 || r.Count > 4096 || uint64(r.First)+uint64(r.Count) > 1<<31 {
		return fmt.Errorf("uid range %s: want 1 to 4096 uids below 2^31", r)
	}
	return nil
}

// String is "FIRST-LAST".
func (r UIDRange) String() string {
	return fmt.Sprintf("%d-%d", r.First, int64(r.First)+int64(r.Count)-1)
}

// Verify reports the first bad field.
func (c Config) Verify() error {
	c = c.withDefaults()
	if err := c.UIDs.verify(); err != nil {
		return err
	}
	switch {
	case c.MemoryBytes < 16<<20:
		return fmt.Errorf("sandbox memory %d bytes: want at least 16 MiB", c.MemoryBytes)
	case c.Pids < 4:
		return fmt.Errorf("sandbox pids %d: want at least 4", c.Pids)
	case c.TmpfsBytes < 1<<20 || c.TmpfsBytes > c.MemoryBytes:
		return fmt.Errorf("sandbox tmpfs %d bytes: want 1 MiB up to the memory limit (%d)", c.TmpfsBytes, c.MemoryBytes)
	case c.CPUSeconds < 1:
		return fmt.Errorf("sandbox cpu %ds: want at least 1s", c.CPUSeconds)
	case c.OpenFiles < 16:
		return fmt.Errorf("sandbox open files %d: want at least 16", c.OpenFiles)
	case c.CgroupParent == "" || strings.Contains(c.CgroupParent, "..") || strings.HasPrefix(c.CgroupParent, "/"):
		return fmt.Errorf("sandbox cgroup parent %q: want a relative path without ..", c.CgroupParent) //nolint:staticcheck // ".." is the path element refused, not punctuation
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.UIDs.Count == 0 {
		c.UIDs = UIDRange{First: DefaultFirstUID, Count: DefaultUIDCount}
	}
	c.Bwrap = orDefault(c.Bwrap, "bwrap")
	c.MemoryBytes = orDefault(c.MemoryBytes, DefaultMemoryBytes)
	c.Pids = orDefault(c.Pids, DefaultPids)
	c.TmpfsBytes = orDefault(c.TmpfsBytes, DefaultTmpfsBytes)
	c.CPUSeconds = orDefault(c.CPUSeconds, DefaultCPUSeconds)
	c.OpenFiles = orDefault(c.OpenFiles, DefaultOpenFiles)
	c.CgroupParent = orDefault(c.CgroupParent, DefaultCgroupParent)
	c.CgroupRoot = orDefault(c.CgroupRoot, "/sys/fs/cgroup")
	c.KillTimeout = orDefault(c.KillTimeout, DefaultKillTimeout)
	return c
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
