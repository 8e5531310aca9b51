package serverjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiv0 "github.com/modelcontextprotocol/registry/pkg/api/v0"
	"github.com/modelcontextprotocol/registry/pkg/model"
)

// submissionBase is a server.json that Parse and CheckSubmission both
// accept, using every part the submission rules look at: a title, a
// websiteUrl, a repository, an icon, a package with a templated http transport, a named
// and a positional argument, and a remote with a url variable.
const submissionBase = `{` + schemaMember + `,
 "name": "io.github.acme/weather",
 "description": "Weather forecasts",
 "title": "Acme Weather",
 "version": "1.0.0",
 "websiteUrl": "https://acme.example/weather",
 "repository": {"url": "https://github.com/acme/mcp-servers", "source": "github", "subfolder": "servers/weather"},
 "icons": [{"src": "https://acme.example/icon.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "light"}],
 "packages": [{
  "registryType": "npm", "identifier": "@acme/weather", "version": "1.0.0",
  "transport": {"type": "streamable-http", "url": "http://localhost:{PORT}/mcp"},
  "environmentVariables": [{"name": "PORT"}],
  "runtimeArguments": [{"type": "named", "name": "--port", "value": "8080"}],
  "packageArguments": [{"type": "positional", "valueHint": "config_path"}]
 }],
 "remotes": [{"type": "streamable-http", "url": "https://{tenant}.acme.example/mcp",
  "variables": {"tenant": {"description": "Tenant"}}}]
}`

// mutated is submissionBase changed by f, which edits the decoded tree.
func mutated(t *testing.T, f func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(submissionBase), &doc); err != nil {
		t.Fatal(err)
	}
	if f != nil {
		f(doc)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// at walks doc by member names and array indexes to an object.
func at(doc any, path ...any) map[string]any {
	for _, step := range path {
		switch s := step.(type) {
		case string:
			doc = doc.(map[string]any)[s]
		case int:
			doc = doc.([]any)[s]
		}
	}
	return doc.(map[string]any)
}

// set returns a mutation setting member name of the object at path.
func set(name string, value any, path ...any) func(map[string]any) {
	return func(doc map[string]any) { at(doc, path...)[name] = value }
}

var (
	pkg0    = []any{"packages", 0}
	runArg0 = []any{"packages", 0, "runtimeArguments", 0}
	pkgArg0 = []any{"packages", 0, "packageArguments", 0}
)

// submissionViolation requires err to be a *ValidationError matching
// ErrInvalid, and returns its violations.
func submissionViolations(t *testing.T, err error) []Violation {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want a *ValidationError matching ErrInvalid", err)
	}
	return ve.Violations
}

func TestSubmissionBaseIsValid(t *testing.T) {
	doc := mustParse(t, mutated(t, nil))
	if err := CheckSubmission(doc); err != nil {
		t.Fatal(err)
	}
}

// TestCheckSubmissionRules has one case per rule of the official
// registry's validators that goes beyond its JSON Schema, each a single
// change to submissionBase. Rules the embedded schema already enforces
// (bySchema) are refused by Parse; the others only by CheckSubmission, and
// Parse must keep accepting them so stored versions stay readable.
func TestCheckSubmissionRules(t *testing.T) {
	tests := []struct {
		rule     string
		mutate   func(map[string]any)
		pointer  string
		words    []string // the message names the rule and the field
		bySchema bool
	}{
		{rule: "name namespace starts and ends with a letter or digit", mutate: set("name", "-acme.example/weather"),
			pointer: "/name", words: []string{"namespace", `"-acme.example"`, "must start and end with a letter or digit"}},
		{rule: "name part starts and ends with a letter or digit", mutate: set("name", "io.github.acme/weather_"),
			pointer: "/name", words: []string{"server name part", `"weather_"`, "must start and end with a letter or digit"}},
		{rule: "version is not latest", mutate: set("version", "latest"),
			pointer: "/version", words: []string{`version "latest" is reserved`}},
		{rule: "version is not a range", mutate: set("version", ">=1.0.0"),
			pointer: "/version", words: []string{`version ">=1.0.0" is a range`, `comparator ">="`, "give one exact version"}},
		{rule: "package version is not latest", mutate: set("version", "latest", pkg0...),
			pointer: "/packages/0/version", words: []string{`"latest" is not allowed`}, bySchema: true},
		{rule: "package version is not a range", mutate: set("version", "1.x", pkg0...),
			pointer: "/packages/0/version", words: []string{`package version "1.x" is a range`, `wildcard "x"`}},
		{rule: "title is not only whitespace", mutate: set("title", " \t "),
			pointer: "/title", words: []string{"title", "must not be only whitespace"}},
		{rule: "websiteUrl is absolute", mutate: set("websiteUrl", "acme.example/weather"),
			pointer: "/websiteUrl", words: []string{"not valid uri"}, bySchema: true},
		{rule: "websiteUrl uses https", mutate: set("websiteUrl", "http://acme.example/weather"),
			pointer: "/websiteUrl", words: []string{"websiteUrl", "must be an absolute https URL", `scheme "http"`}},
		{rule: "websiteUrl has no invalid characters", mutate: set("websiteUrl", `https://acme.example/weather?q="x"`),
			pointer: "/websiteUrl", words: []string{"websiteUrl", `must not contain the character '"'`, "percent-encode"}},
		{rule: "repository url is required", mutate: set("url", "", "repository"),
			pointer: "/repository/url", words: []string{"not valid uri"}, bySchema: true},
		{rule: "repository source is required", mutate: set("source", "", "repository"),
			pointer: "/repository/source", words: []string{"repository source must not be empty"}},
		{rule: "repository url names a project on the source's forge", mutate: set("url", "https://github.com/acme", "repository"),
			pointer: "/repository/url", words: []string{"repository url", "must have the form http(s)://[www.]github.com/OWNER/REPO", `source "github"`}},
		{rule: "repository subfolder is a clean relative path", mutate: set("subfolder", "servers/../../etc", "repository"),
			pointer: "/repository/subfolder", words: []string{"repository subfolder", "must be a clean relative path"}},
		{rule: "icon src is absolute", mutate: set("src", "/icon.png", "icons", 0),
			pointer: "/icons/0/src", words: []string{"not valid uri"}, bySchema: true},
		{rule: "icon src uses https", mutate: set("src", "data:image/png;base64,iVBORw0KGgo=", "icons", 0),
			pointer: "/icons/0/src", words: []string{"icon src", "must be an absolute https URL", `scheme "data"`}},
		{rule: "icon mimeType is an allowed image type", mutate: set("mimeType", "image/gif", "icons", 0),
			pointer: "/icons/0/mimeType", words: []string{"must be one of"}, bySchema: true},
		{rule: "icon sizes are WxH or any", mutate: set("sizes", []any{"48"}, "icons", 0),
			pointer: "/icons/0/sizes/0", words: []string{"does not match pattern"}, bySchema: true},
		{rule: "icon theme is light or dark", mutate: set("theme", "sepia", "icons", 0),
			pointer: "/icons/0/theme", words: []string{"'light', 'dark'"}, bySchema: true},
		{rule: "package identifier has no spaces", mutate: set("identifier", "@acme/weather server", pkg0...),
			pointer: "/packages/0/identifier", words: []string{"package identifier", "must not contain spaces"}},
		{rule: "named argument has a name", mutate: set("name", "", runArg0...),
			pointer: "/packages/0/runtimeArguments/0/name", words: []string{"named argument name must not be empty"}},
		{rule: "named argument name is the flag alone", mutate: set("name", "--port <port>", runArg0...),
			pointer: "/packages/0/runtimeArguments/0/name", words: []string{"named argument name", "must be the flag alone", "found ' '"}},
		{rule: "named argument value does not start with the name", mutate: set("value", "--port=8080", runArg0...),
			pointer: "/packages/0/runtimeArguments/0/value", words: []string{"named argument value", `must not start with the argument name "--port"`}},
		{rule: "named argument default does not start with the name", mutate: set("default", "--port 8080", runArg0...),
			pointer: "/packages/0/runtimeArguments/0/default", words: []string{"named argument default", `must not start with the argument name "--port"`}},
		{rule: "positional argument has a value or valueHint", mutate: func(d map[string]any) { delete(at(d, pkgArg0...), "valueHint") },
			pointer: "/packages/0/packageArguments/0", words: []string{`"valueHint", "value"`}, bySchema: true},
		{rule: "argument type is positional or named", mutate: set("type", "flag", pkgArg0...),
			pointer: "/packages/0/packageArguments/0/type", words: []string{"'positional', 'named'"}, bySchema: true},
		{rule: "package transport type is stdio, streamable-http or sse", mutate: set("type", "websocket", "packages", 0, "transport"),
			pointer: "/packages/0/transport/type", words: []string{"'stdio', 'streamable-http', 'sse'"}, bySchema: true},
		{rule: "stdio transport has no url", mutate: set("transport", map[string]any{"type": "stdio", "url": "https://acme.example/mcp"}, pkg0...),
			pointer: "/packages/0/transport/url", words: []string{"stdio transport url", "a stdio transport has no url"}},
		{rule: "package transport url is an http(s) URL with a host", mutate: set("url", "http:///mcp", "packages", 0, "transport"),
			pointer: "/packages/0/transport/url", words: []string{"package transport url", "must be an http or https URL with a host"}},
		{rule: "package transport url variables are defined", mutate: set("url", "http://localhost:{port}/mcp", "packages", 0, "transport"),
			pointer: "/packages/0/transport/url", words: []string{"package transport url", "undefined template variable {port}", "environment variables", "defined: --port, PORT, config_path"}},
		{rule: "remote type is streamable-http or sse", mutate: set("type", "stdio", "remotes", 0),
			pointer: "/remotes/0/type", words: []string{"'streamable-http', 'sse'"}, bySchema: true},
		{rule: "remote url is an http(s) URL with a host", mutate: set("url", "https:///mcp", "remotes", 0),
			pointer: "/remotes/0/url", words: []string{"remote url", "must be an http or https URL with a host"}},
		{rule: "remote url variables are defined", mutate: set("url", "https://{tenant}.acme.example/{region}/mcp", "remotes", 0),
			pointer: "/remotes/0/url", words: []string{"remote url", "undefined template variable {region}", `key of the transport's "variables"`, "defined: tenant"}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			doc, err := Parse(mutated(t, tt.mutate))
			var vs []Violation
			switch {
			case tt.bySchema:
				vs = submissionViolations(t, err)
			case err != nil:
				t.Fatalf("Parse refused it, so a stored version would no longer read: %v", err)
			default:
				vs = submissionViolations(t, CheckSubmission(doc))
				if len(vs) != 1 {
					t.Fatalf("got %d violations, want only this rule's: %v", len(vs), vs)
				}
			}
			i := slices.IndexFunc(vs, func(v Violation) bool { return v.Pointer == tt.pointer })
			if i < 0 {
				t.Fatalf("no violation at %s: %v", tt.pointer, vs)
			}
			for _, w := range tt.words {
				if !strings.Contains(vs[i].Message, w) {
					t.Errorf("message %q does not contain %q", vs[i].Message, w)
				}
			}
		})
	}
}

// TestCheckSubmissionVersions: ranges and "latest" are refused, in the
// server version and package versions alike; single versions, semantic
// or not, are accepted.
func TestCheckSubmissionVersions(t *testing.T) {
	refused := []struct{ version, want string }{
		{"latest", `is reserved`},
		{" latest", `is reserved`},
		{"^1.2.0", `comparator "^"`},
		{"~1.2", `comparator "~"`},
		{">=1.0.0", `comparator ">="`},
		{"<2", `comparator "<"`},
		{"<=1.0.0-rc.1", `comparator "<="`},
		{">1", `comparator ">"`},
		{"=1.0.0", `comparator "="`},
		{">= 1.0.0", `comparator ">="`},
		{">=1.0.0 <2.0.0", `comparator ">="`},
		{"~> 2.1", `comparator "~>"`},
		{"==1.0.0", `comparator "=="`},
		{"^1.x", `comparator "^"`},
		{"1.0.0 - 2.0.0", "hyphen range"},
		{"1 -2", "hyphen range"},
		{"1.x", `wildcard "x"`},
		{"1.X", `wildcard "X"`},
		{"*", `wildcard "*"`},
		{"x", `wildcard "x"`},
		{"1.2.*", `wildcard "*"`},
		{"1.2.* ", `wildcard "*"`},
		{"v1.x.x", `wildcard "x"`},
		{"1.0.0 || 2.0.0", `alternatives joined by "||"`},
		{"1.2||1.3", `alternatives joined by "||"`},
		{"^1 || >=2 <3 || 4.x", `alternatives joined by "||"`},
	}
	accepted := []string{
		"1.0.0", "1.0.0-rc.1", "1.0.0+build.5", "2.1.0-alpha", "2024.01.15", "v1.2", "1", "1.2.3.4",
		"LATEST", "Latest", "latest-2024", "1.0.0-x", "release-7", "0.0.0-next.20240115", "x1", "1.0.0-beta.x",
	}
	// check sets both versions, except that the package keeps its own
	// when the schema refuses the value there (exactly "latest").
	check := func(t *testing.T, version string) error {
		t.Helper()
		raw := mutated(t, func(d map[string]any) {
			d["version"] = version
			if version != "latest" {
				at(d, pkg0...)["version"] = version
			}
		})
		doc, err := Parse(raw)
		if err != nil {
			t.Fatalf("Parse refused version %q: %v", version, err)
		}
		return CheckSubmission(doc)
	}
	for _, tt := range refused {
		t.Run(tt.version, func(t *testing.T) {
			want := []string{"/packages/0/version", "/version"}
			if tt.version == "latest" {
				want = want[1:]
			}
			vs := submissionViolations(t, check(t, tt.version))
			if !slices.Equal(pointers(vs), want) {
				t.Fatalf("violations %v, want one at each of %v", vs, want)
			}
			for _, v := range vs {
				if !strings.Contains(v.Message, tt.want) || !strings.Contains(v.Message, fmt.Sprintf("version %q", tt.version)) {
					t.Errorf("message %q does not name %q and the version", v.Message, tt.want)
				}
			}
		})
	}
	for _, version := range accepted {
		t.Run(version, func(t *testing.T) {
			if err := check(t, version); err != nil {
				t.Fatalf("refused a single version: %v", err)
			}
		})
	}
}

// TestParseKeepsAcceptingWhatSubmissionRefuses: the submission rules are
// not part of Parse, which also reads stored versions. One document
// breaking many of them parses, and CheckSubmission reports every one.
func TestParseKeepsAcceptingWhatSubmissionRefuses(t *testing.T) {
	raw := mutated(t, func(d map[string]any) {
		d["name"] = "io.github.acme/weather-"
		d["version"] = "^1.0.0"
		d["title"] = " "
		d["websiteUrl"] = "http://acme.example/"
		at(d, "icons", 0)["src"] = "http://acme.example/icon.png"
		at(d, runArg0...)["value"] = "--port 1"
		at(d, pkg0...)["transport"] = map[string]any{"type": "stdio", "url": "https://acme.example/mcp"}
		at(d, "remotes", 0)["url"] = "https://{zone}.acme.example/mcp"
	})
	doc, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse refused a document only the submission rules refuse: %v", err)
	}
	want := []string{"/icons/0/src", "/name", "/packages/0/runtimeArguments/0/value", "/packages/0/transport/url",
		"/remotes/0/url", "/title", "/version", "/websiteUrl"}
	if got := submissionViolations(t, CheckSubmission(doc)); !slices.Equal(pointers(got), want) {
		t.Fatalf("pointers %v, want %v", pointers(got), want)
	}
}

func pointers(vs []Violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Pointer
	}
	return out
}

// TestCheckSubmissionAcceptsValidExamples: the valid examples (several
// from the official registry's documentation) pass the submission rules.
func TestCheckSubmissionAcceptsValidExamples(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*.json")
	if len(files) == 0 {
		t.Fatal("no valid examples")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if err := CheckSubmission(mustParse(t, readFile(t, f))); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCheckSubmissionWithoutParse: CheckSubmission does not rely on Parse
// having run: a nil document and values the schema would have refused are
// reported, not a panic.
func TestCheckSubmissionWithoutParse(t *testing.T) {
	if vs := submissionViolations(t, CheckSubmission(nil)); len(vs) != 1 || vs[0].Pointer != "" {
		t.Fatalf("nil document: %v", vs)
	}
	doc := &Document{Server: apiv0.ServerJSON{
		Name: "no-slash", Version: "1", WebsiteURL: "acme.example", Icons: []model.Icon{{Src: "https://a b:x"}},
		Repository: &model.Repository{Source: "github"},
		Packages:   []model.Package{{Transport: model.Transport{Type: model.TransportTypeSSE}}},
		Remotes:    []model.Transport{{Type: model.TransportTypeStreamableHTTP, URL: "{base}"}},
	}}
	got := submissionViolations(t, CheckSubmission(doc))
	want := map[string]string{
		"/icons/0/src":              "does not parse",
		"/packages/0/transport/url": "must be an http or https URL with a host",
		"/remotes/0/url":            "must be an http or https URL with a host",
		"/repository/url":           "repository url must not be empty",
		"/websiteUrl":               "it has no scheme",
	}
	if len(got) != len(want) {
		t.Fatalf("violations %v", got)
	}
	for _, v := range got {
		if !strings.Contains(v.Message, want[v.Pointer]) {
			t.Errorf("%s: %q, want it to contain %q", v.Pointer, v.Message, want[v.Pointer])
		}
	}
}

func TestTemplateVariables(t *testing.T) {
	tests := []struct {
		url, filled string
		names       []string
	}{
		{"https://acme.example/mcp", "https://acme.example/mcp", nil},
		{"https://{host}:{port}/{path}", "https://example.com:8080/api", []string{"host", "port", "path"}},
		{"https://a.example:{p}/mcp", "https://a.example:8080/mcp", []string{"p"}},
		{"https://a.example:{p}", "https://a.example:8080", []string{"p"}},
		{"https://{t}.a.example/{x}", "https://placeholder.a.example/placeholder", []string{"t", "x"}},
		{"https://a.example/{}/{{a}", "https://a.example/{}/placeholder", []string{"{a"}},
		{"https://a.example/{open", "https://a.example/{open", nil},
	}
	for _, tt := range tests {
		var names []string
		for _, v := range templateVariables(tt.url) {
			names = append(names, v.name)
		}
		if !slices.Equal(names, tt.names) {
			t.Errorf("templateVariables(%q) = %q, want %q", tt.url, names, tt.names)
		}
		if got := fillTemplate(tt.url); got != tt.filled {
			t.Errorf("fillTemplate(%q) = %q, want %q", tt.url, got, tt.filled)
		}
	}
}

func TestRepositoryForms(t *testing.T) {
	urls := []struct {
		source, url string
		ok          bool
	}{
		{"github", "https://github.com/acme/weather", true},
		{"github", "http://www.github.com/acme/weather.mcp/", true},
		{"github", "https://github.com/acme/-", true},
		{"github", "https://github.com/acme", false},
		{"github", "https://github.com/acme/weather/tree/main", false},
		{"github", "https://github.com/acme/weather//", false},
		{"github", "https://gitlab.com/acme/weather", false},
		{"github", "https://github.com.evil.example/acme/weather", false},
		{"github", "ssh://github.com/acme/weather", false},
		{"github", "https://github.com/acme/wéather", false},
		{"gitlab", "https://gitlab.com/group/subgroup/project", true},
		{"gitlab", "https://gitlab.com/group/project/", true},
		{"gitlab", "https://gitlab.com/group", false},
		{"gitlab", "https://gitlab.com/group/project/-/tree/main", false},
	}
	for _, tt := range urls {
		if got := isForgeURL(tt.source, tt.url); got != tt.ok {
			t.Errorf("isForgeURL(%q, %q) = %t, want %t", tt.source, tt.url, got, tt.ok)
		}
	}
	subfolders := map[string]bool{
		"servers/weather": true, "a": true, "v1.2_x-y": true,
		"/servers": false, "servers/": false, "a//b": false, "./a": false, "a/..": false, "a b": false, `a\b`: false,
	}
	for p, ok := range subfolders {
		if got := isCleanSubfolder(p); got != ok {
			t.Errorf("isCleanSubfolder(%q) = %t, want %t", p, got, ok)
		}
	}
	// Sources the official registry does not know are allowed, url and all.
	doc := mustParse(t, mutated(t, set("repository", map[string]any{"url": "https://git.acme.example/acme/weather", "source": "gitea"})))
	if err := CheckSubmission(doc); err != nil {
		t.Errorf("unknown source: %v", err)
	}
}
