package pin

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// fuzzLimits keep single fuzz runs cheap while exercising the limits.
var fuzzLimits = Limits{MaxBytes: 1 << 16, MaxDepth: 16, MaxTools: 64}

func FuzzParseToolsList(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(vectorDir, "*.json"))
	invalid, _ := filepath.Glob(filepath.Join(vectorDir, "invalid", "*.json"))
	for _, path := range append(seeds, invalid...) {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	for _, rc := range rejectCases {
		f.Add([]byte(rc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseToolsList(data, fuzzLimits)
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		p := computeTwice(t, l)
		checkRawInInput(t, data, l)
		for _, reformat := range []func(*jsontext.Value) error{indent, compact} {
			checkReformatted(t, data, reformat, p)
		}
	})
}

// checkFuzzError checks the error contract: an *Error of exactly one kind
// with a valid JSON pointer.
func checkFuzzError(t *testing.T, err error) {
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if errors.Is(err, ErrInvalid) == errors.Is(err, ErrTooLarge) {
		t.Fatalf("error %v must match exactly one of ErrInvalid and ErrTooLarge", err)
	}
	if !jsontext.Pointer(e.Pointer).IsValid() {
		t.Fatalf("error %v has an invalid JSON pointer %q", err, e.Pointer)
	}
}

// computeTwice computes the pins of l twice and checks they agree.
func computeTwice(t *testing.T, l *ToolsList) Pins {
	p1, err := Compute(l)
	if err != nil {
		t.Fatalf("Compute failed on a parsed list: %v", err)
	}
	p2, err := Compute(l)
	if err != nil || !reflect.DeepEqual(p1, p2) {
		t.Fatalf("Compute is not deterministic: %v\n%+v\n%+v", err, p1, p2)
	}
	for i, tp := range p1.Tools {
		if i > 0 && p1.Tools[i-1].Name >= tp.Name {
			t.Fatalf("tool pins not sorted: %q before %q", p1.Tools[i-1].Name, tp.Name)
		}
	}
	return p1
}

func checkRawInInput(t *testing.T, data []byte, l *ToolsList) {
	for i, tool := range l.Tools {
		if !bytes.Contains(data, tool.Raw) {
			t.Fatalf("Raw of tool %d is not a substring of the input: %q", i, tool.Raw)
		}
	}
}

// checkReformatted parses a whitespace-reformatted copy of data and checks
// it pins the same.
func checkReformatted(t *testing.T, data []byte, reformat func(*jsontext.Value) error, want Pins) {
	v := jsontext.Value(slices.Clone(data))
	if err := reformat(&v); err != nil {
		t.Fatalf("reformatting valid input: %v", err)
	}
	lim := fuzzLimits
	lim.MaxBytes = 1 << 30 // indentation grows the input
	l, err := ParseToolsList(v, lim)
	if err != nil {
		t.Fatalf("reformatted input rejected: %v\n%s", err, v)
	}
	if got := computeTwice(t, l); !reflect.DeepEqual(got, want) {
		t.Fatalf("reformatted input pins differently:\n%s\n%+v\n%+v", v, got, want)
	}
}

func indent(v *jsontext.Value) error {
	return v.Indent(jsontext.WithIndent("\t "), jsontext.SpaceAfterColon(true))
}
func compact(v *jsontext.Value) error { return v.Compact() }

func FuzzValidate(f *testing.F) {
	for _, rc := range rejectCases {
		f.Add([]byte(rc.in))
	}
	for _, s := range []string{`{"b":[1.0,-0,1e21],"a":"\u00e9"}`, `[1e-400,"\ud83d\ude00"]`, `{"\u20ac":1,"\r":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := Validate(data, fuzzLimits); err != nil {
			checkFuzzError(t, err)
			return
		}
		c, err := canonicalJSON(data)
		if err != nil {
			t.Fatalf("canonicalJSON failed on valid input: %v", err)
		}
		again, err := canonicalJSON(c)
		if err != nil || !bytes.Equal(c, again) {
			t.Fatalf("JCS is not idempotent: %s -> %s (%v)", c, again, err)
		}
		if _, err := ContractHash(data); err != nil {
			t.Fatalf("ContractHash failed on valid input: %v", err)
		}
	})
}
