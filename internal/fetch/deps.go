package fetch

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// DependencySpecError is a package that depends on something other than a
// version, range or tag of a package in the npm registry: a git
// repository, a GitHub shorthand, a local path, a link, a tarball URL, a
// workspace, or an alias to one of these. npm would reach outside the
// registry to install it, and runs git and other programs to do so; the
// package is refused before npm runs.
type DependencySpecError struct {
	// Package is name@version of the package being prepared.
	Package string
	// Where is the field: "dependencies", "overrides", or for a package
	// bundled in the tarball its package.json path and field.
	Where string
	// Dependency is the dependency's name and Spec what it asks for.
	Dependency string
	Spec       string
}

func (e *DependencySpecError) Error() string {
	return fmt.Sprintf("npm %s: %s %q is %.200q, which is not a version, range or tag in the npm registry "+
		"(dependencies from git, GitHub, local paths, links, URLs, workspaces or aliases to them are refused)",
		e.Package, e.Where, e.Dependency, e.Spec)
}

// Unwrap makes a DependencySpecError a fetch error.
func (e *DependencySpecError) Unwrap() error { return ErrFetch }

// dependencyFields are the package.json fields whose specs npm resolves.
// npm resolves the root's devDependencies too, even with --omit=dev.
var (
	rootDependencyFields    = []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies"}
	bundledDependencyFields = []string{"dependencies", "optionalDependencies", "peerDependencies"}
)

// distTag is a spec npm looks up as a dist-tag in the registry (no dots:
// npm reads "x.tgz" as a file).
var distTag = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// rangeChars are the only characters of a semver range.
var rangeChars = regexp.MustCompile(`^[0-9A-Za-z.+^~<>=|* \t-]+$`)

// registrySpec reports whether spec names a version, range or tag in the
// npm registry, directly or through an npm: alias.
func registrySpec(spec string) bool {
	spec = strings.TrimSpace(spec)
	if rest, ok := strings.CutPrefix(spec, "npm:"); ok {
		at := strings.LastIndex(rest, "@")
		if at <= 0 {
			return npmName.MatchString(rest)
		}
		return npmName.MatchString(rest[:at]) && !strings.HasPrefix(rest[at+1:], "npm:") && registrySpec(rest[at+1:])
	}
	switch {
	case spec == "" || spec == "*":
		return true
	case distTag.MatchString(spec):
		return true
	case !rangeChars.MatchString(spec):
		return false
	}
	_, err := semver.NewConstraint(spec)
	return err == nil
}

// checkDependencies refuses a package in pkgDir (unpacked, not installed)
// whose package.json, or that of a package bundled in it, asks npm for
// anything but registry packages. spec is name@version, for errors.
func checkDependencies(pkgDir, spec string) error {
	if err := checkManifest(filepath.Join(pkgDir, "package.json"), spec, "", rootDependencyFields); err != nil {
		return err
	}
	modules := filepath.Join(pkgDir, "node_modules")
	return filepath.WalkDir(modules, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == modules && os.IsNotExist(err) {
				return nil
			}
			return fmt.Errorf("%w: %s: %w", ErrFetch, spec, err)
		}
		if d.Name() != "package.json" || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(pkgDir, p)
		return checkManifest(p, spec, filepath.ToSlash(rel)+" ", bundledDependencyFields)
	})
}

func checkManifest(file, spec, prefix string, fields []string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrFetch, spec, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("%w: %s: %s: %w", ErrFetch, spec, filepath.Base(file), err)
	}
	for _, f := range fields {
		if err := checkSpecs(raw[f], spec, prefix+f); err != nil {
			return err
		}
	}
	if w := raw["workspaces"]; len(w) > 0 && string(w) != "null" {
		return &DependencySpecError{Package: spec, Where: prefix + "workspaces", Dependency: "workspaces", Spec: string(w)}
	}
	return checkOverrides(raw["overrides"], spec, prefix+"overrides")
}

// checkSpecs checks one dependency object.
func checkSpecs(obj json.RawMessage, spec, where string) error {
	if len(obj) == 0 || string(obj) == "null" {
		return nil
	}
	var deps map[string]any
	if err := json.Unmarshal(obj, &deps); err != nil {
		return fmt.Errorf("%w: %s: package.json %s is not an object: %w", ErrFetch, spec, where, err)
	}
	for _, name := range sortedKeys(deps) {
		s, ok := deps[name].(string)
		if !ok || !registrySpec(s) {
			return &DependencySpecError{Package: spec, Where: where, Dependency: name, Spec: fmt.Sprint(deps[name])}
		}
	}
	return nil
}

// checkOverrides checks npm's overrides, which may replace any dependency
// in the tree: every value is a registry spec or a "$name" reference.
func checkOverrides(obj json.RawMessage, spec, where string) error {
	if len(obj) == 0 || string(obj) == "null" {
		return nil
	}
	var v any
	if err := json.Unmarshal(obj, &v); err != nil {
		return fmt.Errorf("%w: %s: package.json %s: %w", ErrFetch, spec, where, err)
	}
	return walkOverrides(v, spec, where, "")
}

func walkOverrides(v any, spec, where, key string) error {
	switch v := v.(type) {
	case string:
		if ref, ok := strings.CutPrefix(v, "$"); ok && npmName.MatchString(ref) {
			return nil
		}
		if registrySpec(v) {
			return nil
		}
	case map[string]any:
		for _, k := range sortedKeys(v) {
			if err := walkOverrides(v[k], spec, where, k); err != nil {
				return err
			}
		}
		return nil
	}
	return &DependencySpecError{Package: spec, Where: where, Dependency: key, Spec: fmt.Sprint(v)}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
