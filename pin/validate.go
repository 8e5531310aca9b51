package pin

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Validate checks that data is exactly one strict JSON value within lim:
// UTF-8 only, no lone surrogate escapes, no duplicate object member names at
// any depth, numbers within the IEEE 754 double range, nesting and size
// within the limits, and nothing but whitespace after the value.
func Validate(data []byte, lim Limits) (err error) {
	defer func() { err = located(err, data) }()
	return validate(data, lim.withDefaults())
}

// validate is Validate with lim already resolved.
func validate(data []byte, lim Limits) error {
	if len(data) > lim.MaxBytes {
		return tooLargef("", int64(lim.MaxBytes), "input is %d bytes, over the limit of %d bytes", len(data), lim.MaxBytes)
	}
	d := newDecoder(data)
	if err := walk(d, lim); err != nil {
		return err
	}
	return checkTrailing(data, d.InputOffset())
}

// newDecoder returns a decoder with the strict default options of jsontext:
// duplicate names and invalid UTF-8 (including lone surrogates) are errors.
// A bytes.Buffer lets the decoder parse data in place without copying or
// modifying it.
func newDecoder(data []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(data))
}

// walk reads one complete top-level value token by token.
func walk(d *jsontext.Decoder, lim Limits) error {
	for {
		tok, err := d.ReadToken()
		if err != nil {
			return decodeError(err)
		}
		if err := checkToken(d, tok, lim); err != nil {
			return err
		}
		if d.StackDepth() == 0 {
			return nil
		}
	}
}

// checkToken applies the rules the decoder does not: depth and number range.
func checkToken(d *jsontext.Decoder, tok jsontext.Token, lim Limits) error {
	switch tok.Kind() {
	case jsontext.KindBeginObject, jsontext.KindBeginArray:
		if d.StackDepth() > lim.MaxDepth {
			return tooLargef(string(d.StackPointer()), d.InputOffset()-1,
				"nesting depth is over the limit of %d", lim.MaxDepth)
		}
	case jsontext.KindNumber:
		return checkNumber(d, tok.String())
	}
	return nil
}

// checkNumber rejects numbers whose magnitude is too large for a double.
// Numbers too small for a double are accepted: they round to zero.
func checkNumber(d *jsontext.Decoder, raw string) error {
	if _, err := strconv.ParseFloat(raw, 64); err != nil {
		off := d.InputOffset() - int64(len(raw))
		return invalidf(string(d.StackPointer()), off,
			"number %s is outside the IEEE 754 double range", abbreviate(raw))
	}
	return nil
}

// checkTrailing rejects anything but JSON whitespace after the value.
func checkTrailing(data []byte, off int64) error {
	for i := off; i < int64(len(data)); i++ {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return invalidf("", i, "unexpected data after the top-level JSON value")
		}
	}
	return nil
}

// decodeError turns a jsontext error into an *Error.
func decodeError(err error) error {
	if errors.Is(err, io.EOF) {
		return invalidf("", 0, "empty input: expected a JSON value")
	}
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return invalidf("", -1, "%v", err)
	}
	ptr := string(se.JSONPointer)
	switch {
	case errors.Is(se.Err, jsontext.ErrDuplicateName):
		return invalidf(ptr, se.ByteOffset, "duplicate object member name %q", se.JSONPointer.LastToken())
	case errors.Is(se.Err, io.ErrUnexpectedEOF):
		return invalidf(ptr, se.ByteOffset, "unexpected end of input")
	case strings.Contains(se.Err.Error(), "surrogate"):
		return invalidf(ptr, se.ByteOffset, "lone or misordered UTF-16 surrogate escape in string")
	}
	return invalidf(ptr, se.ByteOffset, "%v", se.Err)
}

// abbreviate shortens long raw text for error messages.
func abbreviate(s string) string {
	const maxLen = 40
	if len(s) <= maxLen {
		return s
	}
	return s[:maxLen] + "..."
}
