package pin

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrInvalid is matched by every error that reports input breaking the
	// strict JSON rules or the shape of a tools file.
	ErrInvalid = errors.New("pin: invalid input")
	// ErrTooLarge is matched by every error that reports a size, nesting
	// depth or tool count over its limit. Such errors do not match
	// ErrInvalid.
	ErrTooLarge = errors.New("pin: input over limit")
)

// Error describes why input was rejected and where.
type Error struct {
	// Pointer is an RFC 6901 JSON pointer to the offending value; the empty
	// string means the whole document.
	Pointer string
	// Offset is the byte offset in the input at or after which the problem
	// was found, or -1 when unknown.
	Offset int64
	// Line and Column (1-based; the column counts bytes) locate Offset in
	// the input; 0 when unknown.
	Line, Column int
	// Reason says what is wrong.
	Reason string

	kind error // ErrInvalid or ErrTooLarge
}

// Error formats the reason, the pointer and, when known, the byte offset.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("pin: ")
	b.WriteString(e.Reason)
	if e.Pointer == "" {
		b.WriteString(" at document root")
	} else {
		fmt.Fprintf(&b, " at %s", e.Pointer)
	}
	switch {
	case e.Offset >= 0 && e.Line > 0:
		fmt.Fprintf(&b, " (line %d, column %d; byte offset %d)", e.Line, e.Column, e.Offset)
	case e.Offset >= 0:
		fmt.Fprintf(&b, " (byte offset %d)", e.Offset)
	}
	return b.String()
}

// LineColumn locates a byte offset of data: its 1-based line and column
// (counting bytes). An offset past the end locates the end.
func LineColumn(data []byte, offset int64) (line, column int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = 1 + bytes.Count(before, []byte("\n"))
	return line, int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

// located sets Line and Column of a *Error carrying an offset into data.
func located(err error, data []byte) error {
	var e *Error
	if errors.As(err, &e) && e.Offset >= 0 && e.Line == 0 {
		e.Line, e.Column = LineColumn(data, e.Offset)
	}
	return err
}

// Unwrap returns ErrInvalid or ErrTooLarge.
func (e *Error) Unwrap() error { return e.kind }

func invalidf(ptr string, off int64, format string, args ...any) *Error {
	return &Error{Pointer: ptr, Offset: off, Reason: fmt.Sprintf(format, args...), kind: ErrInvalid}
}

func tooLargef(ptr string, off int64, format string, args ...any) *Error {
	return &Error{Pointer: ptr, Offset: off, Reason: fmt.Sprintf(format, args...), kind: ErrTooLarge}
}

// rebase moves an error found inside a nested document under prefix. The
// offset is dropped because it counted from the start of the nested document.
func rebase(err error, prefix string) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Pointer = prefix + c.Pointer
	c.Offset = -1
	return &c
}
