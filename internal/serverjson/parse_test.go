package serverjson

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const schemaMember = `"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"`

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t *testing.T, raw []byte) *Document {
	t.Helper()
	doc, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return doc
}

func TestParseValid(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*.json")
	if len(files) < 8 {
		t.Fatalf("found %d valid examples, want at least 8", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw := readFile(t, f)
			doc := mustParse(t, raw)
			if !bytes.Equal(doc.Raw, raw) {
				t.Error("Raw differs from the input")
			}
			if doc.Server.Schema != SchemaURL {
				t.Errorf("Server.Schema = %q", doc.Server.Schema)
			}
			if want, _, _ := strings.Cut(doc.Server.Name, "/"); doc.Namespace != want || want == "" {
				t.Errorf("Namespace = %q for name %q", doc.Namespace, doc.Server.Name)
			}
			if len(doc.Server.Packages)+len(doc.Server.Remotes) == 0 {
				t.Error("decoded neither packages nor remotes")
			}
		})
	}
}

func TestParseValidContent(t *testing.T) {
	tests := []struct {
		file  string
		check func(d *Document) bool
	}{
		{"oci-digest.json", func(d *Document) bool {
			p := d.Server.Packages[0]
			return p.RegistryType == "oci" && strings.HasSuffix(p.Identifier, "@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08") &&
				p.Transport.Type == "stdio" && d.Namespace == "io.github.acme"
		}},
		{"remote-streamable-http.json", func(d *Document) bool {
			r := d.Server.Remotes[0]
			return r.Type == "streamable-http" && r.URL == "https://mcp.example.com/tickets/mcp" &&
				r.Headers[0].Name == "Authorization" && r.Headers[0].Variables["token"].IsSecret
		}},
		{"meta-publisher-provided.json", func(d *Document) bool {
			pp := d.Server.Meta.PublisherProvided
			build, _ := pp["build"].(map[string]any)
			return pp["tool"] == "acme-release" && build["steps"] == float64(7) &&
				bytes.Contains(d.Raw, []byte(`"com.acme.internal/ci"`))
		}},
		{"docs-npm-brave-search.json", func(d *Document) bool {
			p := d.Server.Packages[0]
			return p.Identifier == "@modelcontextprotocol/server-brave-search" && p.EnvironmentVariables[0].IsSecret &&
				d.Namespace == "io.modelcontextprotocol.anonymous"
		}},
		{"docs-oci-docker-arguments.json", func(d *Document) bool {
			p := d.Server.Packages[0]
			return len(p.RuntimeArguments) == 2 && p.PackageArguments[2].ValueHint == "database_name"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			if d := mustParse(t, readFile(t, filepath.Join("testdata/valid", tt.file))); !tt.check(d) {
				t.Errorf("decoded document does not hold the expected values: %+v", d.Server)
			}
		})
	}
}

func TestParseAcceptsEdgeCases(t *testing.T) {
	head := `{` + schemaMember + `,"name":"a.b/c","description":"d","version":"1"`
	tests := []struct{ name, in string }{
		{"tiny number rounds to zero", head + `,"remotes":[{"type":"sse","url":"https://a.b/sse"}],"_meta":{"io.modelcontextprotocol.registry/publisher-provided":{"n":1e-400,"m":123456789012345678901234567890}}}`},
		{"unknown members are allowed by the schema", head + `,"remotes":[{"type":"sse","url":"https://a.b/sse","x":1}],"extra":{"y":[]}}`},
		{"empty version string (schema has no minLength)", `{` + schemaMember + `,"name":"a.b/c","description":"d","version":"","remotes":[{"type":"sse","url":"https://a.b/sse"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { mustParse(t, []byte(tt.in)) })
	}
}

// TestParseMemberNamesAreCaseSensitive guards against decoding a member
// the schema never checked: encoding/json would let "Name" fill Server.Name.
func TestParseMemberNamesAreCaseSensitive(t *testing.T) {
	in := `{` + schemaMember + `,"name":"io.github.acme/good","Name":"evil name","description":"d","version":"1","VERSION":"x",` +
		`"remotes":[{"type":"sse","url":"https://a.b/sse","URL":"ftp://evil"}]}`
	d := mustParse(t, []byte(in))
	if d.Server.Name != "io.github.acme/good" || d.Server.Version != "1" || d.Server.Remotes[0].URL != "https://a.b/sse" {
		t.Errorf("decoded an unchecked member: %+v", d.Server)
	}
}

func TestArgumentNamesFollowTheModel(t *testing.T) {
	input := []string{"description", "isRequired", "format", "value", "isSecret", "default", "placeholder", "choices"}
	argument := append(slices.Clone(input), "variables", "type", "name", "valueHint", "isRepeated")
	for _, tt := range []struct{ got, want []string }{{inputNames, input}, {argumentNames, argument}} {
		if !slices.Equal(slices.Sorted(slices.Values(tt.got)), slices.Sorted(slices.Values(tt.want))) {
			t.Errorf("names from the model = %q, want %q", tt.got, tt.want)
		}
	}
}

func TestParseRawIsACopy(t *testing.T) {
	raw := readFile(t, "testdata/valid/oci-digest.json")
	d := mustParse(t, raw)
	raw[0] = 'X'
	if d.Raw[0] != '{' {
		t.Error("Document.Raw shares memory with the caller's slice")
	}
}

func TestParseConcurrent(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.json")
	var wg sync.WaitGroup
	for _, f := range files {
		raw := readFile(t, f)
		for range 4 {
			wg.Go(func() { _, _ = Parse(raw) })
		}
	}
	wg.Wait()
}

func TestValidationErrorFormat(t *testing.T) {
	err := newValidationError(
		Violation{Pointer: "/version", Message: "required property is missing"},
		Violation{Pointer: "", Message: "root problem"},
		Violation{Pointer: "/name", Message: "b"},
		Violation{Pointer: "/name", Message: "a"},
		Violation{Pointer: "/name", Message: "a"},
	)
	want := "invalid server.json: /: root problem; /name: a; /name: b; /version: required property is missing"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if !errors.Is(err, ErrInvalid) || errors.Unwrap(err) != ErrInvalid { //nolint:errorlint // Unwrap must give the sentinel itself, not a chain holding it
		t.Error("ValidationError does not unwrap to ErrInvalid")
	}
}

func BenchmarkParse(b *testing.B) {
	raw := readFile(b, "testdata/valid/docs-hybrid-package-and-remotes.json")
	if _, err := Parse(raw); err != nil { // also compiles the schema
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseRejectsTemplateRemoteURL: schema 2025-12-11 needs an http(s) URL;
// only the later draft accepts a leading template variable.
func TestParseRejectsTemplateRemoteURL(t *testing.T) {
	doc := `{` + schemaMember + `,"name":"a.b/c","description":"d","version":"1.0.0","remotes":[{"type":"streamable-http","url":"{base_url}/mcp"}]}`
	_, err := Parse([]byte(doc))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Pointers()) != 1 || ve.Pointers()[0] != "/remotes/0/url" {
		t.Fatalf("err = %v", err)
	}
}
