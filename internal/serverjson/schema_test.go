package serverjson

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/registry/pkg/model"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestSchemaCompilesOffline(t *testing.T) {
	before := loadAttempts.Load()
	if _, err := compileSchema(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/*/*.json")
	for _, f := range files {
		_, _ = Parse(readFile(t, f))
	}
	if n := loadAttempts.Load() - before; n != 0 {
		t.Errorf("the compiler asked its loader for %d resources; all must be embedded", n)
	}
}

// TestCompilerRefusesRemoteRefs shows that a $ref to anything not added to
// the compiler fails instead of being fetched.
func TestCompilerRefusesRemoteRefs(t *testing.T) {
	for _, ref := range []string{
		"https://example.com/other.schema.json",
		"file:///etc/passwd",
		"http://json-schema.org/draft-07/schema-not-embedded",
	} {
		t.Run(ref, func(t *testing.T) {
			before := loadAttempts.Load()
			c := newCompiler()
			if err := c.AddResource("urn:test", map[string]any{"$ref": ref}); err != nil {
				t.Fatal(err)
			}
			_, err := c.Compile("urn:test")
			var lerr *jsonschema.LoadURLError
			if !errors.As(err, &lerr) || !errors.Is(lerr.Err, errNoRemote) || loadAttempts.Load() == before {
				t.Fatalf("Compile = %v; want a refusal from the offline loader", err)
			}
		})
	}
}

func TestSchemaRegisteredURLs(t *testing.T) {
	for _, url := range []string{model.CurrentSchemaURL, schemaID(t)} {
		c := newCompiler()
		if err := c.AddResource(url, schemaDoc(t)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile(url); err != nil {
			t.Errorf("compile as %s: %v", url, err)
		}
	}
	if SchemaURL != "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json" {
		t.Errorf("SchemaURL = %q: the registry module moved on; review the embedded schema", SchemaURL)
	}
}

// TestSchemaNameRule keeps ValidName in step with the embedded schema.
func TestSchemaNameRule(t *testing.T) {
	name := schemaDoc(t)["definitions"].(map[string]any)["ServerDetail"].(map[string]any)["properties"].(map[string]any)["name"].(map[string]any)
	if name["pattern"] != namePattern {
		t.Errorf("schema name pattern = %v, ValidName uses %q", name["pattern"], namePattern)
	}
	if name["maxLength"] != float64(maxNameLen) {
		t.Errorf("schema name maxLength = %v, ValidName uses %d", name["maxLength"], maxNameLen)
	}
}

func schemaDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(schemaJSON, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func schemaID(t *testing.T) string {
	id, _ := schemaDoc(t)["$id"].(string)
	if id == "" {
		t.Fatal("embedded schema has no $id")
	}
	return id
}
