package serverjson

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var english = message.NewPrinter(language.English)

// schemaViolations validates doc against the embedded schema and returns
// every leaf cause of failure.
func schemaViolations(doc any) ([]Violation, error) {
	sch, err := compiled()
	if err != nil {
		return nil, err
	}
	err = sch.Validate(doc)
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return nil, err // nil when valid
	}
	var out []Violation
	for _, leaf := range leafErrors(verr) {
		out = append(out, leafViolations(leaf, doc)...)
	}
	return out, nil
}

// leafViolations turns one leaf of the error tree (inner nodes such as
// allOf, $ref and the root only summarise their causes) into violations.
// A missing-required leaf becomes one violation per missing member,
// located at that member.
func leafViolations(e *jsonschema.ValidationError, doc any) []Violation {
	ptr := pointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		vs := make([]Violation, len(k.Missing))
		for i, name := range k.Missing {
			vs[i] = Violation{Pointer: ptr + "/" + escapeToken(name), Message: "required property is missing"}
		}
		return vs
	case *kind.Not:
		return []Violation{{Pointer: ptr, Message: "value " + valueAt(doc, e.InstanceLocation) + " is not allowed"}}
	default:
		return []Violation{{Pointer: ptr, Message: e.ErrorKind.LocalizedString(english)}}
	}
}

// pointer renders reference tokens as an RFC 6901 JSON pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

var tokenEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func escapeToken(t string) string { return tokenEscaper.Replace(t) }

// valueAt returns the JSON text of the value at tokens inside doc.
func valueAt(doc any, tokens []string) string {
	for _, t := range tokens {
		switch v := doc.(type) {
		case map[string]any:
			doc = v[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(v) {
				return "(unknown)"
			}
			doc = v[i]
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "(unprintable)"
	}
	return abbreviate(string(b), 80)
}

// abbreviate cuts s to at most n runes, marking a cut with "…".
func abbreviate(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}
