package attest

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/package-url/packageurl-go"
)

// Package is what an artifact is: a package of a registry type, by name
// and version, as a server.json package entry gives it. An in-toto
// statement about the artifact must name it in a subject.
type Package struct {
	// RegistryType is "npm", "oci", "pypi" or "mcpb".
	RegistryType string
	// Identifier is the package name: the npm name (scoped or not), the OCI
	// image reference, the PyPI project name, or the MCPB file's URL.
	Identifier string
	Version    string
}

// String is "TYPE IDENTIFIER VERSION", e.g. "npm @acme/weather 1.2.0".
func (p Package) String() string {
	return strings.TrimSpace(p.RegistryType + " " + p.Identifier + " " + p.Version)
}

// want describes the subject name a statement about p needs.
func (p Package) want() string {
	switch p.RegistryType {
	case "npm":
		return "pkg:npm/" + strings.Replace(p.Identifier, "@", "%40", 1) + "@" + p.Version
	case "oci":
		return "the repository " + ociRepository(p.Identifier)
	case "pypi":
		return "a wheel or sdist file of " + p.Identifier + " " + p.Version
	case "mcpb":
		return "the file " + path.Base(p.Identifier)
	}
	return p.String()
}

// For binds the artifact to a package: an in-toto statement must then have
// a subject that names pkg and carries the artifact's digest. Bundles that
// sign a message digest name no package and bind by digest alone.
func (a Artifact) For(pkg Package) Artifact {
	a.pkg = &pkg
	return a
}

// names reports whether an in-toto subject name names p; why says what
// was wrong with it otherwise.
func (p Package) names(subject string) (ok bool, why string) {
	switch p.RegistryType {
	case "npm":
		return p.namesNPM(subject)
	case "oci":
		return p.namesOCI(subject)
	case "pypi":
		return p.namesPyPI(subject)
	case "mcpb":
		return subject == path.Base(p.Identifier), ""
	}
	return false, fmt.Sprintf("no rule ties an in-toto subject to a %q package; attach a message-signature bundle instead", p.RegistryType)
}

// namesNPM accepts the purl npm provenance uses, pkg:npm/NAME@VERSION,
// with the scope's "@" percent-encoded (as npm writes it) or not.
// Qualifiers (another registry) and subpaths name other artifacts.
func (p Package) namesNPM(subject string) (bool, string) {
	u, err := packageurl.FromString(subject)
	if err != nil || u.Type != packageurl.TypeNPM {
		return false, ""
	}
	if len(u.Qualifiers) > 0 || u.Subpath != "" {
		return false, fmt.Sprintf("subject %q has qualifiers or a subpath: it names an artifact other than the package on the registry's npm", subject)
	}
	full := u.Name
	if u.Namespace != "" {
		full = u.Namespace + "/" + u.Name
	}
	return strings.EqualFold(full, p.Identifier) && u.Version == p.Version, ""
}

// namesOCI accepts the image's repository, normalised as registries do
// (docker.io/library/...), with or without a tag or digest.
func (p Package) namesOCI(subject string) (bool, string) {
	want := ociRepository(p.Identifier)
	ref, err := name.ParseReference(subject, name.WeakValidation)
	if err != nil {
		repo, rerr := name.NewRepository(subject, name.WeakValidation)
		if rerr != nil {
			return false, ""
		}
		return want != "" && repo.Name() == want, ""
	}
	return want != "" && ref.Context().Name() == want, ""
}

func ociRepository(identifier string) string {
	ref, err := name.ParseReference(identifier, name.WeakValidation)
	if err != nil {
		return ""
	}
	return ref.Context().Name()
}

// pypiSeparators are what PEP 503 folds into one "-".
var pypiSeparators = regexp.MustCompile(`[-_.]+`)

func pypiName(s string) string { return strings.ToLower(pypiSeparators.ReplaceAllString(s, "-")) }

// namesPyPI accepts a distribution file of the project and version: a
// wheel NAME-VERSION(-BUILD)?-PY-ABI-PLATFORM.whl or an sdist
// NAME-VERSION.tar.gz (or .zip), names compared normalised (PEP 503).
func (p Package) namesPyPI(subject string) (bool, string) {
	if strings.ContainsAny(subject, "/\\") {
		return false, ""
	}
	var project, version string
	switch {
	case strings.HasSuffix(subject, ".whl"):
		parts := strings.Split(strings.TrimSuffix(subject, ".whl"), "-")
		if len(parts) != 5 && len(parts) != 6 {
			return false, ""
		}
		project, version = parts[0], strings.ReplaceAll(parts[1], "_", "-")
	case strings.HasSuffix(subject, ".tar.gz"), strings.HasSuffix(subject, ".zip"):
		stem := strings.TrimSuffix(strings.TrimSuffix(subject, ".tar.gz"), ".zip")
		i := strings.LastIndex(stem, "-")
		if i <= 0 {
			return false, ""
		}
		project, version = stem[:i], stem[i+1:]
	default:
		return false, ""
	}
	return pypiName(project) == pypiName(p.Identifier) && strings.EqualFold(version, p.Version), ""
}

// checkPackage wants a subject of the verified statement that names the
// artifact's package and carries its digest. A statement about another
// artifact is refused naming both.
func (c *check) checkPackage(subjects []Subject) error {
	pkg := c.artifact.pkg
	if pkg == nil {
		return nil
	}
	var named, why []string
	for _, s := range subjects {
		ok, reason := pkg.names(s.Name)
		if reason != "" {
			why = append(why, reason)
		}
		if !ok {
			continue
		}
		if c.subjectHasDigest(s) {
			return nil
		}
		named = append(named, s.Name)
	}
	all := make([]string, len(subjects))
	for i, s := range subjects {
		all[i] = fmt.Sprintf("%q", s.Name)
	}
	if len(named) > 0 {
		return failf(ErrVerification, "the in-toto statement's subject %s names package %s but not with artifact digest %s",
			strings.Join(named, ", "), pkg, c.artifact.Digest())
	}
	msg := fmt.Sprintf("the in-toto statement is about %s, not about package %s (want a subject %s with digest %s)",
		strings.Join(all, ", "), pkg, pkg.want(), c.artifact.Digest())
	if len(why) > 0 {
		msg += ": " + strings.Join(why, "; ")
	}
	return failf(ErrVerification, "%s", msg)
}

func (c *check) subjectHasDigest(s Subject) bool {
	for alg, hx := range s.Digest {
		if got, ok := c.artifact.digestIn(alg); ok && strings.EqualFold(fmt.Sprintf("%x", got), hx) {
			return true
		}
	}
	return false
}
