package states_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/states"
)

// kind is one typed state seen through strings, so that one table covers
// them all.
type kind struct {
	name   string
	values []string
	parse  func(string) (string, error)
	valid  func(string) bool
}

func kindOf[T ~string](name string, values []T, parse func(string) (T, error), valid func(T) bool) kind {
	strs := make([]string, len(values))
	for i, v := range values {
		strs[i] = string(v)
	}
	return kind{name, strs,
		func(s string) (string, error) { v, err := parse(s); return string(v), err },
		func(s string) bool { return valid(T(s)) }}
}

var kinds = []kind{
	kindOf("scan outcome", states.ScanOutcomes(), states.ParseScanOutcome, states.ScanOutcome.Valid),
	kindOf("scan error kind", states.ScanErrorKinds(), states.ParseScanErrorKind, states.ScanErrorKind.Valid),
	kindOf("scan trigger", states.ScanTriggers(), states.ParseScanTrigger, states.ScanTrigger.Valid),
	kindOf("quarantine kind", states.QuarantineKinds(), states.ParseQuarantineKind, states.QuarantineKind.Valid),
	kindOf("drift status", states.DriftStatuses(), states.ParseDriftStatus, states.DriftStatus.Valid),
}

func TestParseAcceptsEveryValue(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			if len(k.values) == 0 {
				t.Fatal("no values")
			}
			for _, v := range k.values {
				if got, err := k.parse(v); err != nil || got != v || !k.valid(v) {
					t.Errorf("parse(%q) = %q, %v; valid %v", v, got, err, k.valid(v))
				}
			}
		})
	}
}

func TestParseRejectsOthers(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			for _, s := range []string{"", "closed", strings.ToUpper(k.values[0]), " " + k.values[0], k.values[0] + "\x00"} {
				_, err := k.parse(s)
				if !errors.Is(err, states.ErrUnknown) || k.valid(s) {
					t.Errorf("parse(%q): %v, valid %v; want ErrUnknown", s, err, k.valid(s))
				}
			}
		})
	}
}

// TestParseErrorNamesTheValues pins the message: it says which state, the
// value given, and every allowed value in the listed order.
func TestParseErrorNamesTheValues(t *testing.T) {
	_, err := states.ParseDriftStatus("closed")
	const want = `states: unknown value: drift status "closed": want one of open, accepted, declined, warned, resolved`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

func TestValuesAreDistinctAndListsAreCopies(t *testing.T) {
	for _, k := range kinds {
		if len(slices.Compact(slices.Sorted(slices.Values(k.values)))) != len(k.values) {
			t.Errorf("%s: repeated value in %q", k.name, k.values)
		}
	}
	l := states.DriftStatuses()
	l[0] = "closed"
	if states.DriftStatus("closed").Valid() || !states.DriftOpen.Valid() {
		t.Error("changing a returned list changed what is valid")
	}
}

func TestQuarantineNoneIsNotAKind(t *testing.T) {
	if states.QuarantineNone.Valid() || slices.Contains(states.QuarantineKinds(), states.QuarantineNone) {
		t.Error("QuarantineNone is listed as a kind")
	}
}

func FuzzParse(f *testing.F) {
	for _, k := range kinds {
		for _, v := range k.values {
			f.Add(v)
		}
	}
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range kinds {
			got, err := k.parse(s)
			listed := slices.Contains(k.values, s)
			switch {
			case listed != (err == nil), listed != k.valid(s):
				t.Fatalf("%s %q: listed %v, parse error %v, valid %v", k.name, s, listed, err, k.valid(s))
			case err == nil && got != s:
				t.Fatalf("%s: parse(%q) = %q", k.name, s, got)
			case err != nil && !errors.Is(err, states.ErrUnknown):
				t.Fatalf("%s: parse(%q): %v does not match ErrUnknown", k.name, s, err)
			}
		}
	})
}
