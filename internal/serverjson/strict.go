package serverjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/pin"
)

// decodeStrict reads raw as exactly one JSON value and returns it as the
// generic tree the schema validator expects (map[string]any, []any, string,
// json.Number, bool, nil). jsontext's defaults reject duplicate member names
// and invalid UTF-8 (including lone surrogate escapes); decodeStrict also
// rejects trailing data and numbers outside the IEEE 754 double range.
func decodeStrict(raw []byte) (any, *Violation) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	v, err := readValue(dec)
	if err == nil {
		err = expectEOF(dec)
	}
	if err != nil {
		return nil, syntaxViolation(raw, dec, err)
	}
	return v, nil
}

func readValue(dec *jsontext.Decoder) (any, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		return readObject(dec)
	case '[':
		return readArray(dec)
	case '"':
		return tok.String(), nil
	case '0':
		return readNumber(tok.String())
	case 't', 'f':
		return tok.Bool(), nil
	default: // 'n'; '}' and ']' cannot start a value, the decoder says so
		return nil, nil
	}
}

func readObject(dec *jsontext.Decoder) (map[string]any, error) {
	obj := map[string]any{}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		if obj[name.String()], err = readValue(dec); err != nil {
			return nil, err
		}
	}
	_, err := dec.ReadToken()
	return obj, err
}

func readArray(dec *jsontext.Decoder) ([]any, error) {
	arr := []any{}
	for dec.PeekKind() != ']' {
		v, err := readValue(dec)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	_, err := dec.ReadToken()
	return arr, err
}

// errNumberRange marks a number that does not fit an IEEE 754 double.
var errNumberRange = errors.New("number outside the IEEE 754 double range")

func readNumber(s string) (json.Number, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && math.IsInf(f, 0) {
		return "", fmt.Errorf("%w: %s", errNumberRange, s)
	}
	return json.Number(s), nil
}

// errTrailing marks data after the single top-level value.
var errTrailing = errors.New("unexpected data after the top-level JSON value")

func expectEOF(dec *jsontext.Decoder) error {
	offset := dec.InputOffset()
	if _, err := dec.ReadToken(); errors.Is(err, io.EOF) {
		return nil
	}
	return fmt.Errorf("%w (byte offset %d)", errTrailing, offset)
}

// syntaxViolation names where strict decoding stopped and why.
func syntaxViolation(raw []byte, dec *jsontext.Decoder, err error) *Violation {
	at := func(off int64) string {
		line, col := pin.LineColumn(raw, off)
		return fmt.Sprintf("line %d, column %d (byte offset %d)", line, col, off)
	}
	switch {
	case errors.Is(err, errTrailing):
		return &Violation{Pointer: "", Message: "malformed JSON: " + err.Error()}
	case errors.Is(err, errNumberRange):
		return &Violation{Pointer: string(dec.StackPointer()), Message: "malformed JSON: " + err.Error()}
	case errors.Is(err, io.EOF):
		return &Violation{Pointer: "", Message: "malformed JSON: empty input"}
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return &Violation{
			Pointer: string(se.JSONPointer),
			Message: fmt.Sprintf("malformed JSON at %s: %v", at(se.ByteOffset), se.Err),
		}
	}
	return &Violation{
		Pointer: string(dec.StackPointer()),
		Message: fmt.Sprintf("malformed JSON at %s: %v", at(dec.InputOffset()), err),
	}
}
