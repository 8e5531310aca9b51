package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"strings"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/sandbox"
	"github.com/mcpreg/mcpreg/scan"
)

// --scan-sandbox values.
const (
	SandboxBwrap = "bwrap"
	SandboxOff   = "off"
	// sandboxUnavailable is the mode when bwrap was asked for and could not
	// be set up: stdio scans are refused.
	sandboxUnavailable = "unavailable"
)

// sandboxConfig reads the sandbox flags.
func sandboxConfig(c Config) (sandbox.Config, error) {
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

// scanSandbox sets up the sandbox of stdio scans. When bwrap was asked for
// and cannot be set up, stdio scans are refused with the reason (mode
// "unavailable"), never run unconfined; only --scan-sandbox=off does that.
// It also returns the uid whose access the npm folder must allow.
func scanSandbox(c Config, sc *registry.Scanning) (*syscall.Credential, error) {
	if c.ScanSandbox == SandboxOff {
		sc.SandboxMode = SandboxOff
		return sc.Credential, nil
	}
	cfg, err := sandboxConfig(c)
	if err != nil {
		return nil, err
	}
	sb, err := sandbox.New(context.Background(), cfg)
	if err != nil {
		sc.Sandbox, sc.SandboxMode = sandbox.Unavailable(err), sandboxUnavailable
		return sc.Credential, nil
	}
	sc.Sandbox, sc.SandboxMode = sb, SandboxBwrap
	first := cfg.UIDs.First
	return &syscall.Credential{Uid: first, Gid: first}, refuseDownloadingTemplates(sc.Templates)
}

// downloaders are commands that fetch what they run at launch; with no
// network they fail, and with one they would run unreviewed code. The
// value is the subcommand that downloads ("" for any use).
var downloaders = map[string][]string{
	"npx": {""}, "bunx": {""}, "pnpx": {""}, "uvx": {""}, "pipx": {"run"}, "npm": {"exec", "x"},
	"pnpm": {"dlx", "exec"}, "yarn": {"dlx"}, "bun": {"x"}, "uv": {"tool", "run"}, "docker": {"run", "pull"},
	"podman": {"run", "pull"}, "nerdctl": {"run", "pull"}, "deno": {"run"}, "go": {"run"}, "pip": {"install"},
	"pip3": {"install"}, "gem": {"install"}, "curl": {""}, "wget": {""},
}

// refuseDownloadingTemplates refuses launch templates whose command (or
// any word of its arguments, for `sh -c '...'` and `env ...`) downloads at
// launch: stdio scans have no network.
func refuseDownloadingTemplates(ts []registry.LaunchTemplate) error {
	for _, t := range ts {
		var words []string
		for _, a := range t.Argv {
			words = append(words, strings.FieldsFunc(a, func(r rune) bool { return r == ' ' || r == ';' || r == '&' || r == '|' || r == '\'' || r == '"' })...)
		}
		for i, w := range words {
			subs, ok := downloaders[path.Base(w)]
			if !ok {
				continue
			}
			next := ""
			if i+1 < len(words) {
				next = words[i+1]
			}
			for _, sub := range subs {
				if sub == "" || sub == next {
					return fmt.Errorf("--scan-launch-template %q: %s downloads what it runs at launch, but stdio servers under scan have no network (--scan-stdio-network none): launch an installed command, or for npm a package the registry fetched and checked (node {package_bin})",
						t.RegistryType+"="+strings.Join(t.Argv, " "), strings.TrimSpace(w+" "+sub))
				}
			}
		}
	}
	return nil
}

// sandboxGauge is mcpreg_scan_sandbox{mode}: 1 for the mode in effect.
func sandboxGauge(mode string) prometheus.Collector {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mcpreg_scan_sandbox",
		Help: "How stdio servers under scan are confined: 1 for the mode in effect (bwrap, off, unavailable)."}, []string{"mode"})
	for _, m := range []string{SandboxBwrap, SandboxOff, sandboxUnavailable} {
		v := 0.0
		if m == mode {
			v = 1
		}
		g.WithLabelValues(m).Set(v)
	}
	return g
}

// sandboxNotice is the warning logged at every start and shown to admins
// when stdio scans are not confined, or "".
func sandboxNotice(svc *registry.Scans) string {
	switch svc.ScanSandboxMode() {
	case SandboxOff:
		return "stdio servers under scan run without the sandbox (--scan-sandbox=off): they share this host's network and can leave processes behind; run mcpregd as root with bubblewrap installed and drop --scan-sandbox=off"
	case sandboxUnavailable:
		return "stdio scans are refused: the scan sandbox cannot be set up here"
	}
	return ""
}

// warnSandbox logs the sandbox's state at start.
func warnSandbox(log *slog.Logger, svc *registry.Scans) {
	if notice := sandboxNotice(svc); notice != "" {
		args := []any{"mode", svc.ScanSandboxMode()}
		if sb := svc.ScanSandbox(); sb != nil && sb.Err() != nil {
			args = append(args, "reason", sb.Err().Error())
		}
		log.Warn(notice, args...)
	}
}

// sandboxedSteps runs npm's steps in the scan sandbox: as a uid of the
// range, with no network but the configured npm registry, reached through
// mcpregd's proxy and the scanner's dial guard. An unavailable sandbox
// refuses every step, so npm never runs unconfined unless an admin turned
// the sandbox off.
func sandboxedSteps(cfg Config, sb *sandbox.Sandbox, allow scan.AllowList) (fetch.Runner, error) {
	hostport, err := sandbox.RegistryHostPort(cfg.ScanNPMRegistry)
	if err != nil {
		return nil, fmt.Errorf("--scan-npm-registry: %w", err)
	}
	return stepsInSandbox{&sandbox.Runner{Sandbox: sb, Allow: hostport, Dial: allow.Dialer()}}, nil
}

// stepsInSandbox adapts a sandbox job runner to fetch's steps.
type stepsInSandbox struct{ r *sandbox.Runner }

func (s stepsInSandbox) Run(ctx context.Context, st fetch.Step, stdout io.Writer) error {
	return s.r.Run(ctx, sandbox.Job{Argv: st.Argv, Dir: st.Dir, Env: st.Env, Writable: st.Writable,
		ReadOnly: st.ReadOnly, Network: st.Network}, stdout)
}
