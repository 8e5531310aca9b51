package serverjson

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	apiv0 "github.com/modelcontextprotocol/registry/pkg/api/v0"
	"github.com/modelcontextprotocol/registry/pkg/model"
)

// SchemaURL is the only "$schema" value Parse accepts: the official
// registry's server.json schema version 2025-12-11.
const SchemaURL = model.CurrentSchemaURL

// Document is a server.json that passed Parse.
type Document struct {
	// Server is the decoded document.
	Server apiv0.ServerJSON
	// Raw is a copy of the bytes given to Parse, unchanged. Members that
	// apiv0.ServerJSON does not model (the schema allows them) live only here.
	Raw []byte
	// Namespace is the part of Server.Name before the slash.
	Namespace string
}

// Parse checks that raw is a server.json in the official MCP registry
// format, schema version 2025-12-11, and decodes it. In order it requires:
//   - strict JSON: one value, no duplicate member names at any depth, valid
//     UTF-8, numbers within the double range;
//   - a top-level object whose "$schema" equals SchemaURL;
//   - validity against the embedded JSON Schema, with every violation
//     reported, plus at least one package or remote, and no argument
//     member whose name differs from a known one only in letter case
//     (model.Argument decodes case-insensitively, the schema does not).
//
// The first failing step ends parsing. Every error matches ErrInvalid; every
// rejection of the input is a *ValidationError whose violations name JSON
// pointers. (The one other error, the embedded schema failing to compile,
// is ruled out by this package's tests.)
func Parse(raw []byte) (*Document, error) {
	tree, v := decodeStrict(raw)
	if v == nil {
		v = checkSchemaURL(tree)
	}
	if v != nil {
		return nil, newValidationError(*v)
	}
	if err := validate(tree); err != nil {
		return nil, err
	}
	return decode(raw)
}

// checkSchemaURL requires a top-level object declaring SchemaURL.
func checkSchemaURL(tree any) *Violation {
	obj, ok := tree.(map[string]any)
	if !ok {
		return &Violation{Pointer: "", Message: fmt.Sprintf("got %s, want a JSON object", jsonType(tree))}
	}
	got, present := obj["$schema"]
	if !present {
		return &Violation{Pointer: "/$schema", Message: fmt.Sprintf("required property is missing; it must be %q", SchemaURL)}
	}
	if got != SchemaURL {
		return &Violation{Pointer: "/$schema", Message: fmt.Sprintf("unsupported schema %s; the only supported one is %q", valueAt(got, nil), SchemaURL)}
	}
	return nil
}

// validate runs the JSON Schema and the rules the schema cannot express.
func validate(tree any) error {
	vs, err := schemaViolations(tree)
	if err != nil {
		return fmt.Errorf("%w: cannot validate: %w", ErrInvalid, err)
	}
	obj := tree.(map[string]any)
	vs = append(vs, deploymentViolations(obj)...)
	vs = append(vs, caseViolations(obj)...)
	if len(vs) > 0 {
		return newValidationError(vs...)
	}
	return nil
}

// deploymentViolations requires a non-empty packages or remotes array. A
// member of the wrong type is left to the schema's own type violation.
func deploymentViolations(obj map[string]any) []Violation {
	for _, member := range []string{"packages", "remotes"} {
		v, present := obj[member]
		if arr, ok := v.([]any); len(arr) > 0 || (present && !ok) {
			return nil
		}
	}
	return []Violation{{Pointer: "/packages", Message: "at least one package or remote is required: packages and remotes are both missing or empty"}}
}

// decode fills a Document from input the checks above accepted. Member
// names match case-sensitively, so no member the schema did not check can
// land in a field.
func decode(raw []byte) (*Document, error) {
	doc := &Document{Raw: bytes.Clone(raw)}
	if err := json.Unmarshal(raw, &doc.Server); err != nil {
		return nil, newValidationError(decodeViolation(err))
	}
	ns, err := Namespace(doc.Server.Name)
	if err != nil { // unreachable: the schema checks the name
		return nil, newValidationError(Violation{Pointer: "/name", Message: err.Error()})
	}
	doc.Namespace = ns
	return doc, nil
}

// decodeViolation describes a decoding failure in stable words (the json
// package varies the wording of its own messages on purpose).
func decodeViolation(err error) Violation {
	var se *json.SemanticError
	if !errors.As(err, &se) {
		return Violation{Pointer: "", Message: "cannot decode: " + err.Error()}
	}
	msg := "cannot decode"
	if se.JSONKind != 0 {
		msg += " JSON " + se.JSONKind.String()
	}
	if se.GoType != nil {
		msg += " into Go " + se.GoType.String()
	}
	if se.Err != nil {
		msg += ": " + se.Err.Error()
	}
	return Violation{Pointer: string(se.JSONPointer), Message: msg}
}

// jsonType names the JSON type of a value from decodeStrict.
func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	default:
		return "number"
	}
}
