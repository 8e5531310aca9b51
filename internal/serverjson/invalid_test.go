package serverjson

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// invalidCases maps each testdata/invalid file to the exact pointers of
// the violations Parse must report ("" is the document itself).
var invalidCases = map[string][]string{
	"malformed.json":                    {""},
	"duplicate-key.json":                {"/packages/0/identifier"},
	"wrong-schema.json":                 {"/$schema"},
	"missing-schema.json":               {"/$schema"},
	"name-no-slash.json":                {"/name"},
	"name-with-spaces.json":             {"/name"},
	"description-too-long.json":         {"/description"},
	"description-missing.json":          {"/description"},
	"version-missing.json":              {"/version"},
	"package-missing-fields.json":       {"/packages/0/identifier", "/packages/0/registryType", "/packages/0/transport"},
	"package-bad-transport.json":        {"/packages/0/transport/type"},
	"package-version-latest.json":       {"/packages/0/fileSha256", "/packages/0/version"},
	"remote-bad-url-and-type.json":      {"/remotes/0/type", "/remotes/1/url", "/remotes/2/type", "/remotes/2/url", "/remotes/3/url"},
	"neither-packages-nor-remotes.json": {"/packages"},
	"docs-no-packages-no-remotes.json":  {"/packages"},
	"top-level-array.json":              {""},
	"schema-gap-decode.json":            {"/packages/0/transport/headers"},
	"package-bad-arguments.json": {
		"/packages/0/environmentVariables/0/name",
		"/packages/0/packageArguments/0/name",
		"/packages/0/packageArguments/1",
		"/packages/0/packageArguments/2/type",
	},
	"argument-case-variants.json": {
		"/packages/0/packageArguments/0/Type",
		"/packages/0/packageArguments/1/iſSecret",
		"/packages/0/packageArguments/1/variables/token/IsSecret",
		"/packages/0/runtimeArguments/0/NAME",
	},
	"multiple-violations.json": {
		"/icons/0/sizes/0", "/icons/0/theme", "/name", "/packages/0/transport/type",
		"/repository/source", "/title", "/version", "/websiteUrl",
	},
}

func TestParseInvalid(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.json")
	if len(files) != len(invalidCases) {
		t.Errorf("%d files in testdata/invalid, %d cases in invalidCases", len(files), len(invalidCases))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, ok := invalidCases[filepath.Base(f)]
			if !ok {
				t.Fatal("no expected pointers in invalidCases")
			}
			verr := mustReject(t, readFile(t, f))
			if got := verr.Pointers(); !slices.Equal(got, want) {
				t.Errorf("pointers\n got %q\nwant %q\nerror: %v", got, want, verr)
			}
			checkGolden(t, strings.TrimSuffix(f, ".json")+".golden", verr)
		})
	}
}

// mustReject parses raw, which must fail with a *ValidationError.
func mustReject(t *testing.T, raw []byte) *ValidationError {
	t.Helper()
	doc, err := Parse(raw)
	if err == nil {
		t.Fatalf("Parse accepted it: %+v", doc.Server)
	}
	if doc != nil {
		t.Error("Parse returned a document with its error")
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("errors.Is(%v, ErrInvalid) = false", err)
	}
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) == 0 {
		t.Fatalf("error %v is not a *ValidationError with violations", err)
	}
	return verr
}

func checkGolden(t *testing.T, path string, verr *ValidationError) {
	t.Helper()
	var b strings.Builder
	for _, v := range verr.Violations {
		b.WriteString(v.String() + "\n")
	}
	testkit.Golden(t, path, []byte(b.String()))
}

func TestParseInvalidBytes(t *testing.T) {
	valid := `{` + schemaMember + `,"name":"a.b/c","description":"d","version":"1","remotes":[{"type":"sse","url":"https://a.b/sse"}]`
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty input", ``, []string{""}},
		{"whitespace only", " \n\t", []string{""}},
		{"null", `null`, []string{""}},
		{"string", `"io.github.acme/x"`, []string{""}},
		{"invalid UTF-8 in a value", valid + `,"title":"caf` + "\xe9" + `"}`, []string{"/title"}},
		{"invalid UTF-8 in a member name", valid + `,"_meta":{"k` + "\xff" + `":1}}`, []string{"/_meta"}},
		{"lone surrogate escape", valid + `,"title":"\ud800"}`, []string{"/title"}},
		{"duplicate at depth", valid + `,"_meta":{"a":[{"b":1,"b":1}]}}`, []string{"/_meta/a/0/b"}},
		{"duplicate $schema", `{` + schemaMember + `,` + schemaMember + `}`, []string{"/$schema"}},
		{"trailing object", valid + `} {}`, []string{""}},
		{"trailing garbage", valid + `}x`, []string{""}},
		{"number too large", valid + `,"_meta":{"n":1e400}}`, []string{"/_meta/n"}},
		{"schema not a string", `{"$schema":["https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"]}`, []string{"/$schema"}},
		{"schema with trailing slash", `{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json/"}`, []string{"/$schema"}},
		{"name with trailing newline", `{` + schemaMember + `,"name":"a.b/c\n","description":"d","version":"1","remotes":[{"type":"sse","url":"https://a.b/sse"}]}`, []string{"/name"}},
		{"name with two slashes", `{` + schemaMember + `,"name":"a.b/c/d","description":"d","version":"1","remotes":[{"type":"sse","url":"https://a.b/sse"}]}`, []string{"/name"}},
		{"remotes null", `{` + schemaMember + `,"name":"a.b/c","description":"d","version":"1","remotes":null}`, []string{"/remotes"}},
		{"escaped pointer tokens", valid + `,"_meta":{"io.modelcontextprotocol.registry/publisher-provided":[]}}`, []string{"/_meta/io.modelcontextprotocol.registry~1publisher-provided"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustReject(t, []byte(tt.in)).Pointers(); !slices.Equal(got, tt.want) {
				t.Errorf("pointers = %q, want %q", got, tt.want)
			}
		})
	}
}
