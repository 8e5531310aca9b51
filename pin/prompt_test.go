package pin

import (
	"strings"
	"testing"
)

// ParsePrompt gives each prompt of a vector the hash ComputeV2 gives it,
// and reads one object only.
func TestParsePrompt(t *testing.T) {
	l, err := ParseToolsList(readFile(t, "../testdata/pin/v2/prompts-arguments.json"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ComputeV2(l)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, pp := range p.Prompts {
		want[pp.Name] = pp.Hash
	}
	for _, pr := range l.Prompts {
		got, hash, err := ParsePrompt(pr.Raw, Limits{})
		if err != nil || got.Name != pr.Name || got.NeedsArguments != pr.NeedsArguments || hash != want[pr.Name] {
			t.Errorf("%s: %+v %s %v, want hash %s", pr.Name, got, hash, err, want[pr.Name])
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `{"name":"a"}],"prompts2":[{"name":"b"}`, `{"name":"a"} {"name":"b"}`, `{"name":1}`,
		`{"name":"a","arguments":[{"name":"x","required":true}],"messages":[]}`} {
		if _, _, err := ParsePrompt([]byte(bad), Limits{}); err == nil {
			t.Errorf("ParsePrompt(%s) accepted", bad)
		} else if strings.Contains(err.Error(), "prompts2") {
			t.Errorf("ParsePrompt(%s) read past the object: %v", bad, err)
		}
	}
}
