package fetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/fetch/fetchtest"
)

// fakeNPM is an npm stand-in that records how it was run into dir: its
// initial environment, its arguments, the configuration files it was
// given and the files of its working folder. It then runs extra (shell).
func fakeNPM(t *testing.T, dir, extra string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "npm")
	body := `#!/bin/sh
cat /proc/$$/environ > ` + dir + `/environ
printf '%s\n' "$@" > ` + dir + `/argv
for a in "$@"; do
  case "$a" in
    --userconfig=*) cat "${a#--userconfig=}" > ` + dir + `/userconfig ;;
    --globalconfig=*) cat "${a#--globalconfig=}" > ` + dir + `/globalconfig ;;
  esac
done
find . > ` + dir + `/files
` + extra + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

func benignPackage() *fetchtest.Package {
	return &fetchtest.Package{Name: "good-mcp", Version: "2.0.0",
		Manifest: map[string]any{"bin": "index.js", "dependencies": map[string]any{"left-pad": "^1.3.0", "alias": "npm:other@~2.1.0"}},
		Files: []fetchtest.File{
			{Name: "package/index.js", Body: "#!/usr/bin/env node\n", Mode: 0o755},
			{Name: "package/.npmrc", Body: "git=./evil.sh\n"},
			{Name: "package/lib/.npmrc", Body: "registry=http://evil.invalid/\n"},
			{Name: "package/.yarnrc.yml", Body: "x: y\n"},
			{Name: "package/.pnpmrc", Body: "x=y\n"},
			{Name: "package/.NPMRC", Body: "x=y\n"},
			{Name: "package/npm-shrinkwrap.json", Body: "{}"},
		}}
}

// TestFetchStepEnvironment: npm runs with an environment built from
// nothing (PATH and a throw-away HOME; the registry's secrets are not
// there), configuration the registry wrote, git disabled, no scripts, the
// configured registry, and without any package-manager configuration of
// the package. The prepared copy is owned by mcpregd's user, not writable
// by anybody else, and records the registry's integrity.
func TestFetchStepEnvironment(t *testing.T) {
	t.Setenv("MCPREG_TEST_SECRET_DSN", "postgres://admin:hunter2@db/mcpreg")
	rec := t.TempDir()
	// When root, the step leaves files owned by another user and
	// writable by all, as a step run as the scan user would.
	extra := "mkdir -p node_modules/left-pad && echo '{}' > node_modules/left-pad/package.json && " +
		"echo '{\"packages\":{\"node_modules/left-pad\":{\"resolved\":\"" + "'$REGISTRY'" + "left-pad/-/left-pad-1.3.0.tgz\"}}}' > node_modules/.package-lock.json"
	if os.Geteuid() == 0 {
		extra += " && chown -R 65534:65534 node_modules && chmod -R a+w node_modules && chmod 6777 index.js"
	}
	good := benignPackage()
	reg := fetchtest.NewRegistry(t, good)
	extra = strings.ReplaceAll(extra, "'$REGISTRY'", reg.URL+"/")
	n := &NPM{Dir: t.TempDir(), Registry: reg.URL, Command: fakeNPM(t, rec, extra), CAFile: "/etc/ssl/certs/ca-certificates.crt"}
	p, err := n.Fetch(context.Background(), "good-mcp", "2.0.0", attest.Digest{})
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(rec, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	env := strings.Split(strings.TrimRight(read("environ"), "\x00"), "\x00")
	if len(env) != 2 || env[0] != "PATH="+os.Getenv("PATH") || !strings.HasPrefix(env[1], "HOME="+filepath.Join(n.Dir, layout, ".npm-")) {
		t.Fatalf("npm's environment is not exactly PATH and a throw-away HOME: %q", env)
	}
	argv := strings.Split(strings.TrimSpace(read("argv")), "\n")
	for _, want := range []string{"install", "--omit=dev", "--ignore-scripts", "--git=/bin/false", "--registry=" + reg.URL + "/", "--no-package-lock"} {
		if !slices.Contains(argv, want) {
			t.Errorf("npm argv %q lacks %s", argv, want)
		}
	}
	for _, f := range []string{"userconfig", "globalconfig"} {
		cfg := read(f)
		for _, want := range []string{"registry=" + reg.URL + "/\n", "git=/bin/false\n", "ignore-scripts=true\n", "cafile=/etc/ssl/certs/ca-certificates.crt\n"} {
			if !strings.Contains(cfg, want) {
				t.Errorf("%s lacks %q:\n%s", f, want, cfg)
			}
		}
	}
	files := read("files")
	for _, banned := range []string{".npmrc", ".NPMRC", ".yarnrc.yml", ".pnpmrc", "npm-shrinkwrap.json"} {
		if strings.Contains(files, banned) {
			t.Errorf("npm saw the package's %s:\n%s", banned, files)
		}
	}
	if !strings.Contains(files, "./index.js") {
		t.Fatalf("npm did not run in the package: %s", files)
	}
	wantIntegrity, _ := attest.ParseDigest(good.Integrity)
	if p.Integrity != good.Integrity || p.Digest != wantIntegrity || p.Bin != filepath.Join(p.Dir, "index.js") ||
		p.Dir != filepath.Join(n.Dir, layout, "sha512-"+wantIntegrity.Hex, "package") {
		t.Fatalf("prepared package: %+v", p)
	}
	assertSettled(t, filepath.Dir(p.Dir))
	if entries, _ := os.ReadDir(filepath.Join(n.Dir, layout)); len(entries) != 1 {
		t.Fatalf("work folders left behind: %v", entries)
	}
	// Prepared once: a second fetch reuses the copy, with or without a
	// declared digest, and checks a declared one.
	n.Command = filepath.Join(t.TempDir(), "no-such-npm")
	sha256, _ := attest.DigestOf(good.Tarball, attest.SHA256)
	for _, want := range []attest.Digest{{}, wantIntegrity, sha256} {
		if again, err := n.Fetch(context.Background(), "good-mcp", "2.0.0", want); err != nil || again.Dir != p.Dir {
			t.Fatalf("prepared copy not reused for %v: %+v %v", want, again, err)
		}
	}
	wrong, _ := attest.DigestOf([]byte("other"), attest.SHA256)
	var mm *DigestMismatchError
	if _, err := n.Fetch(context.Background(), "good-mcp", "2.0.0", wrong); !errors.As(err, &mm) || mm.Got != sha256 || mm.Registry {
		t.Fatalf("a wrong declared digest on a prepared copy: %v", err)
	}
}

// assertSettled checks that everything below dir belongs to mcpregd's user
// and that nobody else may write it.
func assertSettled(t *testing.T, dir string) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		st := info.Sys().(*syscall.Stat_t)
		if int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid() {
			t.Errorf("%s is owned by %d:%d", p, st.Uid, st.Gid)
		}
		if info.Mode()&os.ModeSymlink == 0 && (info.Mode().Perm()&0o022 != 0 || info.Mode()&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0) {
			t.Errorf("%s has mode %v", p, info.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFetchRefusesNonRegistrySpecs: dependencies that are not registry
// versions, ranges or tags are refused before npm runs, naming the
// dependency.
func TestFetchRefusesNonRegistrySpecs(t *testing.T) {
	for _, c := range []struct {
		name, where, dep string
		manifest         map[string]any
		files            []fetchtest.File
	}{
		{"file", "dependencies", "x", map[string]any{"dependencies": map[string]any{"x": "file:../../../etc"}}, nil},
		{"link", "dependencies", "x", map[string]any{"dependencies": map[string]any{"x": "link:/root"}}, nil},
		{"github shorthand", "dependencies", "x", map[string]any{"dependencies": map[string]any{"x": "evil/repo"}}, nil},
		{"github prefix", "optionalDependencies", "x", map[string]any{"optionalDependencies": map[string]any{"x": "github:evil/repo#main"}}, nil},
		{"git ssh", "peerDependencies", "x", map[string]any{"peerDependencies": map[string]any{"x": "git+ssh://git@example.com/x.git"}}, nil},
		{"dev git", "devDependencies", "x", map[string]any{"devDependencies": map[string]any{"x": "git://example.com/x.git"}}, nil},
		{"http tarball", "dependencies", "x", map[string]any{"dependencies": map[string]any{"x": "https://example.com/x.tgz"}}, nil},
		{"relative path", "dependencies", "x", map[string]any{"dependencies": map[string]any{"x": "./vendor/x"}}, nil},
		{"home path", "dependencies", "x", map[string]any{"dependencies": map[string]any{"x": "~/x"}}, nil},
		{"alias to git", "dependencies", "x", map[string]any{"dependencies": map[string]any{"x": "npm:y@github:evil/repo"}}, nil},
		{"alias to file", "dependencies", "x", map[string]any{"dependencies": map[string]any{"x": "npm:y@file:../y"}}, nil},
		{"workspace protocol", "dependencies", "x", map[string]any{"dependencies": map[string]any{"x": "workspace:*"}}, nil},
		{"not a string", "dependencies", "x", map[string]any{"dependencies": map[string]any{"x": map[string]any{"version": "1"}}}, nil},
		{"override to git", "overrides", "y", map[string]any{"overrides": map[string]any{"x": map[string]any{"y": "github:evil/y"}}}, nil},
		{"workspaces", "workspaces", "workspaces", map[string]any{"workspaces": []string{"packages/*"}}, nil},
		{"bundled package", "node_modules/b/package.json dependencies", "x", nil,
			[]fetchtest.File{{Name: "package/node_modules/b/package.json", Body: `{"name":"b","dependencies":{"x":"git+https://example.com/x.git"}}`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := t.TempDir()
			m := map[string]any{"bin": "index.js"}
			for k, v := range c.manifest {
				m[k] = v
			}
			pkg := &fetchtest.Package{Name: "bad-mcp", Version: "1.0.0", Manifest: m,
				Files: append([]fetchtest.File{{Name: "package/index.js", Body: "x", Mode: 0o755}}, c.files...)}
			reg := fetchtest.NewRegistry(t, pkg)
			n := &NPM{Dir: t.TempDir(), Registry: reg.URL, Command: fakeNPM(t, rec, "")}
			_, err := n.Fetch(context.Background(), "bad-mcp", "1.0.0", attest.Digest{})
			var dep *DependencySpecError
			if !errors.As(err, &dep) || dep.Where != c.where || dep.Dependency != c.dep || dep.Package != "bad-mcp@1.0.0" {
				t.Fatalf("want a refusal of %s %q, got %v", c.where, c.dep, err)
			}
			if _, err := os.Stat(filepath.Join(rec, "argv")); err == nil {
				t.Fatal("npm ran for a refused package")
			}
			if entries, _ := os.ReadDir(filepath.Join(n.Dir, layout)); len(entries) != 0 {
				t.Fatalf("a refused package was kept: %v", entries)
			}
		})
	}
}

func TestRegistrySpec(t *testing.T) {
	for _, s := range []string{"^1.2.3", "~1.2", "1.x", "1.2.X", "*", "", ">=1.0.0 <2.0.0", ">= 1.2.3", "1.2.3 - 2.3.4",
		"^1 || ^2.0.0-beta.1", "=1.2.3", "v1.2.3", "latest", "next", "npm:other@^1.0.0", "npm:@scope/x@1.0.0", "npm:other", "1.0.0+build.5"} {
		if !registrySpec(s) {
			t.Errorf("%q refused", s)
		}
	}
	for _, s := range []string{"file:x", "link:x", "user/repo", "github:u/r", "gitlab:u/r", "bitbucket:u/r", "gist:abc",
		"git+https://h/x.git", "git://h/x", "http://h/x.tgz", "https://h/x.tgz", "./x", "../x", "/abs", "~/x", ".",
		"npm:x@file:y", "npm:x@npm:y@1", "npm:../x@1", "workspace:*", "workspace:^1.0.0", "portal:x", "patch:x", "x.tgz",
		"1.0.0 || file:x", "C:\\x", "latest/x", "^1.0.0#main"} {
		if registrySpec(s) {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestFetchTarballDiffersFromRegistryIntegrity: the registry serves a
// tarball whose bytes do not match the integrity it publishes; nothing is
// unpacked or installed.
func TestFetchTarballDiffersFromRegistryIntegrity(t *testing.T) {
	rec := t.TempDir()
	other, _ := attest.DigestOf([]byte("another tarball"), attest.SHA512)
	pkg := benignPackage()
	pkg.Integrity = fetchtest.Integrity(other)
	reg := fetchtest.NewRegistry(t, pkg)
	n := &NPM{Dir: t.TempDir(), Registry: reg.URL, Command: fakeNPM(t, rec, "")}
	_, err := n.Fetch(context.Background(), "good-mcp", "2.0.0", attest.Digest{})
	var mm *DigestMismatchError
	if !errors.As(err, &mm) || !mm.Registry || mm.Want != other || !strings.Contains(err.Error(), "npm registry publishes integrity") {
		t.Fatalf("want a mismatch against the registry's integrity, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(rec, "argv")); err == nil {
		t.Fatal("npm ran for a mismatching tarball")
	}
	if entries, _ := os.ReadDir(filepath.Join(n.Dir, layout)); len(entries) != 0 {
		t.Fatalf("a mismatching package was kept: %v", entries)
	}
}

// TestFetchRefusesOffRegistryTarballs: the metadata may not send the
// download to another host, directly or by redirect; versions are exact.
func TestFetchRefusesOffRegistryTarballs(t *testing.T) {
	elsewhere := benignPackage()
	elsewhere.TarballURL = "http://169.254.169.254/latest/meta-data/x.tgz"
	reg := fetchtest.NewRegistry(t, elsewhere)
	n := &NPM{Dir: t.TempDir(), Registry: reg.URL, Command: filepath.Join(t.TempDir(), "no-such-npm")}
	if _, err := n.Fetch(context.Background(), "good-mcp", "2.0.0", attest.Digest{}); !errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "not on the configured npm registry") {
		t.Fatalf("off-registry tarball: %v", err)
	}
	if _, err := n.Fetch(context.Background(), "good-mcp", "2.0.1", attest.Digest{}); !errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "no version 2.0.1") {
		t.Fatalf("unknown version: %v", err)
	}
	for _, r := range []string{"ftp://registry.example/", "https://user:pw@registry.example/", "registry.example"} {
		n := &NPM{Dir: t.TempDir(), Registry: r}
		if _, err := n.Fetch(context.Background(), "good-mcp", "2.0.0", attest.Digest{}); !errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "is not an http(s) URL") {
			t.Errorf("registry %q: %v", r, err)
		}
	}
}

var (
	hugeOnce    sync.Once
	hugeTarball []byte
)

// TestFetchHugeEntryNamedLikeTheTopFolder: the 1 GiB entry "package" in a
// 1 MiB tarball, served by the registry, is refused by the limits.
func TestFetchHugeEntryNamedLikeTheTopFolder(t *testing.T) {
	hugeOnce.Do(func() { hugeTarball = zeroEntryTarball(t, "package", 1<<30) })
	pkg := benignPackage()
	pkg.Tarball = hugeTarball
	reg := fetchtest.NewRegistry(t, pkg)
	n := &NPM{Dir: t.TempDir(), Registry: reg.URL, Command: filepath.Join(t.TempDir(), "no-such-npm"),
		Limits: Limits{MaxTarballBytes: 2 << 20, MaxUnpackedBytes: 1 << 20, MaxFiles: 100}}
	_, err := n.Fetch(context.Background(), "good-mcp", "2.0.0", attest.Digest{})
	if !errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "more than 1048576 bytes") {
		t.Fatalf("a 1 GiB entry passed a 1 MiB limit: %v", err)
	}
}

// TestFetchDeadline: the whole fetch has a deadline; a hanging npm is
// killed with its process group.
func TestFetchDeadline(t *testing.T) {
	rec := t.TempDir()
	reg := fetchtest.NewRegistry(t, benignPackage())
	n := &NPM{Dir: t.TempDir(), Registry: reg.URL, Command: fakeNPM(t, rec, "sleep 60 & wait"), Timeout: 2 * time.Second}
	start := time.Now()
	_, err := n.Fetch(context.Background(), "good-mcp", "2.0.0", attest.Digest{})
	if !errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "did not finish within 2s") {
		t.Fatalf("want the deadline, got %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the fetch returned after %s", d)
	}
	if entries, _ := os.ReadDir(filepath.Join(n.Dir, layout)); len(entries) != 0 {
		t.Fatalf("a timed-out package was kept: %v", entries)
	}
}

// TestFetchChecksWhatNPMInstalled: a dependency of a dependency resolved
// from outside the registry (or linked) is refused after the install,
// naming it; so is an install that leaves no record.
func TestFetchChecksWhatNPMInstalled(t *testing.T) {
	for _, c := range []struct{ name, lock, want string }{
		{"git", `{"packages":{"node_modules/a":{"resolved":"REG/a/-/a-1.0.0.tgz"},"node_modules/a/node_modules/b":{"resolved":"git+ssh://git@github.com/evil/b.git#abc"}}}`, "node_modules/a/node_modules/b"},
		{"link", `{"packages":{"node_modules/c":{"resolved":"../../../etc","link":true}}}`, "node_modules/c"},
		{"other host", `{"packages":{"node_modules/d":{"resolved":"https://evil.example/d.tgz"}}}`, "node_modules/d"},
		{"no record", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := t.TempDir()
			reg := fetchtest.NewRegistry(t, benignPackage())
			extra := "mkdir -p node_modules/a"
			if c.lock != "" {
				lock := strings.ReplaceAll(c.lock, "REG/", reg.URL+"/")
				if err := os.WriteFile(filepath.Join(rec, "lock.json"), []byte(lock), 0o644); err != nil {
					t.Fatal(err)
				}
				extra += " && cp " + filepath.Join(rec, "lock.json") + " node_modules/.package-lock.json"
			}
			n := &NPM{Dir: t.TempDir(), Registry: reg.URL, Command: fakeNPM(t, rec, extra)}
			_, err := n.Fetch(context.Background(), "good-mcp", "2.0.0", attest.Digest{})
			var dep *DependencySpecError
			switch {
			case c.want == "" && (!errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "left no")):
				t.Fatalf("an install without a record: %v", err)
			case c.want != "" && (!errors.As(err, &dep) || dep.Dependency != c.want || dep.Where != "installed"):
				t.Fatalf("want a refusal of %s, got %v", c.want, err)
			}
			if entries, _ := os.ReadDir(filepath.Join(n.Dir, layout)); len(entries) != 0 {
				t.Fatalf("a refused package was kept: %v", entries)
			}
		})
	}
}
