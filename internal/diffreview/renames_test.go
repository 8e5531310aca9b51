package diffreview

import (
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/pin"
)

// TestRenames: a removed and an added tool that read alike are one
// tool_renamed change; a look-alike name pairs whatever the text; tools
// that have nothing in common stay an addition and a removal; a
// look-alike added beside the tool it imitates is an addition that says
// so.
func TestRenames(t *testing.T) {
	renamedRead := strings.Replace(approvedRead, `"name":"read_file"`, `"name":"read_text_file"`, 1)
	for _, c := range []struct {
		name    string
		live    []string
		classes string
		want    string // in the first change's message
	}{
		{"similar text, same schema", []string{renamedRead, approvedWrite}, "tool_renamed", `"read_file" renamed to "read_text_file"`},
		{"cyrillic look-alike", []string{strings.Replace(approvedRead, `"read_file"`, `"re\u0430d_file"`, 1), approvedWrite}, "tool_renamed", "look-alike"},
		{"hidden character", []string{strings.Replace(approvedRead, `"read_file"`, `"read_\u200bfile"`, 1), approvedWrite}, "tool_renamed", "⟦U+200B⟧"},
		{"letter case", []string{strings.Replace(approvedRead, `"read_file"`, `"Read_File"`, 1), approvedWrite}, "tool_renamed", "letter case"},
		{"unrelated", []string{`{"name":"send_mail","description":"Sends an e-mail to anyone.","inputSchema":{"type":"object"}}`, approvedWrite},
			"tool_removed,tool_added", "tool removed"},
		{"look-alike beside the original", []string{approvedRead, strings.Replace(approvedRead, `"read_file"`, `"read_fil\u0435"`, 1), approvedWrite},
			"tool_added", `beside approved tool "read_file"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := Drift(list(t, nil, approvedRead, approvedWrite), list(t, nil, c.live...), nil, nil)
			var classes []string
			for _, ch := range cs {
				classes = append(classes, string(ch.Class))
			}
			if strings.Join(classes, ",") != c.classes || !strings.Contains(cs[0].Message, c.want) {
				t.Fatalf("changes %+v, want classes %s with %q", cs, c.classes, c.want)
			}
			if cs[0].Class == ClassToolRenamed && (cs[0].Severity != DefaultPolicy().Classes[ClassToolRenamed].Severity || cs[0].Action != ActionQuarantine) {
				t.Errorf("a rename rated %s/%s, want high/quarantine", cs[0].Severity, cs[0].Action)
			}
		})
	}
}

// TestLookalikeNames: a name that imitates an approved tool, or another
// tool of the same list, is a high finding; the approved names themselves,
// and names that merely share words, are not.
func TestLookalikeNames(t *testing.T) {
	tools := func(names ...string) []pin.Tool {
		out := make([]pin.Tool, len(names))
		for i, n := range names {
			out[i] = pin.Tool{Name: n}
		}
		return out
	}
	for _, c := range []struct {
		name     string
		approved []string
		list     []pin.Tool
		want     []string // tool: evidence
	}{
		{"unchanged", []string{"read_file", "write_file"}, tools("read_file", "write_file"), nil},
		{"case", []string{"read_file"}, tools("Read_File"), []string{"Read_File: read_file"}},
		{"cyrillic", []string{"read_file"}, tools("read_file", "re\u0430d_file"), []string{"re\u0430d_file: read_file"}},
		{"zero width", []string{"delete"}, tools("de\u200blete"), []string{"de\u200blete: delete"}},
		{"within one list", nil, tools("send_mail", "send_maіl"), []string{"send_maіl: send_mail"}},
		{"shared words", []string{"read_file"}, tools("read_files", "file_read"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, f := range LookalikeNames(c.approved, c.list) {
				if f.Kind != KindLookalikeName || f.Severity != finding.High || f.Pointer != "/name" {
					t.Errorf("finding %+v", f)
				}
				got = append(got, f.Tool+": "+f.Evidence)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("findings %q, want %q", got, c.want)
			}
		})
	}
}
