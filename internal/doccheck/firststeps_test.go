package doccheck

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// firstStepsTimeout bounds the whole block: make build (cached after the
// first test build), start, five commands.
const firstStepsTimeout = 10 * time.Minute

// firstSteps is the first ```sh block under the README's "## First steps".
func firstSteps(t *testing.T, readme string) string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "\n## First steps\n")
	if !ok {
		t.Fatal(`README.md has no "## First steps" section`)
	}
	if next := strings.Index(after, "\n## "); next >= 0 {
		after = after[:next]
	}
	_, block, ok := strings.Cut(after, "\n```sh\n")
	if !ok {
		t.Fatal("the First steps section has no ```sh block")
	}
	block, _, ok = strings.Cut(block, "\n```")
	if !ok {
		t.Fatal("the First steps ```sh block is not closed")
	}
	return block + "\n"
}

// TestFirstStepsRun: the README's first steps, exactly as written, run in
// the checkout with a fresh data directory and free ports given through
// MCPREG_* settings, and end with a discovery document verified with the
// registry's public key.
func TestFirstStepsRun(t *testing.T) {
	for _, tool := range []string{"sh", "make", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			testkit.Unavailable(t, "the first steps need %s: %v", tool, err)
		}
	}
	if testing.Short() {
		t.Skip("builds the binaries: not with -short")
	}
	root := testkit.RepoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := firstSteps(t, string(readme))
	data := t.TempDir()
	httpAddr := "127.0.0.1:" + testkit.FreePort(t)
	pub := filepath.Join(root, "registry.pub")
	if _, err := os.Stat(pub); err == nil {
		t.Fatalf("%s exists already: the first steps would overwrite it", pub)
	}
	t.Cleanup(func() { _ = os.Remove(pub) })
	// HOME stays: make build uses the Go build cache under it.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPREG_") {
			env = append(env, kv)
		}
	}
	env = append(env, "MCPREG_DB=sqlite://"+filepath.Join(data, "mcpreg.db"),
		"MCPREG_DISCOVERY_KEY="+filepath.Join(data, "discovery.key"), "MCPREG_SECRETS_KEY="+filepath.Join(data, "secrets.key"),
		"MCPREG_HTTP_ADDR="+httpAddr, "MCPREG_GRPC_ADDR=127.0.0.1:"+testkit.FreePort(t),
		"MCPREG_METRICS_ADDR=127.0.0.1:"+testkit.FreePort(t), "MCPREG_SERVER=http://"+httpAddr)
	ctx, cancel := context.WithTimeout(context.Background(), firstStepsTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", block)
	cmd.Dir, cmd.Env, cmd.WaitDelay = root, env, 10*time.Second
	out, err := cmd.CombinedOutput()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("the first steps did not finish within %s:\n%s", firstStepsTimeout, out)
	}
	if err != nil {
		t.Fatalf("the first steps failed: %v\n%s", err, out)
	}
	for _, want := range []string{"io.github.acme/weather@1.0.0: first version", "Verified:", "yes (signature, expiry, sequence)", "io.github.acme/weather"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the first steps' output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "mcpreg.db")); err != nil {
		t.Errorf("the service did not use the data directory given through MCPREG_DB: %v", err)
	}
}

// TestFirstStepsBlock: the extraction finds the block under its heading
// and nowhere else.
func TestFirstStepsBlock(t *testing.T) {
	readme := "# x\n```sh\nnot this\n```\n## First steps\ntext\n```sh\nmake build\nbin/mcpreg\n```\n## Next\n```sh\nnor this\n```\n"
	if got := firstSteps(t, readme); got != "make build\nbin/mcpreg\n" {
		t.Fatalf("block = %q", got)
	}
}
