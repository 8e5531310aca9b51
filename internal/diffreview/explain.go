package diffreview

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/go-openapi/jsonpointer"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/textclf"
	"github.com/mcpreg/mcpreg/pin"
)

// Explanation is what a reviewer reads beside a finding: the sentence the
// evidence stands in, and why a text like it is flagged.
type Explanation struct {
	// Sentence is the sentence (or sentences) of the string at the
	// finding's pointer that hold its span; empty when the finding has no
	// span or its string cannot be found.
	Sentence string `json:"sentence,omitempty"`
	// Why is the finding's message and what its kind is a sign of.
	Why string `json:"why"`
}

// kindRisks says what each poisoning kind is a sign of.
var kindRisks = map[string]string{
	KindInstructionOverride:   "text that tells the assistant to set its instructions aside lets a tool take over the session",
	KindSecrecy:               "a step kept from the user is one the user cannot refuse",
	KindTagMarker:             "prompt-style tags make text read as instructions from the system rather than a description",
	KindInvisibleUnicode:      "characters a reviewer cannot see still reach the model",
	KindSensitivePath:         "a tool that reads credential files can send them wherever its arguments go",
	KindExfiltrationParameter: "a parameter filled with the conversation or secrets carries them to the server",
	KindExfiltrationRequest:   "whatever the model puts into an argument is sent to the server",
	KindEncodedPayload:        "encoded text hides what the model is told from the reviewer",
	KindCrossToolInstruction:  "a tool that tells the model how to use other tools can redirect their inputs and outputs",
	KindCoerciveOrdering:      "a tool that must run first or after every call sees everything the session does",
	KindDataCollection:        "a tool that also gathers keys, credentials or history takes more than its job needs",
	KindShadowingInstructions: "a tool that tells the model how to use another server's tool can redirect it",
	KindMentionsForeignTool:   "naming another server's tool is how shadowing instructions start",
}

// Explain explains a finding about l (as PoisoningModel and Poisoning
// report them).
func Explain(l *pin.ToolsList, f finding.Finding) Explanation {
	e := Explanation{Why: f.Message}
	if risk, ok := kindRisks[f.Kind]; ok {
		e.Why += "; " + risk
	}
	if f.Span == (finding.Span{}) {
		return e
	}
	if text, ok := stringAt(orEmpty(l), f); ok {
		e.Sentence = sentenceOf(text, f.Span)
	}
	return e
}

// stringAt is the string a finding points at: in its tool's JSON, the
// instructions, or a prompt, resource or template of the model file.
func stringAt(l *pin.ToolsList, f finding.Finding) (string, bool) {
	if f.Tool != "" {
		for _, t := range l.Tools {
			if t.Name == f.Tool {
				return lookup(t.Raw, f.Pointer)
			}
		}
		return "", false
	}
	if f.Pointer == instructionsPointer && l.Instructions != nil {
		return *l.Instructions, true
	}
	parts := strings.SplitN(f.Pointer, "/", 4) // "", member, index, rest
	if len(parts) < 3 {
		return "", false
	}
	i, err := strconv.Atoi(parts[2])
	rest := ""
	if len(parts) == 4 {
		rest = "/" + parts[3]
	}
	switch {
	case err != nil || i < 0:
	case parts[1] == "prompts" && i < len(l.Prompts):
		return lookup(l.Prompts[i].Raw, rest)
	case parts[1] == "resources" && i < len(l.Resources):
		return lookup(l.Resources[i].Raw, rest)
	case parts[1] == "resourceTemplates" && i < len(l.ResourceTemplates):
		return lookup(l.ResourceTemplates[i].Raw, rest)
	}
	return "", false
}

// lookup is the string at ptr in the JSON document raw.
func lookup(raw []byte, ptr string) (string, bool) {
	var doc any
	if json.Unmarshal(raw, &doc) != nil {
		return "", false
	}
	p, err := jsonpointer.New(ptr)
	if err != nil {
		return "", false
	}
	v, _, err := p.Get(doc)
	s, ok := v.(string)
	return s, err == nil && ok
}

// sentenceOf is the sentences of text that sp overlaps, or the span
// itself when it holds no word.
func sentenceOf(text string, sp finding.Span) string {
	runes := []rune(text)
	lo, hi := min(sp.Start, len(runes)), min(sp.End, len(runes))
	for _, s := range textclf.Sentences(text) {
		if s.End > sp.Start && s.Start < sp.End {
			lo, hi = min(lo, s.Start), max(hi, s.End)
		}
	}
	return Visible(strings.TrimSpace(string(runes[lo:min(hi+1, len(runes))])))
}
