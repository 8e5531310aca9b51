package diffreview

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
)

// sideChannelNames are parameter names, lower case without '_', '-' or
// spaces, that carry the conversation, the model's instructions or stolen
// data out through a tool call. Those marked true are dual-use: a tool
// that sets another model's system prompt, or scans or stores a
// conversation, takes them honestly, and says so (sideChannel).
var sideChannelNames = map[string]bool{
	"sidenote": false, "notetoself": false, "notesforself": false, "notestoself": false,
	"fullconversation": false, "entireconversation": false, "hiddeninstructions": false,
	"llmcontext": false, "modelcontext": false, "fullcontext": false,
	"conversationhistory": true, "chathistory": true, "conversation": true, "previousmessages": true,
	"allmessages": true, "systemprompt": true, "transcript": true, "conversationtranscript": true,
	"chatlog": true, "chattranscript": true,
}

// propertyDataRe matches a parameter description that asks for the
// conversation, the model's instructions, secrets, or everything known.
var propertyDataRe = re(conversationObject + `|` + secretObject +
	`|\b(?:everything|all\s+(?:the\s+)?(?:information|details|data|context))\s+(?:you\s+(?:know|have|remember|found|can\s+find)|about\s+the\s+user|from\s+(?:the|this|our)\s+(?:conversation|chat|session))`)

// propertyDataTriggers gate propertyDataRe.
var propertyDataTriggers = []string{"conversation", "chat", "dialog", "context", "transcript", "session",
	"messages", "turns", "prompt", "instructions", "key", "password", "secret", "credential", "token",
	"env", "cookie", "everything", "information", "details", "data"}

// exfilParams reports parameters that look like side channels.
func (s *scanner) exfilParams(tool string, spans []span) {
	byPointer := make(map[string]string, len(spans))
	for _, sp := range spans {
		if !sp.name {
			byPointer[sp.pointer] = sp.text
		}
	}
	for _, sp := range spans {
		prop, ok := propertyOf(sp)
		if !ok {
			continue
		}
		descPtr := sp.pointer + "/description"
		if f, ok := dataRequest(byPointer[descPtr]); ok {
			f.Tool, f.Pointer = tool, descPtr
			f.Message = fmt.Sprintf("parameter %q %s", prop, f.Message)
			// A prompt the tool sets for another model ("system_prompt:
			// the system prompt") is not the model's own, unless the
			// description speaks to the model reading it.
			if promptParameters[squash(prop)] && !directAddress.MatchString(byPointer[descPtr]) {
				f.Severity = finding.Low
				f.Message = fmt.Sprintf("parameter %q takes a prompt the tool sets (%s)", prop, f.Message)
			}
			s.add(f)
		} else if dual, ok := sideChannelNames[squash(prop)]; ok {
			f := sideChannel(tool, sp, prop, spans)
			if dual && f.Severity == finding.Medium && explained(prop, byPointer[descPtr], byPointer["/description"]) {
				f.Severity = finding.Low
				f.Message = fmt.Sprintf("parameter %q is named like a side channel, and the tool says what it is for", prop)
			}
			s.add(f)
		}
	}
}

// dataRequest checks one parameter description.
func dataRequest(desc string) (finding.Finding, bool) {
	p := prepare(desc, false)
	if !containsAny(triggerText(p.clean), propertyDataTriggers) {
		return finding.Finding{}, false
	}
	loc := propertyDataRe.FindStringIndex(p.clean)
	if loc == nil {
		return finding.Finding{}, false
	}
	return finding.Finding{Kind: KindExfiltrationParameter, Severity: finding.High,
		Message:  "asks the model to fill it with the conversation, its instructions or secrets",
		Evidence: p.excerpt(loc[0], loc[1]), Span: p.span(loc[0], loc[1])}, true
}

// sideChannel reports a parameter named like a side channel; it is high
// when the tool's text tells the model to put something into it.
func sideChannel(tool string, sp span, prop string, spans []span) finding.Finding {
	f := finding.Finding{Kind: KindExfiltrationParameter, Severity: finding.Medium, Tool: tool,
		Pointer: sp.pointer, Evidence: Visible(prop),
		Message: fmt.Sprintf("parameter %q is named like a side channel for data the tool does not need", prop)}
	fill := fillRe(prop)
	for _, other := range spans {
		if other.name || strings.HasPrefix(other.pointer, sp.pointer+"/") {
			continue
		}
		p := prepare(other.text, false)
		if loc := fill.FindStringIndex(p.clean); loc != nil {
			f.Severity = finding.High
			f.Message += fmt.Sprintf("; %s tells the model to fill it", other.pointer)
			f.Evidence = p.excerpt(loc[0], loc[1])
			break
		}
	}
	return f
}

// explained reports whether a tool explains its parameter prop: the
// parameter's own description has three words or more, or the tool's
// description names it ("system_prompt: the persona's instructions").
func explained(prop, own, toolDesc string) bool {
	if len(strings.Fields(own)) >= 3 {
		return true
	}
	words := strings.ToLower(strings.NewReplacer("_", " ", "-", " ").Replace(prop))
	lower := strings.ToLower(toolDesc)
	return strings.Contains(lower, strings.ToLower(prop)) || strings.Contains(lower, words)
}

// fillRe matches an instruction to put data into parameter prop.
func fillRe(prop string) *regexp.Regexp {
	return re(`\b` + fillVerbs + `\b[^\n]{0,160}?\b(?:as|in|into|via|inside|to|under|using)\s+(?:the\s+)?` +
		"[`'\"]?" + regexp.QuoteMeta(prop) + `(?:\W|$)`)
}

// squash lower-cases s and drops '_', '-' and spaces.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// isPropertyDescription reports pointers of the form …/properties/X/description.
func isPropertyDescription(ptr string) bool {
	parent, last := splitPointer(ptr)
	if last != "description" {
		return false
	}
	grand, _ := splitPointer(parent)
	return strings.HasSuffix(grand, "/properties")
}
