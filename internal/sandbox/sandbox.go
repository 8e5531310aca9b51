package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// ErrUnavailable marks a sandbox that could not be set up; its message
// says why and what to change.
var ErrUnavailable = errors.New("scan sandbox unavailable")

// Sandbox runs commands confined. It is safe for concurrent use; at most
// Config.UIDs.Count runs exist at once, further ones wait for a slot.
type Sandbox struct {
	cfg     Config
	bwrap   string
	prlimit string
	cg      hierarchy
	slots   chan uint32
	err     error // set for a sandbox from Unavailable
}

// New checks that runs can be confined here (Linux, root, bubblewrap,
// cgroups, namespaces; a test run of /bin/true) and returns the sandbox.
// Its error wraps ErrUnavailable and says what to change.
func New(ctx context.Context, cfg Config) (*Sandbox, error) {
	if err := cfg.Verify(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("%w: mcpregd does not run as root, and the sandbox needs root to start each run as its own uid and to create its cgroup: run mcpregd as root (it drops to the uid range for every run), or set --scan-sandbox=off to run stdio servers unconfined", ErrUnavailable)
	}
	bwrap, err := exec.LookPath(cfg.Bwrap)
	if err != nil {
		return nil, fmt.Errorf("%w: bubblewrap %q not found (%w): install it (Debian: apt-get install bubblewrap) or set --scan-sandbox=off", ErrUnavailable, cfg.Bwrap, err)
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		return nil, fmt.Errorf("%w: prlimit not found (%w): install util-linux, or set --scan-sandbox=off", ErrUnavailable, err)
	}
	cg, err := findHierarchy(cfg.CgroupRoot, cfg.CgroupParent)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	s := &Sandbox{cfg: cfg, bwrap: bwrap, prlimit: prlimit, cg: cg, slots: make(chan uint32, cfg.UIDs.Count)}
	for i := range cfg.UIDs.Count {
		s.slots <- cfg.UIDs.First + uint32(i)
	}
	if err := s.probe(ctx); err != nil {
		return nil, fmt.Errorf("%w: a test run failed: %w (bubblewrap needs user, PID, mount and network namespaces; check user.max_user_namespaces and that no seccomp profile forbids unshare), or set --scan-sandbox=off", ErrUnavailable, err)
	}
	return s, nil
}

// Unavailable is a sandbox that refuses every run with err (which should
// wrap ErrUnavailable): what a registry uses when New failed, so stdio
// scans fail with the reason instead of running unconfined.
func Unavailable(err error) *Sandbox { return &Sandbox{err: err} }

// Err is why the sandbox refuses runs, or nil.
func (s *Sandbox) Err() error { return s.err }

// Config returns the settings in effect (defaults filled in).
func (s *Sandbox) Config() Config { return s.cfg }

// probe runs /bin/true the way every run is made.
func (s *Sandbox) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var out strings.Builder
	p, err := s.Command(Cmd{Argv: []string{"/bin/true"}, Env: []string{"PATH=/usr/bin:/bin"}, Stderr: &out})
	if err != nil {
		return err
	}
	if err := p.Start(ctx); err != nil {
		return err
	}
	if err := p.Wait(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(out.String()))
	}
	return nil
}

// acquire takes a free uid, waiting for one while ctx allows.
func (s *Sandbox) acquire(ctx context.Context) (uint32, error) {
	select {
	case uid := <-s.slots:
		return uid, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("sandbox: waiting for a free uid of %s: %w", s.cfg.UIDs, ctx.Err())
	}
}

func (s *Sandbox) release(uid uint32) { s.slots <- uid }
