package officialapi

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ErrMismatch matches every *MismatchError.
var ErrMismatch = errors.New("officialapi: body does not match the official schema")

var english = message.NewPrinter(language.English)

// Problem is one way a body departs from its schema.
type Problem struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value; "" is
	// the whole body.
	Pointer string
	// Message says what is wrong, e.g. "got string, want array".
	Message string
}

// MismatchError reports a body that does not match the documented schema.
type MismatchError struct {
	Operation string // "GET /v0.1/servers"
	Response  string // the response key used: "200", "4XX", "default"
	// Problems are sorted by pointer, without repeats.
	Problems []Problem
}

func (e *MismatchError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = fmt.Sprintf("at %q: %s", p.Pointer, p.Message)
	}
	return fmt.Sprintf("%v: %s response %s: %s", ErrMismatch, e.Operation, e.Response, strings.Join(parts, "; "))
}

// Is makes errors.Is(err, ErrMismatch) hold.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// mismatch turns a validator error into a *MismatchError.
func mismatch(op, response string, err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("%s response %s: validating: %w", op, response, err)
	}
	problems := leaves(ve, nil)
	slices.SortFunc(problems, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
	})
	return &MismatchError{Operation: op, Response: response, Problems: slices.Compact(problems)}
}

// leaves collects the innermost failures of a validation error tree: those
// say what is wrong, the outer ones only that a subschema failed. Under
// anyOf every failing alternative contributes its leaves.
func leaves(ve *jsonschema.ValidationError, out []Problem) []Problem {
	if len(ve.Causes) == 0 {
		if _, ok := ve.ErrorKind.(*kind.Reference); ok {
			return out
		}
		return append(out, Problem{Pointer: jsonPointer(ve.InstanceLocation), Message: ve.ErrorKind.LocalizedString(english)})
	}
	for _, c := range ve.Causes {
		out = leaves(c, out)
	}
	return out
}

// jsonPointer spells instance tokens as an RFC 6901 pointer.
func jsonPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString("/" + escapeToken(t))
	}
	return b.String()
}

// escapeToken escapes one JSON pointer reference token.
func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}
