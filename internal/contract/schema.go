package contract

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpreg/mcpreg/internal/violation"
)

// SchemaJSON is the JSON Schema (draft 2020-12) of the contract document as
// submitted, for the service to publish. Its $id is SchemaID.
//
//go:embed schema/contract.schema.json
var SchemaJSON []byte

// NormalizedSchemaJSON is the JSON Schema (draft 2020-12) of the
// normalised contract as served. Its $id is NormalizedSchemaID.
//
//go:embed schema/normalized.schema.json
var NormalizedSchemaJSON []byte

// Schema identifiers ($id of SchemaJSON and NormalizedSchemaJSON).
const (
	SchemaID           = "https://mcpreg.io/schemas/contract/v1/contract.schema.json"
	NormalizedSchemaID = "https://mcpreg.io/schemas/contract/v1/normalized.schema.json"
)

// printer renders schema messages.
var printer = message.NewPrinter(language.English)

// offlineLoader refuses every URL: the schemas resolve from the embedded
// resources alone, and the draft meta-schemas ship inside jsonschema.
type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("contract: schema loading disabled: %s", url)
}

var schemas = sync.OnceValues(compileSchemas)

type compiledSchemas struct{ input, normalized *jsonschema.Schema }

func compileSchemas() (compiledSchemas, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(offlineLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	for id, text := range map[string][]byte{SchemaID: SchemaJSON, NormalizedSchemaID: NormalizedSchemaJSON} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
		if err != nil {
			return compiledSchemas{}, fmt.Errorf("contract: embedded schema %s: %w", id, err)
		}
		if err := c.AddResource(id, doc); err != nil {
			return compiledSchemas{}, fmt.Errorf("contract: register schema %s: %w", id, err)
		}
	}
	in, err := c.Compile(SchemaID)
	if err != nil {
		return compiledSchemas{}, fmt.Errorf("contract: compile schema: %w", err)
	}
	norm, err := c.Compile(NormalizedSchemaID)
	if err != nil {
		return compiledSchemas{}, fmt.Errorf("contract: compile normalised schema: %w", err)
	}
	return compiledSchemas{input: in, normalized: norm}, nil
}

// schemaViolations validates doc against sch and returns one violation per
// leaf failure; nil when doc is valid.
func schemaViolations(sch *jsonschema.Schema, doc any) []Violation {
	var verr *jsonschema.ValidationError
	if err := sch.Validate(doc); !errors.As(err, &verr) {
		if err != nil {
			return []Violation{{Message: err.Error()}}
		}
		return nil
	}
	var out []Violation
	for _, leaf := range violation.Leaves(verr) {
		out = append(out, leafViolations(leaf, doc)...)
	}
	return out
}

// leafViolations turns one leaf into violations located at the member
// concerned: a missing member at the member's place, an unknown member at
// the member itself.
func leafViolations(e *jsonschema.ValidationError, doc any) []Violation {
	ptr := pointer(e.InstanceLocation...)
	_, frag, _ := strings.Cut(e.SchemaURL, "#")
	hint := conditionHint(frag)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return perMember(ptr, k.Missing, "required member is missing"+hint)
	case *kind.AdditionalProperties:
		return perMember(ptr, k.Properties, "unknown member")
	case *kind.FalseSchema:
		return []Violation{{Pointer: ptr, Message: "member not allowed" + hint}}
	case *kind.Not:
		msg := "value " + valueText(doc, e.InstanceLocation) + " not allowed"
		if frag == "/$defs/auth/properties/tokenAudience" {
			msg += ": a token audience names the one resource the token is issued for, never a wildcard or a passed-through token"
		}
		return []Violation{{Pointer: ptr, Message: msg + hint}}
	case *kind.Minimum:
		return []Violation{{Pointer: ptr, Message: fmt.Sprintf("%s is under the minimum of %s", k.Got.RatString(), k.Want.RatString()) + hint}}
	case *kind.Maximum:
		return []Violation{{Pointer: ptr, Message: fmt.Sprintf("%s is over the maximum of %s", k.Got.RatString(), k.Want.RatString()) + hint}}
	case *kind.Type:
		return []Violation{{Pointer: ptr, Message: k.LocalizedString(printer) + yamlBooleanHint(k, doc, e.InstanceLocation) + hint}}
	default:
		return []Violation{{Pointer: ptr, Message: e.ErrorKind.LocalizedString(printer) + hint}}
	}
}

func perMember(ptr string, names []string, msg string) []Violation {
	vs := make([]Violation, len(names))
	for i, n := range names {
		vs[i] = Violation{Pointer: ptr + pointer(n), Message: msg}
	}
	return vs
}

// conditionHints explain the conditional parts of the schema, by $defs
// name, so that a violation says which rule applied.
var conditionHints = map[string]string{
	"authNone":            "when auth.mode is none",
	"authOAuth":           "when auth.mode is platform_oauth or delegated_oauth",
	"authDelegated":       "when auth.mode is delegated_oauth",
	"egressAllowlisted":   "when egress.mode is allowlisted_external",
	"egressNoList":        "unless egress.mode is allowlisted_external",
	"approval":            "or an object {mode, rule}",
	"approvalConditional": "when approval.mode is conditional",
	"approvalNoRule":      "unless approval.mode is conditional",
}

// conditionHint returns " (hint)" for a failure inside a $defs entry
// named in conditionHints, or "".
func conditionHint(frag string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(frag, "/$defs/"), "/")
	if h := conditionHints[name]; h != "" && strings.HasPrefix(frag, "/$defs/") {
		return " (" + h + ")"
	}
	return ""
}

// yamlBooleanHint explains a YAML 1.1 boolean word found where a boolean
// belongs: YAML 1.2, which Parse follows, reads it as a string.
func yamlBooleanHint(k *kind.Type, doc any, loc []string) string {
	s, ok := valueAt(doc, loc).(string)
	if !ok || k.Got != "string" || !slices.Contains(k.Want, "boolean") {
		return ""
	}
	switch strings.ToLower(s) {
	case "yes", "no", "on", "off", "y", "n":
		return fmt.Sprintf(" (%q is a string: write true or false)", s)
	}
	return ""
}

// valueAt returns the value at loc inside doc, or nil.
func valueAt(doc any, loc []string) any {
	for _, tok := range loc {
		switch v := doc.(type) {
		case map[string]any:
			doc = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
}

// valueText renders the value at loc as short JSON text.
func valueText(doc any, loc []string) string {
	b, err := json.Marshal(valueAt(doc, loc))
	if err != nil {
		return "(unprintable)"
	}
	return abbreviate(string(b), 80)
}
