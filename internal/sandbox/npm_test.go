package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// TestJobRunsNPMThroughTheProxy: npm in a job with Network reaches the
// public npm registry over HTTPS (CONNECT through the proxy) and nothing
// else: a second registry host is refused by the proxy.
func TestJobRunsNPMThroughTheProxy(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		testkit.Unavailable(t, "%s", "npm is not installed")
	}
	sb := newTestSandbox(t, Config{})
	home := t.TempDir()
	if err := os.Chmod(filepath.Dir(home), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Sandbox: sb, Allow: "registry.npmjs.org:443"}
	env := []string{"PATH=" + filepath.Dir(npm) + ":/usr/bin:/bin", "HOME=" + home, "npm_config_cache=" + home + "/cache", "npm_config_update_notifier=false"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out syncBuilder
	job := Job{Argv: []string{"npm", "view", "--registry=https://registry.npmjs.org/", "@modelcontextprotocol/server-everything@2026.8.31", "dist.integrity"},
		Dir: home, Env: env, Network: true}
	if err := r.Run(ctx, job, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.TrimSpace(out.String()), "sha512-5U3OZh8Xq0Li4nA26l6uNvV9") {
		t.Fatalf("npm view through the proxy: %q", out.String())
	}
	job.Argv = []string{"npm", "view", "--registry=https://registry.yarnpkg.com/", "--fetch-retries=0", "left-pad", "version"}
	err = r.Run(ctx, job, &out)
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("npm against another registry host: %v", err)
	}
}
