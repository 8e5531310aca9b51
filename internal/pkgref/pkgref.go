package pkgref

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/Masterminds/semver/v3"
	"github.com/google/go-containerregistry/pkg/name"
)

// ErrInvalid marks an identifier or version its registry type does not allow.
var ErrInvalid = errors.New("invalid package reference")

// Registry types with a grammar of their own; others get the generic check.
const (
	NPM   = "npm"
	PyPI  = "pypi"
	OCI   = "oci"
	NuGet = "nuget"
)

// maxLen bounds every identifier and version.
const maxLen = 255

var (
	// npmName follows npm's rules for new packages: lower case, URL-safe,
	// optionally scoped, at most 214 characters, no leading "." "_" or "-".
	npmName = regexp.MustCompile(`^(@[a-z0-9~][a-z0-9._~-]*/)?[a-z0-9~][a-z0-9._~-]*$`)
	// pypiName is PEP 508's name grammar alone: no extras, markers or URLs.
	pypiName = regexp.MustCompile(`(?i)^([a-z0-9]|[a-z0-9][a-z0-9._-]*[a-z0-9])$`)
	// pypiVersion is PEP 440's public version grammar (its appendix), whole:
	// an exact version, never a specifier.
	pypiVersion = regexp.MustCompile(`(?i)^v?([0-9]+!)?[0-9]+(\.[0-9]+)*` +
		`([-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?` +
		`((-[0-9]+)|([-_.]?(post|rev|r)[-_.]?[0-9]*))?` +
		`([-_.]?dev[-_.]?[0-9]*)?` +
		`(\+[a-z0-9]+([-_.][a-z0-9]+)*)?$`)
	// ociTag is the distribution grammar's tag.
	ociTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	// nugetID is a NuGet package id.
	nugetID = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$`)
)

// Validate checks a package's identifier and version for its registry type.
// The version may be empty where the type allows it (OCI references carry
// their tag or digest).
func Validate(registryType, identifier, version string) error {
	for what, v := range map[string]string{"identifier": identifier, "version": version} {
		if err := generic(what, v); err != nil {
			return err
		}
	}
	switch registryType {
	case NPM:
		return validateNPM(identifier, version)
	case PyPI:
		return validatePyPI(identifier, version)
	case OCI:
		return validateOCI(identifier, version)
	case NuGet:
		if !nugetID.MatchString(identifier) {
			return invalid("identifier", identifier, "a NuGet package id (letters, digits, _ . -)")
		}
		return nil
	}
	if identifier == "" {
		return invalid("identifier", identifier, "a non-empty identifier")
	}
	return nil
}

// generic is what every registry type must satisfy: short, printable, no
// spaces, and never starting with "-".
func generic(what, v string) error {
	switch {
	case len(v) > maxLen:
		return fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrInvalid, what, len(v), maxLen)
	case strings.HasPrefix(v, "-"):
		return invalid(what, v, "no leading '-' (it would be read as an option)")
	case strings.IndexFunc(v, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0:
		return invalid(what, v, "no spaces or control characters")
	}
	return nil
}

func validateNPM(identifier, version string) error {
	if len(identifier) > 214 || !npmName.MatchString(identifier) {
		return invalid("identifier", identifier, "an npm package name (lower case, optionally @scope/, at most 214 characters)")
	}
	if _, err := semver.StrictNewVersion(version); err != nil {
		return invalid("version", version, "an exact npm version (semantic version, no range or tag)")
	}
	return nil
}

func validatePyPI(identifier, version string) error {
	if !pypiName.MatchString(identifier) {
		return invalid("identifier", identifier, "a PyPI project name (PEP 508 name only: no extras, markers or URLs)")
	}
	if !pypiVersion.MatchString(version) {
		return invalid("version", version, "an exact PEP 440 version (no specifiers)")
	}
	return nil
}

func validateOCI(identifier, version string) error {
	if _, err := name.ParseReference(identifier); err != nil {
		return invalid("identifier", identifier, fmt.Sprintf("an OCI image reference (%v)", err))
	}
	if version != "" && !ociTag.MatchString(version) {
		return invalid("version", version, "an OCI tag")
	}
	return nil
}

func invalid(what, v, want string) error {
	return fmt.Errorf("%w: %s %q: want %s", ErrInvalid, what, v, want)
}
