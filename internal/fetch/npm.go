package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcpreg/mcpreg/attest"
)

// ErrFetch marks a package that could not be obtained or prepared (npm
// unreachable, unknown package, broken tarball, refused dependency). It
// says nothing about the package's integrity.
var ErrFetch = errors.New("fetching package")

// DigestMismatchError is a package whose published bytes differ from the
// digest the version declares, or from the integrity the npm registry
// publishes for them: what would run is not what was attested.
type DigestMismatchError struct {
	Package string
	Want    attest.Digest
	Got     attest.Digest
	// Registry says Want is the npm registry's own integrity value, not
	// a digest the version declares.
	Registry bool
}

func (e *DigestMismatchError) Error() string {
	if e.Registry {
		return fmt.Sprintf("the tarball downloaded for %s has digest %s, but the npm registry publishes integrity %s for it: it is not the published artifact",
			e.Package, e.Got, e.Want)
	}
	return fmt.Sprintf("the published artifact of %s has digest %s, but the version declares %s: it is not what was attested",
		e.Package, e.Got, e.Want)
}

// layout is the folder under Dir that holds prepared packages. Changing
// it discards every copy an earlier release prepared.
const layout = "v2"

// DefaultTimeout bounds a whole fetch: lookup, download, unpack, install.
const DefaultTimeout = 5 * time.Minute

// NPM fetches npm packages from one npm registry: it reads the integrity
// the registry publishes for an exact version, downloads the tarball,
// checks it against that integrity and against the digest the version
// declares (if any), unpacks it and installs its production dependencies
// with npm, under configuration the registry writes and without scripts.
// Prepared packages are kept under Dir by digest, owned by mcpregd's user
// and read-only to everybody else, so a version is installed once however
// often it is scanned.
type NPM struct {
	// Command is the npm executable; empty means "npm" from PATH.
	Command string
	// Dir keeps prepared packages; it must be private to mcpregd.
	Dir string
	// Registry is the npm registry's URL; empty means DefaultRegistry.
	Registry string
	// Timeout bounds a whole fetch; zero means DefaultTimeout.
	Timeout time.Duration
	// Limits bound the tarball; zero values mean DefaultLimits.
	Limits Limits
	// Runner runs npm; nil means ExecRunner.
	Runner Runner
	// CAFile holds the certificates npm trusts for the registry (npm's
	// cafile); empty means the file named by mcpregd's own
	// NODE_EXTRA_CA_CERTS, if set, else npm's built-in list.
	CAFile string
	// HTTPClient reads the registry; nil means http.DefaultClient.
	HTTPClient *http.Client

	group singleflight.Group
	mu    sync.Mutex
}

// Package is a prepared npm package.
type Package struct {
	// Dir is the unpacked package with its node_modules.
	Dir string
	// Bin is the absolute path of the package's executable script.
	Bin string
	// Digest is the sha512 digest of the tarball that was prepared.
	Digest attest.Digest
	// Integrity is the npm registry's dist.integrity for the version, as
	// published; the tarball matched it.
	Integrity string
}

// npmName is what npm accepts as a package name (scoped or not).
var npmName = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// npmVersion is an exact version: no ranges, tags or URLs.
var npmVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// Fetch returns the package name@version, preparing it on first use. The
// tarball must match the integrity the npm registry publishes for exactly
// that version (else a *DigestMismatchError with Registry set) and, when
// want is not zero, the digest want (else a *DigestMismatchError). A
// package that depends on anything but registry packages is a
// *DependencySpecError. Nothing of a refused package is kept.
func (n *NPM) Fetch(ctx context.Context, name, version string, want attest.Digest) (*Package, error) {
	if !npmName.MatchString(name) {
		return nil, fmt.Errorf("%w: %q is not an npm package name", ErrFetch, name)
	}
	if !npmVersion.MatchString(version) {
		return nil, fmt.Errorf("%w: %s: a fetched npm package needs an exact version, not %q", ErrFetch, name, version)
	}
	key := name + "@" + version + " " + want.String()
	v, err, _ := n.group.Do(key, func() (any, error) {
		timeout := n.Timeout
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		p, err := n.fetch(ctx, name, version, want)
		if err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("%w: npm %s@%s: the fetch did not finish within %s (%w)", ErrFetch, name, version, timeout, err)
		}
		return p, err
	})
	if err != nil {
		return nil, err
	}
	return v.(*Package), nil
}

func (n *NPM) fetch(ctx context.Context, name, version string, want attest.Digest) (*Package, error) {
	spec := name + "@" + version
	reg, err := n.registryURL()
	if err != nil {
		return nil, err
	}
	rel, err := n.lookup(ctx, reg, name, version)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(n.Dir, layout)
	final := filepath.Join(root, "sha512-"+rel.Integrity.Hex)
	if p, err := readPrepared(final); err == nil {
		return p.matching(spec, want)
	}
	tarball, err := n.download(ctx, rel)
	if err != nil {
		return nil, err
	}
	digests, err := checkTarball(tarball, spec, rel, want)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFetch, err)
	}
	work, err := traversableTemp(root, ".prepare-")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFetch, err)
	}
	defer func() { _ = os.RemoveAll(work) }()
	if err := n.prepare(ctx, reg, tarball, spec, work); err != nil {
		return nil, err
	}
	m := manifest{Package: spec, Integrity: rel.IntegrityText, Digests: digests}
	if err := m.write(work); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFetch, err)
	}
	return n.install(work, final, spec, want)
}

// install moves a prepared work folder into place, unless another caller
// got there first.
func (n *NPM) install(work, final, spec string, want attest.Digest) (*Package, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if p, err := readPrepared(final); err == nil {
		return p.matching(spec, want)
	}
	_ = os.RemoveAll(final)
	if err := os.Rename(work, final); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFetch, err)
	}
	p, err := readPrepared(final)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrFetch, spec, err)
	}
	return p.matching(spec, want)
}

// checkTarball checks the downloaded bytes against the registry's
// integrity and the declared digest, and returns their digests.
func checkTarball(tarball []byte, spec string, rel *release, want attest.Digest) (map[string]attest.Digest, error) {
	digests := map[string]attest.Digest{}
	for _, alg := range []string{attest.SHA256, attest.SHA384, attest.SHA512} {
		d, err := attest.DigestOf(tarball, alg)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrFetch, err)
		}
		digests[alg] = d
	}
	if got := digests[attest.SHA512]; got != rel.Integrity {
		return nil, &DigestMismatchError{Package: "npm " + spec, Want: rel.Integrity, Got: got, Registry: true}
	}
	if want.Algorithm != "" && digests[want.Algorithm] != want {
		return nil, &DigestMismatchError{Package: "npm " + spec, Want: want, Got: digests[want.Algorithm]}
	}
	return digests, nil
}

// traversableTemp makes a private folder that other users may pass
// through but not list (0711): a runner that runs steps as another user
// binds folders inside it.
func traversableTemp(dir, pattern string) (string, error) {
	d, err := os.MkdirTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(d, 0o711); err != nil {
		_ = os.RemoveAll(d)
		return "", err
	}
	return d, nil
}
