package diffreview

import (
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/textclf"
	"github.com/mcpreg/mcpreg/pin"
)

// PoisoningModel is Poisoning over everything of l the model reads: the
// tools and instructions as Poisoning scans them, and also each prompt's
// name, title and description, every argument's name, title and
// description, and the text of its messages (text content, the text of
// embedded resources, the description of resource links); each resource's
// and resource template's name, title and description, and its uri or
// uriTemplate for hidden characters. Prompts and resources are scanned
// with the text detectors (hidden characters, phrases, encoded payloads),
// not for exfiltration parameters, which are a tool's.
//
// Findings about prompts and resources name no tool; they point into the
// tools file (the model file) by array index as received, like
// /prompts/3/messages/0/content/text, /resources/2/description or
// /resourceTemplates/0/description, and their message begins with the
// prompt or resource, like `prompt "summarise": `. A prompt that names one
// of the server's own tools is no cross-tool instruction. One whose JSON
// is not an object is a medium KindUnreadableTool finding, pointing at it
// (ParseToolsList never yields such a list). The result is
// sorted with finding.Sort and holds at most one finding per kind, tool
// and pointer.
func PoisoningModel(l *pin.ToolsList) []finding.Finding {
	return PoisoningModelWith(TextModel())(l)
}

// PoisoningModelWith is PoisoningModel with another word model (one
// trained on part of the corpus, to cross-validate).
func PoisoningModelWith(m *textclf.Model) func(*pin.ToolsList) []finding.Finding {
	return func(l *pin.ToolsList) []finding.Finding {
		l = orEmpty(l)
		s := newScanner(l.Tools)
		s.model = m
		return s.everything(l)
	}
}

// everything scans all model-visible text of l.
func (s *scanner) everything(l *pin.ToolsList) []finding.Finding {
	s.server(l.Tools, l.Instructions)
	for i, p := range l.Prompts {
		s.entry(fmt.Sprintf("prompt %q", p.Name), "/prompts/"+strconv.Itoa(i), project(p.Raw, promptMembers), promptSpans)
	}
	for i, r := range l.Resources {
		s.entry(fmt.Sprintf("resource %q", r.URI), "/resources/"+strconv.Itoa(i),
			project(r.Raw, resourceMembers), resourceSpans("uri"))
	}
	for i, t := range l.ResourceTemplates {
		s.entry(fmt.Sprintf("resource template %q", t.URITemplate), "/resourceTemplates/"+strconv.Itoa(i),
			project(t.Raw, templateMembers), resourceSpans("uriTemplate"))
	}
	return s.result()
}

// entry scans one prompt, resource or template at base; the messages of
// its findings begin with label.
func (s *scanner) entry(label, base string, p projection, spans func(projection) []span) {
	from := len(s.out)
	if p.members == nil {
		s.add(finding.Finding{Kind: KindUnreadableTool, Severity: finding.Medium, Pointer: base,
			Message: "its JSON could not be read as an object, so it was not scanned"})
	}
	for _, sp := range spans(p) {
		sp.pointer = base + sp.pointer
		if sp.locator {
			s.hidden("", sp)
		} else {
			s.scan("", sp)
		}
	}
	for i := from; i < len(s.out); i++ {
		s.out[i].Message = label + ": " + s.out[i].Message
	}
}

// promptSpans lists the model-visible text of a prompt, pointers relative
// to it. Argument names are read like schema property names.
func promptSpans(p projection) []span {
	out := stringSpans(p.members, "", false, "name", "title", "description")
	for i, arg := range elements(p.members["arguments"]) {
		m, base := objectOf(arg), "/arguments/"+strconv.Itoa(i)
		out = append(out, stringSpans(m, base, true, "name")...)
		out = append(out, stringSpans(m, base, false, "title", "description")...)
	}
	for _, msg := range promptMessages(p.members["messages"]) {
		for _, part := range msg.parts {
			if part.pointer != "" {
				out = append(out, span{pointer: "/messages" + part.pointer, text: part.text})
			}
		}
	}
	return out
}

// resourceSpans lists the model-visible text of a resource or template,
// whose key member is key ("uri" or "uriTemplate").
func resourceSpans(key string) func(projection) []span {
	return func(p projection) []span {
		out := stringSpans(p.members, "", false, "name", "title", "description")
		for _, sp := range stringSpans(p.members, "", false, key) {
			sp.locator = true
			out = append(out, sp)
		}
		return out
	}
}

// stringSpans returns a span for each of names that is a string member
// of m, at base + "/" + name; name marks spans read as member names.
func stringSpans(m map[string]jsontext.Value, base string, name bool, names ...string) []span {
	var out []span
	for _, n := range names {
		if text, ok := stringMember(m, n); ok {
			out = append(out, span{pointer: base + "/" + n, text: text, name: name})
		}
	}
	return out
}
