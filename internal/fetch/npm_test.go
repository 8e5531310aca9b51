package fetch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// The npm reference server, pinned, and the sha512 integrity the npm
// registry publishes for its tarball.
const (
	everythingPackage   = "@modelcontextprotocol/server-everything"
	everythingVersion   = "2026.8.31"
	everythingIntegrity = "sha512-5U3OZh8Xq0Li4nA26l6uNvV9/1suMDuWSn+NjLZIhzinhMY6N3A4DCrxVecBGPf2PsNFKTEv5krxGPRwzxc7jQ=="
)

func requireNPM(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err == nil {
		return
	}
	testkit.Unavailable(t, "npm is not installed")
}

func digest(t *testing.T, s string) attest.Digest {
	t.Helper()
	d, err := attest.ParseDigest(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFetchPublishedPackage obtains the real package from the npm
// registry, checks its integrity, installs its dependencies without
// scripts, and reuses the prepared copy without running npm again.
func TestFetchPublishedPackage(t *testing.T) {
	requireNPM(t)
	n := &NPM{Dir: t.TempDir(), Timeout: 4 * time.Minute}
	want := digest(t, everythingIntegrity)
	p, err := n.Fetch(context.Background(), everythingPackage, everythingVersion, want)
	if err != nil {
		t.Fatal(err)
	}
	if p.Bin != filepath.Join(p.Dir, "dist", "index.js") || p.Digest != want || p.Integrity != everythingIntegrity {
		t.Fatalf("prepared package: %+v", p)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("dependencies not installed: %v", err)
	}
	// The second fetch must not need npm at all.
	n.Command = filepath.Join(t.TempDir(), "no-such-npm")
	again, err := n.Fetch(context.Background(), everythingPackage, everythingVersion, want)
	if err != nil || again.Dir != p.Dir {
		t.Fatalf("prepared copy not reused: %+v %v", again, err)
	}
	entries, _ := os.ReadDir(filepath.Join(n.Dir, layout))
	if len(entries) != 1 {
		t.Fatalf("work folders left behind: %v", entries)
	}
}

// TestFetchDigestMismatch: the published tarball does not match the
// declared digest; the error says both, nothing is kept.
func TestFetchDigestMismatch(t *testing.T) {
	requireNPM(t)
	n := &NPM{Dir: t.TempDir(), Timeout: 2 * time.Minute}
	wrong, _ := attest.DigestOf([]byte("another tarball"), attest.SHA512)
	_, err := n.Fetch(context.Background(), everythingPackage, everythingVersion, wrong)
	var mm *DigestMismatchError
	if !errors.As(err, &mm) || mm.Want != wrong || mm.Got != digest(t, everythingIntegrity) {
		t.Fatalf("want a digest mismatch naming both digests, got %v", err)
	}
	t.Log(err)
	if entries, _ := os.ReadDir(filepath.Join(n.Dir, layout)); len(entries) != 0 {
		t.Fatalf("a mismatching package was kept: %v", entries)
	}
	// sha256 of the same tarball is checked in sha256.
	wrong256, _ := attest.DigestOf([]byte("x"), attest.SHA256)
	if _, err := n.Fetch(context.Background(), everythingPackage, everythingVersion, wrong256); !errors.As(err, &mm) || mm.Got.Algorithm != attest.SHA256 {
		t.Fatalf("sha256 mismatch: %v", err)
	}
}

// TestFetchRefusesLooseSpecs: only an exact name and version are fetched;
// neither the registry nor npm is asked for anything else.
func TestFetchRefusesLooseSpecs(t *testing.T) {
	n := &NPM{Dir: t.TempDir(), Command: filepath.Join(t.TempDir(), "no-such-npm"), Registry: "http://127.0.0.1:1/"}
	d, _ := attest.DigestOf([]byte("x"), attest.SHA512)
	for _, c := range []struct{ name, version string }{
		{"left-pad", "latest"}, {"left-pad", "^1.0.0"}, {"left-pad", "1.x"}, {"../evil", "1.0.0"},
		{"git+https://example.com/x.git", "1.0.0"}, {"left-pad", "1.0.0 || 2.0.0"}, {"Left-Pad", "1.0.0"},
		{"left-pad", "file:../x"}, {"@scope", "1.0.0"}, {"-rf", "1.0.0"},
	} {
		_, err := n.Fetch(context.Background(), c.name, c.version, d)
		if !errors.Is(err, ErrFetch) {
			t.Errorf("%s@%s: %v, want ErrFetch", c.name, c.version, err)
		}
	}
}

// TestFetchUnknownPackage: a package npm cannot find is a fetch error,
// not a mismatch.
func TestFetchUnknownPackage(t *testing.T) {
	requireNPM(t)
	n := &NPM{Dir: t.TempDir(), Timeout: 2 * time.Minute}
	d, _ := attest.DigestOf([]byte("x"), attest.SHA512)
	_, err := n.Fetch(context.Background(), "@mcpreg-test-nonexistent/no-such-package", "1.0.0", d)
	var mm *DigestMismatchError
	if !errors.Is(err, ErrFetch) || errors.As(err, &mm) {
		t.Fatalf("unknown package: %v", err)
	}
	t.Log(err)
}
