package pin

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzComputeV2 reads tools files with prompts, resources and resource
// templates: every rejection follows the error contract, and every accepted
// file pins deterministically, with the v1 hashes of Compute, the same when
// reformatted.
func FuzzComputeV2(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(vectorDirV2, "*.json"))
	invalid, _ := filepath.Glob(filepath.Join(vectorDirV2, "invalid", "*.json"))
	for _, path := range append(seeds, invalid...) {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	for _, rc := range rejectCasesV2 {
		f.Add([]byte(rc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseToolsList(data, fuzzLimits)
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		p := computeV2Twice(t, l)
		checkRawInInputV2(t, data, l)
		for _, reformat := range []func(*jsontext.Value) error{indent, compact} {
			checkReformattedV2(t, data, reformat, p)
		}
	})
}

// computeV2Twice computes the v2 pins of l twice and checks they agree with
// each other and, for the v1 hashes, with Compute.
func computeV2Twice(t *testing.T, l *ToolsList) PinsV2 {
	p1, err := ComputeV2(l)
	if err != nil {
		t.Fatalf("ComputeV2 failed on a parsed list: %v", err)
	}
	p2, err := ComputeV2(l)
	if err != nil || !reflect.DeepEqual(p1, p2) {
		t.Fatalf("ComputeV2 is not deterministic: %v\n%+v\n%+v", err, p1, p2)
	}
	if v1 := computeTwice(t, l); !reflect.DeepEqual(p1.Pins, v1) {
		t.Fatalf("ComputeV2 v1 hashes differ from Compute:\n%+v\n%+v", p1.Pins, v1)
	}
	return p1
}

func checkRawInInputV2(t *testing.T, data []byte, l *ToolsList) {
	var raws [][]byte
	for _, p := range l.Prompts {
		raws = append(raws, p.Raw)
	}
	for _, r := range l.Resources {
		raws = append(raws, r.Raw)
	}
	for _, rt := range l.ResourceTemplates {
		raws = append(raws, rt.Raw)
	}
	for i, raw := range raws {
		if !bytes.Contains(data, raw) {
			t.Fatalf("Raw of element %d is not a substring of the input: %q", i, raw)
		}
	}
}

// checkReformattedV2 parses a whitespace-reformatted copy of data and
// checks it pins the same.
func checkReformattedV2(t *testing.T, data []byte, reformat func(*jsontext.Value) error, want PinsV2) {
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
	if got := computeV2Twice(t, l); !reflect.DeepEqual(got, want) {
		t.Fatalf("reformatted input pins differently:\n%s\n%+v\n%+v", v, got, want)
	}
}
