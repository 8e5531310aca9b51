package serverjson

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/registry/pkg/model"
)

// CheckSubmission applies to a document that passed Parse the rules the
// official MCP registry (github.com/modelcontextprotocol/registry v1.8.9,
// internal/validators) enforces on publication beyond its JSON Schema:
//   - each part of the server name, the namespace before the slash and the
//     part after it, starts and ends with an ASCII letter or digit;
//   - the server version and every package version name one release: not
//     "latest", and not a range (comparators such as "^1.2" or ">=1 <2",
//     hyphen ranges "1.0.0 - 2.0.0", alternatives joined by "||", wildcards
//     "1.x", "1.X", "1.2.*", "*");
//   - a title is not only whitespace;
//   - a repository has a url and a source; with source "github" or
//     "gitlab" the url is a project on github.com or gitlab.com; a
//     subfolder is a clean relative path;
//   - websiteUrl and every icon src are absolute https URLs; websiteUrl
//     has none of the characters " ' < > space tab CR LF;
//   - a package identifier has no spaces;
//   - a named argument has a name, the name is the flag alone (no "<",
//     ">", space or "$"), and neither its value nor its default starts with
//     the name;
//   - a stdio package transport has no url;
//   - the url of an http transport (streamable-http or sse, package or
//     remote) is an http or https URL with a host once its {variables} are
//     filled in, and every {variable} is defined: for a package, as the name
//     of one of its environment variables or the name or valueHint of one of
//     its arguments; for a remote, as a key of the transport's "variables".
//
// It leaves out what the official registry checks by fetching from package
// registries (ownership), its own publishing permissions, and a few rules
// that would refuse the private and local servers mcpreg registers: see
// the package documentation.
//
// Parse does not apply these rules, so versions stored before them stay
// readable; submissions must pass both. CheckSubmission returns nil or a
// *ValidationError (matching ErrInvalid) listing every violation found, each
// at the JSON pointer of the offending value.
func CheckSubmission(doc *Document) error {
	if doc == nil {
		return newValidationError(Violation{Pointer: "", Message: "no server.json to check"})
	}
	var c checker
	s := &doc.Server
	c.name(s.Name)
	c.version("/version", "version", s.Version)
	if s.Title != "" && strings.TrimSpace(s.Title) == "" {
		c.add("/title", "title %q must not be only whitespace", s.Title)
	}
	if s.WebsiteURL != "" {
		c.httpsURL("/websiteUrl", "websiteUrl", s.WebsiteURL)
		if i := strings.IndexAny(s.WebsiteURL, websiteURLForbidden); i >= 0 {
			c.add("/websiteUrl", "websiteUrl %q must not contain the character %q (byte %d): percent-encode it",
				s.WebsiteURL, s.WebsiteURL[i], i)
		}
	}
	if s.Repository != nil {
		c.repository(s.Repository)
	}
	for i := range s.Icons {
		c.httpsURL(fmt.Sprintf("/icons/%d/src", i), "icon src", s.Icons[i].Src)
	}
	for i := range s.Packages {
		c.pkg(fmt.Sprintf("/packages/%d", i), &s.Packages[i])
	}
	for i := range s.Remotes {
		c.remote(fmt.Sprintf("/remotes/%d", i), &s.Remotes[i])
	}
	if len(c.vs) > 0 {
		return newValidationError(c.vs...)
	}
	return nil
}

// websiteURLForbidden are the characters the official registry refuses in
// websiteUrl: not valid in a URI, and trouble in an HTML attribute.
const websiteURLForbidden = "\"'<> \t\n\r"

// checker collects the violations CheckSubmission finds.
type checker struct {
	vs []Violation
}

func (c *checker) add(pointer, format string, args ...any) {
	c.vs = append(c.vs, Violation{Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// name requires both parts of the server name to start and end with a
// letter or digit (the schema's pattern already limits their characters).
func (c *checker) name(name string) {
	ns, part, ok := strings.Cut(name, "/")
	if !ok {
		return // the schema requires the slash
	}
	if !alnumEnds(ns) {
		c.add("/name", "server name namespace %q must start and end with a letter or digit", ns)
	}
	if !alnumEnds(part) {
		c.add("/name", "server name part %q (after the slash) must start and end with a letter or digit", part)
	}
}

func alnumEnds(s string) bool {
	return s != "" && isASCIIAlnum(s[0]) && isASCIIAlnum(s[len(s)-1])
}

func isASCIIAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// version refuses "latest" and ranges; field names the member in messages.
func (c *checker) version(pointer, field, v string) {
	if strings.TrimSpace(v) == "latest" {
		c.add(pointer, "%s %q is reserved: give the exact version of one release, not \"latest\"", field, v)
		return
	}
	if form := rangeForm(v); form != "" {
		c.add(pointer, "%s %q is a range (%s), not one version: give one exact version", field, v, form)
	}
}

// repository requires a url and a source, a url of the forge's form for
// the sources the official registry knows (unlike it, others are allowed:
// see doc.go), and a clean relative subfolder.
func (c *checker) repository(r *model.Repository) {
	if r.URL == "" {
		c.add("/repository/url", "repository url must not be empty")
	}
	if r.Source == "" {
		c.add("/repository/source", "repository source must not be empty")
	}
	if form, known := forgeURLForms[r.Source]; known && r.URL != "" && !isForgeURL(r.Source, r.URL) {
		c.add("/repository/url", "repository url %q must have the form %s for source %q", r.URL, form, r.Source)
	}
	if r.Subfolder != "" && !isCleanSubfolder(r.Subfolder) {
		c.add("/repository/subfolder", "repository subfolder %q must be a clean relative path: "+
			"letters, digits, \"-\", \"_\", \".\" and \"/\", no leading or trailing \"/\", no empty, \".\" or \"..\" segments", r.Subfolder)
	}
}

// forgeURLForms are the repository sources the official registry knows,
// with the url form each requires.
var forgeURLForms = map[string]string{
	"github": "http(s)://[www.]github.com/OWNER/REPO",
	"gitlab": "http(s)://[www.]gitlab.com/GROUP[/SUBGROUP...]/PROJECT",
}

// isForgeURL reports whether raw is a project url on source's forge
// (source is "github" or "gitlab"): http or https, optionally "www.", the
// forge's host, then path segments of letters, digits, "_", "." and "-"
// (exactly two on GitHub; two or more on GitLab, where no segment may be
// "-", the separator of GitLab's own routes), and optionally one final "/".
func isForgeURL(source, raw string) bool {
	rest, ok := strings.CutPrefix(raw, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(raw, "http://")
	}
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(strings.TrimPrefix(rest, "www."), source+".com/")
	if !ok {
		return false
	}
	segs := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	if len(segs) < 2 || source == "github" && len(segs) != 2 {
		return false
	}
	for _, seg := range segs {
		if !isPathSegment(seg) || source == "gitlab" && seg == "-" {
			return false
		}
	}
	return true
}

// isCleanSubfolder reports whether p is a relative path of letters,
// digits, "-", "_", "." and "/" without a leading or trailing "/" and
// without empty, "." or ".." segments.
func isCleanSubfolder(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if !isPathSegment(seg) || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// isPathSegment reports whether seg is one or more ASCII letters, digits,
// "_", "." and "-".
func isPathSegment(seg string) bool {
	for i := 0; i < len(seg); i++ {
		if b := seg[i]; !isASCIIAlnum(b) && b != '_' && b != '.' && b != '-' {
			return false
		}
	}
	return seg != ""
}

// httpsURL requires an absolute https URL.
func (c *checker) httpsURL(pointer, field, raw string) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		c.add(pointer, "%s %q must be an absolute https URL: it does not parse (%v)", field, raw, err)
		return
	}
	switch {
	case !u.IsAbs():
		c.add(pointer, "%s %q must be an absolute https URL: it has no scheme", field, raw)
	case u.Scheme != "https":
		c.add(pointer, "%s %q must be an absolute https URL: scheme %q is not allowed", field, raw, u.Scheme)
	}
}

// pkg checks one package at pointer base.
func (c *checker) pkg(base string, p *model.Package) {
	if strings.Contains(p.Identifier, " ") {
		c.add(base+"/identifier", "package identifier %q must not contain spaces", p.Identifier)
	}
	c.version(base+"/version", "package version", p.Version)
	for i := range p.RuntimeArguments {
		c.argument(fmt.Sprintf("%s/runtimeArguments/%d", base, i), &p.RuntimeArguments[i])
	}
	for i := range p.PackageArguments {
		c.argument(fmt.Sprintf("%s/packageArguments/%d", base, i), &p.PackageArguments[i])
	}
	t := &p.Transport
	switch t.Type {
	case model.TransportTypeStdio:
		if t.URL != "" {
			c.add(base+"/transport/url", "stdio transport url %q is not allowed: a stdio transport has no url", t.URL)
		}
	case model.TransportTypeStreamableHTTP, model.TransportTypeSSE:
		c.templatedURL(base+"/transport/url", "package transport url", t.URL, packageVariables(p),
			"a package transport url variable must be the name of one of the package's environment variables or the name or valueHint of one of its arguments")
	}
}

// argument checks a named argument; the schema covers positional ones
// (value or valueHint) and unknown types.
func (c *checker) argument(base string, a *model.Argument) {
	if a.Type != model.ArgumentTypeNamed {
		return
	}
	if a.Name == "" {
		c.add(base+"/name", "named argument name must not be empty")
		return
	}
	if i := strings.IndexAny(a.Name, "<> $"); i >= 0 {
		c.add(base+"/name", "named argument name %q must be the flag alone, without '<', '>', '$' or spaces (found %q)", a.Name, a.Name[i])
	}
	if a.Value != "" && strings.HasPrefix(a.Value, a.Name) {
		c.add(base+"/value", "named argument value %q must not start with the argument name %q: give the flag in \"name\" and only its value here", a.Value, a.Name)
	}
	if a.Default != "" && strings.HasPrefix(a.Default, a.Name) {
		c.add(base+"/default", "named argument default %q must not start with the argument name %q: give the flag in \"name\" and only its value here", a.Default, a.Name)
	}
}

// remote checks the url of a remote transport. Unlike the official
// registry, it allows http and local hosts (see doc.go).
func (c *checker) remote(base string, t *model.Transport) {
	if t.Type != model.TransportTypeStreamableHTTP && t.Type != model.TransportTypeSSE {
		return // the schema allows no other remote type
	}
	defined := make([]string, 0, len(t.Variables))
	for name := range t.Variables {
		defined = append(defined, name)
	}
	c.templatedURL(base+"/url", "remote url", t.URL, defined,
		`a remote url variable must be a key of the transport's "variables"`)
}

// packageVariables are the names a package transport url may use: its
// environment variables' names and its arguments' names and valueHints.
func packageVariables(p *model.Package) []string {
	var names []string
	for _, e := range p.EnvironmentVariables {
		names = append(names, e.Name)
	}
	for _, args := range [][]model.Argument{p.RuntimeArguments, p.PackageArguments} {
		for _, a := range args {
			for _, n := range []string{a.Name, a.ValueHint} {
				if n != "" {
					names = append(names, n)
				}
			}
		}
	}
	return names
}

// templatedURL requires raw to be an http(s) URL with a host once its
// template variables are filled in, and every variable to be defined.
func (c *checker) templatedURL(pointer, field, raw string, defined []string, rule string) {
	if !httpURLWithHost(fillTemplate(raw)) {
		c.add(pointer, "%s %q must be an http or https URL with a host once its {variables} are filled in", field, raw)
		return
	}
	var undefined []string
	for _, v := range templateVariables(raw) {
		if name := "{" + v.name + "}"; !slices.Contains(defined, v.name) && !slices.Contains(undefined, name) {
			undefined = append(undefined, name)
		}
	}
	if len(undefined) == 0 {
		return
	}
	have := "none are defined"
	if len(defined) > 0 {
		have = "defined: " + strings.Join(slices.Compact(slices.Sorted(slices.Values(defined))), ", ")
	}
	c.add(pointer, "%s %q uses undefined template variable %s; %s (%s)", field, raw, strings.Join(undefined, ", "), rule, have)
}
