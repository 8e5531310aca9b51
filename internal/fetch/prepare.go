package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcpreg/mcpreg/attest"
)

// npmrc is the only npm configuration a step reads, as user and as
// global configuration; the flags repeat what matters most.
const npmrc = `registry=%s
git=/bin/false
ignore-scripts=true
audit=false
fund=false
update-notifier=false
package-lock=false
save=false
`

// defaultPath is the PATH of npm steps when mcpregd has none.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// prepare unpacks tarball into work/package, refuses it when it depends on
// anything but registry packages, installs its production dependencies
// and leaves the folder owned by mcpregd's user and read-only to others.
func (n *NPM) prepare(ctx context.Context, reg *url.URL, tarball []byte, spec, work string) error {
	pkgDir := filepath.Join(work, "package")
	if err := unpack(tarball, pkgDir, n.limits()); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrFetch, spec, err)
	}
	if _, err := binOf(pkgDir); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrFetch, spec, err)
	}
	if err := checkDependencies(pkgDir, spec); err != nil {
		return err
	}
	if err := n.installDependencies(ctx, reg, pkgDir, spec); err != nil {
		return err
	}
	if err := settle(work); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrFetch, spec, err)
	}
	if err := linksStayInside(pkgDir); err != nil {
		return fmt.Errorf("%w: %s: after npm install: %w", ErrFetch, spec, err)
	}
	return checkInstalled(pkgDir, spec, reg)
}

// installDependencies runs npm install in pkgDir with a throw-away home and
// configuration the registry writes.
func (n *NPM) installDependencies(ctx context.Context, reg *url.URL, pkgDir, spec string) error {
	scratch, err := traversableTemp(filepath.Dir(filepath.Dir(pkgDir)), ".npm-")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFetch, err)
	}
	defer func() { _ = os.RemoveAll(scratch) }()
	cache := filepath.Join(n.Dir, cacheDir)
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrFetch, err)
	}
	step, err := n.installStep(reg, pkgDir, scratch, cache)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFetch, err)
	}
	if err := n.runner().Run(ctx, step, &limitedBuffer{buf: &bytes.Buffer{}, max: 4 << 10}); err != nil {
		return fmt.Errorf("%w: %s: installing dependencies: %w", ErrFetch, spec, err)
	}
	return nil
}

// cacheDir is npm's cache below Dir, shared by all fetches: it is
// content-addressed and npm verifies what it reads from it; only npm,
// never a package's code, writes there.
const cacheDir = "npm-cache"

// installStep is the npm install of pkgDir; scratch holds its home and its
// configuration.
func (n *NPM) installStep(reg *url.URL, pkgDir, scratch, cache string) (Step, error) {
	home := filepath.Join(scratch, "home")
	userconfig := filepath.Join(scratch, "npmrc")
	globalconfig := filepath.Join(scratch, "global-npmrc")
	if err := os.Mkdir(home, 0o755); err != nil {
		return Step{}, err
	}
	config := fmt.Sprintf(npmrc, reg.String())
	readOnly := []string{userconfig, globalconfig}
	if ca := n.caFile(); ca != "" {
		config += "cafile=" + ca + "\n"
		readOnly = append(readOnly, ca)
	}
	for _, f := range []string{userconfig, globalconfig} {
		if err := os.WriteFile(f, []byte(config), 0o644); err != nil {
			return Step{}, err
		}
	}
	command := n.Command
	if command == "" {
		command = "npm"
	}
	path := os.Getenv("PATH")
	if path == "" {
		path = defaultPath
	}
	return Step{
		Argv: []string{command, "install", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund",
			"--no-package-lock", "--no-save", "--no-update-notifier", "--loglevel=error",
			"--userconfig=" + userconfig, "--globalconfig=" + globalconfig,
			"--registry=" + reg.String(), "--git=/bin/false", "--cache=" + cache, "--prefer-offline"},
		Dir:      pkgDir,
		Env:      []string{"PATH=" + path, "HOME=" + home},
		Writable: []string{pkgDir, home, cache},
		ReadOnly: readOnly,
		Network:  true,
	}, nil
}

func (n *NPM) caFile() string {
	if n.CAFile != "" {
		return n.CAFile
	}
	return os.Getenv("NODE_EXTRA_CA_CERTS")
}

func (n *NPM) runner() Runner {
	if n.Runner != nil {
		return n.Runner
	}
	return ExecRunner{}
}

// settle gives everything below root to mcpregd's user and takes write
// permission from everybody else, whoever the step ran as. Only regular
// files, folders and symbolic links may be there.
func settle(root string) error {
	uid, gid := os.Geteuid(), os.Getegid()
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && (int(st.Uid) != uid || int(st.Gid) != gid) {
			if err := os.Lchown(p, uid, gid); err != nil {
				return err
			}
		}
		switch mode := info.Mode(); {
		case mode&fs.ModeSymlink != 0:
			return nil
		case mode.IsDir():
			return os.Chmod(p, 0o755)
		case mode.IsRegular() && mode&0o111 != 0:
			return os.Chmod(p, 0o755)
		case mode.IsRegular():
			return os.Chmod(p, 0o644)
		}
		return fmt.Errorf("%s is a %s, not a file, folder or link", p, info.Mode().Type())
	})
}

// linksStayInside refuses symbolic links below dir that point outside it
// (npm links bins relatively; a link elsewhere came from a local or
// linked dependency).
func linksStayInside(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		resolved := target
		if !filepath.IsAbs(target) {
			resolved = filepath.Join(filepath.Dir(p), target)
		}
		if rel, err := filepath.Rel(dir, resolved); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			rp, _ := filepath.Rel(dir, p)
			return fmt.Errorf("%s links to %s, outside the package", rp, target)
		}
		return nil
	})
}

// manifest describes a prepared package; it is written last, so a folder
// without it is incomplete.
type manifest struct {
	Package   string                   `json:"package"`
	Integrity string                   `json:"integrity"`
	Digests   map[string]attest.Digest `json:"digests"`
}

const manifestFile = "prepared.json"

func (m manifest) write(work string) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(work, manifestFile), data, 0o644)
}

// prepared is a package found in the cache, with the digests of its tarball.
type prepared struct {
	pkg     *Package
	digests map[string]attest.Digest
}

// readPrepared loads a prepared package.
func readPrepared(dir string) (*prepared, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	d, ok := m.Digests[attest.SHA512]
	if !ok || filepath.Base(dir) != "sha512-"+d.Hex {
		return nil, errors.New("prepared package has no matching sha512 digest")
	}
	pkgDir := filepath.Join(dir, "package")
	bin, err := binOf(pkgDir)
	if err != nil {
		return nil, err
	}
	return &prepared{pkg: &Package{Dir: pkgDir, Bin: bin, Digest: d, Integrity: m.Integrity}, digests: m.Digests}, nil
}

// matching returns the package if its tarball has digest want (or want is
// zero).
func (p *prepared) matching(spec string, want attest.Digest) (*Package, error) {
	if want.Algorithm != "" && p.digests[want.Algorithm] != want {
		return nil, &DigestMismatchError{Package: "npm " + spec, Want: want, Got: p.digests[want.Algorithm]}
	}
	return p.pkg, nil
}
