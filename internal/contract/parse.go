package contract

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpreg/mcpreg/pin"
)

// Parse reads a contract document, JSON or YAML: JSON when the first
// character other than white space is "{", YAML otherwise. JSON must be
// strict (pin.Validate: no duplicate member names, valid UTF-8, numbers in
// the double range, nothing after the value); YAML is converted to JSON
// under the rules of yamlToJSON (no anchors, aliases, merge keys or custom
// tags; unique string keys; YAML 1.2 core types, so "yes" is a string).
// The JSON form must then satisfy SchemaJSON, name every tool and secret
// once, and hold durations that parse.
//
// A document over lim is rejected with a *LimitError (ErrTooLarge); every
// other rejection is a *ValidationError (ErrInvalid) listing every
// violation found at the failing step, each located by a JSON pointer into
// the document's JSON form.
func Parse(data []byte, lim Limits) (*Contract, error) {
	lim = lim.withDefaults()
	if len(data) > lim.MaxBytes {
		return nil, &LimitError{Reason: fmt.Sprintf("document is %d bytes, over the limit of %d bytes", len(data), lim.MaxBytes)}
	}
	js, err := toJSON(data, lim)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, invalid(Violation{Message: err.Error()}) // unreachable after pin.Validate
	}
	sch, err := schemas()
	if err != nil {
		return nil, err
	}
	if vs := append(schemaViolations(sch.input, doc), semanticViolations(doc)...); len(vs) > 0 {
		return nil, invalid(vs...)
	}
	c, err := decode(js)
	if err != nil {
		return nil, err
	}
	c.input = js
	return c, nil
}

// toJSON returns the document as strict JSON.
func toJSON(data []byte, lim Limits) ([]byte, error) {
	if looksLikeJSON(data) {
		if err := pin.Validate(data, pin.Limits{MaxBytes: lim.MaxBytes, MaxDepth: lim.MaxDepth}); err != nil {
			return nil, fromPinError(err)
		}
		return bytes.Clone(data), nil // the Contract keeps it: no aliasing with the caller's buffer
	}
	js, err := yamlToJSON(data, lim)
	if err != nil {
		return nil, err
	}
	// The conversion bounded size (by the input) and depth; this checks the
	// numbers and, defensively, the JSON written.
	if err := pin.Validate(js, pin.Limits{MaxBytes: math.MaxInt, MaxDepth: lim.MaxDepth}); err != nil {
		return nil, fromPinError(err)
	}
	return js, nil
}

// looksLikeJSON reports whether the first non-white-space byte is "{".
func looksLikeJSON(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// fromPinError turns a strict-JSON rejection into this package's errors.
func fromPinError(err error) error {
	var pe *pin.Error
	if !errors.As(err, &pe) {
		return invalid(Violation{Message: err.Error()})
	}
	if errors.Is(err, pin.ErrTooLarge) {
		return &LimitError{Pointer: pe.Pointer, Reason: pe.Reason}
	}
	msg := pe.Reason
	switch {
	case pe.Offset >= 0 && pe.Line > 0:
		msg += fmt.Sprintf(" (line %d, column %d; byte offset %d)", pe.Line, pe.Column, pe.Offset)
	case pe.Offset >= 0:
		msg += fmt.Sprintf(" (byte offset %d)", pe.Offset)
	}
	return invalid(Violation{Pointer: pe.Pointer, Message: msg})
}
