package scan

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// As root, a scan runs its server as the unprivileged user it is given.
func TestStdioRunsAsCredential(t *testing.T) {
	testkit.RequireRoot(t, "switching users")
	const nobody = 65534
	target := stdioFixture(t, "sdk", sdkConfig{EnvTool: true, Tools: 1}, nil)
	target.Command = copyExecutable(t, target.Command)
	target.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
	snap := mustRead(t, Limits{}, target)
	if desc := envDescription(t, snap); !strings.HasPrefix(desc, "uid=65534\n") {
		t.Fatalf("server ran as:\n%s", desc)
	}
}

// copyExecutable copies the test binary where any user may run it.
func copyExecutable(t testing.TB, exe string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpreg-scan-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	dst := filepath.Join(dir, "fixture")
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, src); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}
