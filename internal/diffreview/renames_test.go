package diffreview

import (
	"strings"
	"testing"
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
