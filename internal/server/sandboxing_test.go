package server_test

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/testkit"
	"github.com/mcpreg/mcpreg/internal/wiring"
)

// TestSandboxOffIsLoud: --scan-sandbox=off logs a warning at start and
// sets mcpreg_scan_sandbox{mode="off"}; with the sandbox on (as root) the
// gauge says bwrap.
func TestSandboxOffIsLoud(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) { c.ScanSandbox = config.SandboxOff })
	if !strings.Contains(in.Logs.String(), "run without the sandbox (--scan-sandbox=off)") {
		t.Fatalf("no warning about --scan-sandbox=off in the log:\n%s", in.Logs.String())
	}
	if m := metrics(t, in); !strings.Contains(m, `mcpreg_scan_sandbox{mode="off"} 1`) || !strings.Contains(m, `mcpreg_scan_sandbox{mode="bwrap"} 0`) {
		t.Fatalf("sandbox gauge:\n%s", grep(m, "mcpreg_scan_sandbox"))
	}
	if os.Geteuid() != 0 {
		return
	}
	in = servertest.Start(t, store.DialectSQLite)
	if m := metrics(t, in); !strings.Contains(m, `mcpreg_scan_sandbox{mode="bwrap"} 1`) {
		t.Fatalf("sandbox gauge as root:\n%s", grep(m, "mcpreg_scan_sandbox"))
	}
	if strings.Contains(in.Logs.String(), "without the sandbox") || strings.Contains(in.Logs.String(), "stdio scans are refused") {
		t.Fatalf("a warning with the sandbox on:\n%s", in.Logs.String())
	}
}

// TestSandboxRefusesDownloadingTemplates: with no network for stdio
// servers, a launch template that downloads at launch is refused at
// start, naming it; with the sandbox off it is accepted.
func TestSandboxRefusesDownloadingTemplates(t *testing.T) {
	testkit.RequireRoot(t, "the templates are checked when the sandbox is set up")
	for _, tmpl := range []string{"npm=npx -y {identifier}@{version}", "pypi=uvx {identifier}=={version}", "pypi=pipx run {identifier}",
		"oci=docker run -i --rm {identifier}:{version}", "npm=/usr/bin/env npm exec {identifier}", "npm=sh -c 'bunx {identifier}'"} {
		cfg := config.DefaultConfig()
		cfg.ScanLaunchTemplates, cfg.ScanNPMDir = []string{tmpl}, servertest.ScanUserDir(t)
		_, err := wiring.ScanningFrom(cfg)
		if err == nil || !strings.Contains(err.Error(), `--scan-launch-template "`+tmpl+`"`) || !strings.Contains(err.Error(), "no network") {
			t.Errorf("%s: %v", tmpl, err)
		}
		cfg.ScanSandbox = config.SandboxOff
		if _, err := wiring.ScanningFrom(cfg); err != nil {
			t.Errorf("%s with the sandbox off: %v", tmpl, err)
		}
	}
	cfg := config.DefaultConfig()
	cfg.ScanLaunchTemplates, cfg.ScanNPMDir = []string{"npm=node {package_bin} stdio", "pypi=/usr/local/bin/run-{identifier}"}, servertest.ScanUserDir(t)
	if _, err := wiring.ScanningFrom(cfg); err != nil {
		t.Fatalf("installed commands: %v", err)
	}
}

func TestSandboxFlagsVerified(t *testing.T) {
	for _, tt := range []struct {
		mutate func(*config.Config)
		want   string
	}{
		{func(c *config.Config) { c.ScanSandbox = "auto" }, `--scan-sandbox "auto": want bwrap or off`},
		{func(c *config.Config) { c.ScanStdioNetwork = "host" }, `--scan-stdio-network "host": want none`},
		{func(c *config.Config) { c.ScanUIDRange = "100063-100000" }, "--scan-uid-range"},
		{func(c *config.Config) { c.ScanUIDRange = "0-10" }, "below 1000"},
		{func(c *config.Config) { c.ScanSandboxTmpfsMiB, c.ScanSandboxMemoryMiB = 512, 256 }, "tmpfs"},
		{func(c *config.Config) { c.ScanSandboxPids = -1 }, "want 0 (default) or more"},
	} {
		cfg := config.DefaultConfig()
		tt.mutate(&cfg)
		if err := cfg.Verify(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v, want %q", err, tt.want)
		}
	}
}

func metrics(t *testing.T, in *servertest.Instance) string {
	t.Helper()
	resp, err := http.Get(in.Metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
