package officialapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

const (
	// modulePath is the Go module that carries the official document.
	modulePath = "github.com/modelcontextprotocol/registry"
	// documentPath is the document's place inside that module.
	documentPath = "docs/reference/api/openapi.yaml"
)

var (
	// ErrDocumentMissing reports that the official document could not be found.
	ErrDocumentMissing = errors.New("officialapi: official OpenAPI document not found")
	// ErrBadDocument reports a document this package cannot use.
	ErrBadDocument = errors.New("officialapi: unusable OpenAPI document")
)

// httpMethods are the operation keys of an OpenAPI path item.
var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Spec is a loaded OpenAPI document. It is safe for concurrent use.
type Spec struct {
	url string
	doc map[string]any

	mu       sync.Mutex // guards compiler and schemas
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

// Load reads the official openapi.yaml from the module cache. The module
// directory is the one `go list -m` reports from the current directory, so
// it is the version the caller's go.mod requires.
func Load() (*Spec, error) {
	dir, err := moduleDir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, filepath.FromSlash(documentPath))
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: module %s has no %s: %w", ErrDocumentMissing, modulePath, documentPath, err)
	}
	return parse(path, data)
}

// moduleDir asks the go command where the required registry module lives.
func moduleDir() (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", modulePath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: `go list -m %s` failed (is the go command on PATH and %s in go.mod?): %w: %s",
			ErrDocumentMissing, modulePath, modulePath, err, bytes.TrimSpace(stderr.Bytes()))
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("%w: module %s is not in the module cache; run `go mod download %s`",
			ErrDocumentMissing, modulePath, modulePath)
	}
	return dir, nil
}

// parse builds a Spec from the YAML text of an OpenAPI 3.1 document read
// from path.
func parse(path string, data []byte) (*Spec, error) {
	doc, err := jsonDocument(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadDocument, path, err)
	}
	if err := checkDialect(doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadDocument, path, err)
	}
	url := "file://" + filepath.ToSlash(path)
	c, err := newCompiler(url, doc)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadDocument, path, err)
	}
	return &Spec{url: url, doc: doc, compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
}

// checkDialect refuses documents whose schemas are not JSON Schema 2020-12
// (the OpenAPI 3.1 default dialect is built on it).
func checkDialect(doc map[string]any) error {
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		return fmt.Errorf("openapi version %q, want 3.1.x", v)
	}
	switch d, _ := doc["jsonSchemaDialect"].(string); strings.TrimSuffix(d, "#") {
	case "", "https://json-schema.org/draft/2020-12/schema", "https://spec.openapis.org/oas/3.1/dialect/base":
		return nil
	default:
		return fmt.Errorf("jsonSchemaDialect %q, want JSON Schema 2020-12", d)
	}
}

// Operations lists "METHOD /path" for every operation in the document,
// sorted.
func (s *Spec) Operations() []string {
	paths, _ := s.doc["paths"].(map[string]any)
	var ops []string
	for path, item := range paths {
		item, _ := item.(map[string]any)
		for _, m := range httpMethods {
			if _, ok := item[m]; ok {
				ops = append(ops, strings.ToUpper(m)+" "+path)
			}
		}
	}
	slices.Sort(ops)
	return ops
}

// jsonDocument decodes YAML into the values encoding/json produces (with
// json.Number for numbers), which is what the schema compiler expects.
func jsonDocument(data []byte) (map[string]any, error) {
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("reading YAML: %w", err)
	}
	clean, err := jsonCompatible(raw)
	if err != nil {
		return nil, err
	}
	text, err := json.Marshal(clean)
	if err != nil {
		return nil, fmt.Errorf("converting YAML to JSON: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("converting YAML to JSON: %w", err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("top level is not a mapping")
	}
	return doc, nil
}

// jsonCompatible turns YAML mappings with non-string scalar keys (such as
// an unquoted 200 response code) into string-keyed maps.
func jsonCompatible(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			c, err := jsonCompatible(e)
			if err != nil {
				return nil, err
			}
			v[k] = c
		}
		return v, nil
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			key, err := scalarKey(k)
			if err != nil {
				return nil, err
			}
			if out[key], err = jsonCompatible(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case []any:
		for i, e := range v {
			c, err := jsonCompatible(e)
			if err != nil {
				return nil, err
			}
			v[i] = c
		}
		return v, nil
	default:
		return v, nil
	}
}

// scalarKey spells a YAML mapping key as a JSON member name.
func scalarKey(k any) (string, error) {
	switch k := k.(type) {
	case string:
		return k, nil
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(k), nil
	default:
		return "", fmt.Errorf("mapping key %v (%T) has no JSON spelling", k, k)
	}
}
