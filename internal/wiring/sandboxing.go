package wiring

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"
	"syscall"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/sandbox"
	"github.com/mcpreg/mcpreg/scan"
)

// scanSandbox sets up the sandbox of stdio scans. When bwrap was asked for
// and cannot be set up, stdio scans are refused with the reason (mode
// "unavailable"), never run unconfined; only --scan-sandbox=off does that.
// It also returns the uid whose access the npm folder must allow.
func scanSandbox(c config.Config, sc *registry.Scanning) (*syscall.Credential, error) {
	if c.ScanSandbox == config.SandboxOff {
		sc.SandboxMode = config.SandboxOff
		return sc.Credential, nil
	}
	cfg, err := c.Sandbox()
	if err != nil {
		return nil, err
	}
	sb, err := sandbox.New(context.Background(), cfg)
	if err != nil {
		sc.Sandbox, sc.SandboxMode = sandbox.Unavailable(err), config.SandboxUnavailable
		return sc.Credential, nil
	}
	sc.Sandbox, sc.SandboxMode = sb, config.SandboxBwrap
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

// sandboxedSteps runs npm's steps in the scan sandbox: as a uid of the
// range, with no network but the configured npm registry, reached through
// mcpregd's proxy and the scanner's dial guard. An unavailable sandbox
// refuses every step, so npm never runs unconfined unless an admin turned
// the sandbox off.
func sandboxedSteps(cfg config.Config, sb *sandbox.Sandbox, allow scan.AllowList) (fetch.Runner, error) {
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
