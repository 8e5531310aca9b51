package fetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/fetch/fetchtest"
)

// hostile is what a hostile package leaves behind when npm runs its code.
type hostile struct {
	marker, secret string
}

// newHostile makes a secret file (standing in for the registry's signing
// key) and the path of the marker a hostile script would write.
func newHostile(t *testing.T) hostile {
	t.Helper()
	dir := t.TempDir()
	h := hostile{marker: filepath.Join(dir, "pwned"), secret: filepath.Join(dir, "signing.key")}
	if err := os.WriteFile(h.secret, []byte("TOP-SECRET-KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// script is a shell script that records that it ran, with the secret it
// could read and its environment.
func (h hostile) script() string {
	return "#!/bin/sh\necho ran \"$@\" >> " + h.marker + "\ncat " + h.secret + " >> " + h.marker + " 2>&1\necho >> " + h.marker + "\nenv >> " + h.marker + "\nexit 0\n"
}

func (h hostile) assertNeverRan(t *testing.T) {
	t.Helper()
	if data, err := os.ReadFile(h.marker); err == nil {
		t.Fatalf("the package's own script ran during the fetch:\n%s", data)
	}
}

// evilPackage ships its own .npmrc pointing npm's git at a script in the
// package, and a git dependency that makes npm run git.
func evilPackage(h hostile, deps map[string]any) *fetchtest.Package {
	return &fetchtest.Package{Name: "evil-mcp", Version: "1.0.0",
		Manifest: map[string]any{"bin": "index.js", "dependencies": deps},
		Files: []fetchtest.File{
			{Name: "package/index.js", Body: "#!/usr/bin/env node\n", Mode: 0o755},
			{Name: "package/.npmrc", Body: "git=./evil.sh\n"},
			{Name: "package/evil.sh", Body: h.script(), Mode: 0o755},
		}}
}

// TestFetchIgnoresThePackagesOwnConfiguration is the regression test for
// the hostile tarball of issue 13: a package that ships .npmrc with
// git=./evil.sh and a git dependency made npm run evil.sh as mcpregd's
// user. Now the git dependency is refused before npm runs, naming it, and
// nothing is kept.
func TestFetchIgnoresThePackagesOwnConfiguration(t *testing.T) {
	requireNPM(t)
	h := newHostile(t)
	evil := evilPackage(h, map[string]any{"helper": "git+https://127.0.0.1:1/helper.git"})
	reg := fetchtest.NewRegistry(t, evil)
	n := &NPM{Dir: t.TempDir(), Registry: reg.URL, Timeout: 2 * time.Minute}
	declared, _ := attest.ParseDigest(evil.Integrity)
	for _, want := range []attest.Digest{{}, declared} {
		_, err := n.Fetch(context.Background(), "evil-mcp", "1.0.0", want)
		var dep *DependencySpecError
		if !errors.As(err, &dep) || dep.Dependency != "helper" || dep.Where != "dependencies" ||
			!strings.Contains(err.Error(), `"helper"`) || !errors.Is(err, ErrFetch) {
			t.Fatalf("want a refusal naming the git dependency %q, got %v", "helper", err)
		}
		t.Log(err)
	}
	h.assertNeverRan(t)
	if entries, _ := os.ReadDir(filepath.Join(n.Dir, layout)); len(entries) != 0 {
		t.Fatalf("a refused package was kept: %v", entries)
	}
}

// TestFetchGitDependencyOfADependency: a registry dependency whose own
// git dependency npm would fetch; the package's .npmrc asks for its own
// git. npm runs with the registry's configuration (git is /bin/false), so
// the install fails and the script never runs.
func TestFetchGitDependencyOfADependency(t *testing.T) {
	requireNPM(t)
	h := newHostile(t)
	middle := &fetchtest.Package{Name: "middle", Version: "1.0.0",
		Manifest: map[string]any{"dependencies": map[string]any{"helper": "git+https://127.0.0.1:1/helper.git"}},
		Files:    []fetchtest.File{{Name: "package/index.js", Body: "module.exports = 1\n"}}}
	reg := fetchtest.NewRegistry(t, middle, evilPackage(h, map[string]any{"middle": "^1.0.0"}))
	n := &NPM{Dir: t.TempDir(), Registry: reg.URL, Timeout: 2 * time.Minute}
	_, err := n.Fetch(context.Background(), "evil-mcp", "1.0.0", attest.Digest{})
	if !errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "installing dependencies") {
		t.Fatalf("want the install to fail, got %v", err)
	}
	t.Log(err)
	h.assertNeverRan(t)
	if entries, _ := os.ReadDir(filepath.Join(n.Dir, layout)); len(entries) != 0 {
		t.Fatalf("a refused package was kept: %v", entries)
	}
}
