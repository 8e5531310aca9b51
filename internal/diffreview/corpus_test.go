package diffreview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/testkit"
	"github.com/mcpreg/mcpreg/pin"
)

// testdataDir holds the corpora and golden files.
var testdataDir = testkit.TestdataDir("diffreview")

// corpusCase is one server of a corpus file.
type corpusCase struct {
	Name   string          `json:"name"`
	Source string          `json:"source"`
	Expect []string        `json:"expect"`
	List   json.RawMessage `json:"list"`
}

// loadCorpus reads a corpus file; every case's list must pass pin's
// strict reader, like a real submission.
func loadCorpus(t testing.TB, file string) ([]corpusCase, []*pin.ToolsList) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdataDir, file))
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Cases []corpusCase }
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	lists := make([]*pin.ToolsList, len(c.Cases))
	for i, cc := range c.Cases {
		if lists[i], err = pin.ParseToolsList(cc.List, pin.Limits{}); err != nil {
			t.Fatalf("%s: case %q: %v", file, cc.Name, err)
		}
	}
	return c.Cases, lists
}

func TestBenignCorpus(t *testing.T) {
	cases, lists := loadCorpus(t, "benign.json")
	if len(cases) < 30 {
		t.Fatalf("benign corpus has %d cases, want at least 30", len(cases))
	}
	tools, flagged := 0, 0
	for i, cc := range cases {
		tools += len(lists[i].Tools)
		t.Run(cc.Name, func(t *testing.T) {
			for _, f := range Poisoning(lists[i].Tools, lists[i].Instructions) {
				if f.Severity.Rank() >= finding.Medium.Rank() {
					flagged++
					t.Errorf("benign finding: %+v", f)
				}
			}
		})
	}
	// Floor: a false-positive rate of 0 at medium or above (each benign
	// finding fails its subtest above).
	t.Logf("benign corpus: %d servers, %d tools, %d findings at medium or above (false-positive rate %.1f%% per tool)",
		len(cases), tools, flagged, 100*float64(flagged)/float64(max(tools, 1)))
}

func TestMaliciousCorpus(t *testing.T) {
	cases, lists := loadCorpus(t, "malicious.json")
	if len(cases) < 20 {
		t.Fatalf("malicious corpus has %d cases, want at least 20", len(cases))
	}
	golden := map[string][]finding.Finding{}
	caught := 0
	for i, cc := range cases {
		fs := Poisoning(lists[i].Tools, lists[i].Instructions)
		golden[cc.Name] = fs
		if t.Run(cc.Name, func(t *testing.T) { checkExpected(t, cc, fs) }) {
			caught++
		}
	}
	// Floor: recall 100% (each miss fails its subtest above).
	t.Logf("malicious corpus: %d of %d servers flagged with every expected kind (recall %.1f%%)",
		caught, len(cases), 100*float64(caught)/float64(len(cases)))
	checkGolden(t, "malicious.golden.json", golden)
}

// checkExpected asserts that fs holds every expected kind and reaches at
// least medium severity.
func checkExpected(t *testing.T, cc corpusCase, fs []finding.Finding) {
	if len(cc.Expect) == 0 {
		t.Fatal("case lists no expected kind")
	}
	kinds := map[string]bool{}
	for _, f := range fs {
		kinds[f.Kind] = true
	}
	for _, k := range cc.Expect {
		if !kinds[k] {
			t.Errorf("no %s finding; got %s", k, describeFindings(fs))
		}
	}
	if finding.Max(fs).Rank() < finding.Medium.Rank() {
		t.Errorf("highest severity %q, want at least medium", finding.Max(fs))
	}
}

// describeFindings lists findings compactly for failure messages.
func describeFindings(fs []finding.Finding) string {
	out, _ := json.MarshalIndent(fs, "", "  ")
	return string(out)
}

// checkGolden compares v with a golden JSON file, or rewrites it with -update.
func checkGolden(t *testing.T, file string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	testkit.Golden(t, filepath.Join(testdataDir, file), got)
}

// kindsOf returns the sorted, distinct kinds of fs.
func kindsOf(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
