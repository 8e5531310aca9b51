package fetch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// hiddenLockfile is where npm records the tree it installed.
const hiddenLockfile = "node_modules/.package-lock.json"

// checkInstalled reads npm's record of what it installed in pkgDir and
// refuses any package that did not come from the registry as a tarball:
// a link, or one resolved from git, a path or another host (a dependency
// of a dependency may ask for those).
func checkInstalled(pkgDir, spec string, reg *url.URL) error {
	data, err := os.ReadFile(filepath.Join(pkgDir, hiddenLockfile))
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(pkgDir, "node_modules")); errors.Is(err, fs.ErrNotExist) {
			return nil // nothing installed
		}
		return fmt.Errorf("%w: %s: npm left no %s, so what it installed cannot be checked", ErrFetch, spec, hiddenLockfile)
	} else if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrFetch, spec, err)
	}
	var lock struct {
		Packages map[string]struct {
			Resolved string `json:"resolved"`
			Link     bool   `json:"link"`
			InBundle bool   `json:"inBundle"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		return fmt.Errorf("%w: %s: %s: %w", ErrFetch, spec, hiddenLockfile, err)
	}
	for _, where := range sortedKeys(lock.Packages) {
		p := lock.Packages[where]
		switch {
		case p.Link:
			return &DependencySpecError{Package: spec, Where: "installed", Dependency: where, Spec: "link to " + p.Resolved}
		case p.Resolved == "" && p.InBundle:
		case !strings.HasPrefix(p.Resolved, reg.String()):
			return &DependencySpecError{Package: spec, Where: "installed", Dependency: where, Spec: p.Resolved}
		}
	}
	return nil
}
