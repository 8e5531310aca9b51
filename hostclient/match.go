package hostclient

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/mcpreg/mcpreg/discovery"
)

// How a configured server was matched to an allowlist entry.
const (
	MatchByName    = "name"    // its alias is the registry name
	MatchByRemote  = "remote"  // its URL is one of the entry's remotes
	MatchByPackage = "package" // its command line names the entry's package
)

// MatchResult is the allowlist entry a configured server stands for.
type MatchResult struct {
	// Entry is nil when no entry matches: the server is unapproved.
	Entry *discovery.Entry
	By    string
	// Detail says why nothing matched, or a caveat about the match.
	Detail string
}

// Match finds the entry of doc that s stands for: the entry named like its
// alias, else (HTTP) the entry with its URL among its remotes, else (stdio)
// the entry whose npm or PyPI package its command line names. A match by
// name is refused when the configuration contradicts the entry (a URL that
// is not one of its remotes, another version of its package); a package
// named with an explicit version must name the approved one.
func Match(doc *discovery.Document, s ServerConfig) MatchResult {
	for i := range doc.Servers {
		if doc.Servers[i].Name == s.Name {
			return matchNamed(&doc.Servers[i], s)
		}
	}
	if s.URL != "" {
		for i := range doc.Servers {
			if hasRemote(&doc.Servers[i], s.URL) {
				return MatchResult{Entry: &doc.Servers[i], By: MatchByRemote}
			}
		}
		return MatchResult{Detail: fmt.Sprintf("no approved server is named %q or has the remote %s", s.Name, s.URL)}
	}
	detail := fmt.Sprintf("no approved server is named %q or started by %q", s.Name, s.Command)
	if rt, spec := launchedPackage(s); spec != "" {
		detail = fmt.Sprintf("no approved server is named %q or runs the %s package %s", s.Name, rt, spec)
	}
	for i := range doc.Servers {
		found, version, problem := findPackage(&doc.Servers[i], s)
		switch {
		case found && problem == "":
			return MatchResult{Entry: &doc.Servers[i], By: MatchByPackage, Detail: unpinnedNote(version, &doc.Servers[i])}
		case found:
			detail = problem
		}
	}
	return MatchResult{Detail: detail}
}

// matchNamed checks that s does not contradict the entry named like it.
func matchNamed(e *discovery.Entry, s ServerConfig) MatchResult {
	m := MatchResult{Entry: e, By: MatchByName}
	if s.URL != "" {
		switch {
		case len(e.Remotes) > 0 && !hasRemote(e, s.URL):
			return MatchResult{Detail: fmt.Sprintf("named %s, but %s is not one of its approved remotes", e.Name, s.URL)}
		case len(e.Remotes) == 0:
			m.Detail = "the registry lists no remote for it; only its tools are checked"
		}
		return m
	}
	found, version, problem := findPackage(e, s)
	switch {
	case problem != "":
		return MatchResult{Detail: problem}
	case found:
		m.Detail = unpinnedNote(version, e)
	case len(e.Packages) > 0:
		m.Detail = "the command does not name its package; only its tools are checked"
	}
	return m
}

// unpinnedNote warns when a command line names a package without a version.
func unpinnedNote(version string, e *discovery.Entry) string {
	if version != "" {
		return ""
	}
	return fmt.Sprintf("the command names no version; the package manager may run another one than %s", e.Version)
}

// hasRemote reports whether rawURL is one of e's remotes.
func hasRemote(e *discovery.Entry, rawURL string) bool {
	want := normalURL(rawURL)
	for _, r := range e.Remotes {
		if normalURL(r.URL) == want {
			return true
		}
	}
	return false
}

// normalURL spells a URL one way: lower-case scheme and host, no default
// port, no trailing slash, no fragment.
func normalURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	out := scheme + "://" + host + strings.TrimSuffix(u.EscapedPath(), "/")
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out
}

// findPackage looks for one of e's npm or PyPI packages on s's command
// line. found says one was named; version is the version named with it
// ("" for none); problem says it names another version than approved.
func findPackage(e *discovery.Entry, s ServerConfig) (found bool, version, problem string) {
	words := append([]string{s.Command}, s.Args...)
	for _, p := range e.Packages {
		for _, w := range words {
			name, v, ok := packageSpec(p.RegistryType, w)
			if !ok || name != packageName(p.RegistryType, p.Identifier) {
				continue
			}
			if v != "" && p.Version != "" && v != p.Version {
				return true, v, fmt.Sprintf("runs %s version %s; the approved version of %s is %s (%s)", p.Identifier, v, e.Name, e.Version, p.Version)
			}
			return true, v, ""
		}
	}
	return false, "", ""
}

// packageSpec splits a command-line word such as "@scope/pkg@1.2.3",
// "--package=pkg@1.2.3" or "pkg==1.2.3" into a package name (normalised
// like packageName) and version, for the registry types it knows.
func packageSpec(registryType, word string) (name, version string, ok bool) {
	word = strings.TrimPrefix(word, "--package=")
	if word == "" || strings.HasPrefix(word, "-") {
		return "", "", false
	}
	switch registryType {
	case "npm":
		if at := strings.LastIndex(word, "@"); at > 0 {
			return word[:at], word[at+1:], true
		}
		return word, "", true
	case "pypi":
		if i := strings.Index(word, "=="); i > 0 {
			return packageName("pypi", word[:i]), word[i+2:], true
		}
		if at := strings.LastIndex(word, "@"); at > 0 {
			return packageName("pypi", word[:at]), word[at+1:], true
		}
		return packageName("pypi", word), "", true
	}
	return "", "", false
}

var pypiSeparators = regexp.MustCompile(`[-_.]+`)

// packageName normalises a package name: PyPI names compare as PEP 503
// says (case-insensitive, runs of "-", "_", "." equal), without extras.
func packageName(registryType, name string) string {
	if registryType != "pypi" {
		return name
	}
	if i := strings.Index(name, "["); i >= 0 {
		name = name[:i]
	}
	return pypiSeparators.ReplaceAllString(strings.ToLower(name), "-")
}

// launchers are the commands that run a package by name, and the registry
// type of the package.
var launchers = map[string]string{"npx": "npm", "bunx": "npm", "pnpx": "npm", "uvx": "pypi", "pipx": "pypi"}

// launchedPackage is the package a launcher command line runs ("npx -y
// @acme/weather-mcp@1.2.0": npm, "@acme/weather-mcp@1.2.0"), so an
// unapproved server is named by what it runs rather than by "npx".
func launchedPackage(s ServerConfig) (registryType, spec string) {
	rt, ok := launchers[path.Base(s.Command)]
	if !ok {
		return "", ""
	}
	for i := 0; i < len(s.Args); i++ {
		a := s.Args[i]
		switch {
		case a == "run" && rt == "pypi" && i == 0: // pipx run
		case a == "-p" || a == "--package" || a == "--from":
			if i+1 < len(s.Args) {
				return rt, s.Args[i+1]
			}
		case strings.HasPrefix(a, "--package=") || strings.HasPrefix(a, "--from="):
			_, v, _ := strings.Cut(a, "=")
			return rt, v
		case strings.HasPrefix(a, "-"):
		default:
			return rt, a
		}
	}
	return "", ""
}

// ErrNotThePackage says a command line does not run the approved package
// of the server it claims to be.
var ErrNotThePackage = errors.New("the command does not run the approved package")

// MatchPackage checks that a command line runs one of e's npm or PyPI
// packages, with the matching of Match (a version named on the command
// line must be the approved one). note warns when no version is named.
// Unlike Match it never settles for the name alone: a binary that is not
// the approved package must not run under an approved name.
func MatchPackage(e *discovery.Entry, command string, args []string) (note string, err error) {
	s := ServerConfig{Name: e.Name, Command: command, Args: args}
	found, version, problem := findPackage(e, s)
	switch {
	case problem != "":
		return "", fmt.Errorf("%w: %s", ErrNotThePackage, problem)
	case !found && len(e.Packages) == 0:
		return "", fmt.Errorf("%w: %s@%s has no package, only remotes", ErrNotThePackage, e.Name, e.Version)
	case !found:
		return "", fmt.Errorf("%w: %q runs none of the packages of %s@%s (%s)", ErrNotThePackage,
			strings.Join(append([]string{command}, args...), " "), e.Name, e.Version, packageList(e))
	}
	return unpinnedNote(version, e), nil
}

// ErrNotARemote is MatchRemote's error: the URL is none of the approved
// version's remotes.
var ErrNotARemote = errors.New("the URL is not an approved remote")

// MatchRemote checks that rawURL is one of e's remotes (spelled either
// way: case of scheme and host, default port, trailing slash).
func MatchRemote(e *discovery.Entry, rawURL string) error {
	if hasRemote(e, rawURL) {
		return nil
	}
	urls := make([]string, len(e.Remotes))
	for i, r := range e.Remotes {
		urls[i] = r.URL
	}
	if len(urls) == 0 {
		return fmt.Errorf("%w: %s@%s has no remote, only packages", ErrNotARemote, e.Name, e.Version)
	}
	return fmt.Errorf("%w: %s is none of the remotes of %s@%s (%s)", ErrNotARemote, rawURL, e.Name, e.Version, strings.Join(urls, ", "))
}

// packageList names e's packages, e.g. "npm @acme/weather-mcp@1.2.0".
func packageList(e *discovery.Entry) string {
	parts := make([]string, len(e.Packages))
	for i, p := range e.Packages {
		parts[i] = p.RegistryType + " " + p.Identifier
		if p.Version != "" {
			parts[i] += "@" + p.Version
		}
	}
	return strings.Join(parts, ", ")
}
