package diffreview

import (
	"cmp"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/textclf"
	"github.com/mcpreg/mcpreg/pin"
)

// textModelJSON is the word model, trained by `make detector-model` on
// the development split of testdata/poisoning.
//
//go:embed textmodel.json
var textModelJSON []byte

// TextModel is the committed word model.
var TextModel = sync.OnceValue(func() *textclf.Model {
	m, err := textclf.Parse(textModelJSON)
	if err != nil {
		panic("diffreview: the committed word model does not load: " + err.Error())
	}
	return m
})

// ClassifierClasses are the word model's classes: benign, then the attack
// families, each with the finding kind it reports and what it means.
var ClassifierClasses = []struct{ Name, Kind, Means string }{
	{"benign", "", ""},
	{"coercive_ordering", KindCoerciveOrdering, "a demand to be used first, after every call, or instead of other tools"},
	{"collection_prose", KindDataCollection, "a tool that also gathers keys, credentials or history"},
	{"cross_tool_steering", KindCrossToolInstruction, "instructions about how other tools must be used"},
	{"exfiltration_prose", KindExfiltrationRequest, "a request to put the conversation or other tools' output into an argument"},
	{"override_no_markers", KindInstructionOverride, "an instruction to set aside the assistant's guidance"},
	{"secrecy_indirect", KindSecrecy, "a step to be kept from the user"},
}

// ClassifierFeatures are the word model's input for each tool of l, then
// for its instructions, in that order: the features of each sentence.
func ClassifierFeatures(l *pin.ToolsList) [][][]string {
	l = orEmpty(l)
	own := make(map[string]bool, len(l.Tools))
	for _, t := range l.Tools {
		own[t.Name] = true
	}
	var out [][][]string
	for _, t := range l.Tools {
		spans, _ := toolSpans(t.Raw)
		props := map[string]bool{}
		for _, sp := range spans {
			if sp.name {
				props[sp.text] = true
			}
		}
		ctx := cueContext{own: squashedSet(own), props: squashedSet(props)}
		out = append(out, features(classifierSentences(classifierSpans(spans), ctx)))
	}
	if l.Instructions != nil {
		out = append(out, features(classifierSentences([]span{{pointer: instructionsPointer, text: *l.Instructions}},
			cueContext{own: squashedSet(own)})))
	}
	return out
}

// sentence is one sentence of a span.
type sentence struct {
	sp span
	textclf.Sentence
}

// classifierSentences are the sentences of spans, each with its words
// and its cues (addCues).
func classifierSentences(spans []span, ctx cueContext) []sentence {
	var out []sentence
	for _, sp := range spans {
		ss := textclf.Sentences(sp.text)
		ctx.member = ""
		if sp.name {
			ctx.member = sp.text
		} else if parent, last := splitPointer(sp.pointer); !sp.name && last == "description" {
			if pp, name := splitPointer(parent); strings.HasSuffix(pp, "/properties") {
				ctx.member = name
			}
		}
		addCues(sp.text, ss, ctx)
		for _, se := range ss {
			out = append(out, sentence{sp, se})
		}
	}
	return out
}

func features(ss []sentence) [][]string {
	out := make([][]string, len(ss))
	for i, s := range ss {
		out[i] = s.Features
	}
	return out
}

// classifierSpans keeps the spans the word model reads: names, titles and
// descriptions, property names and instructions, not schema keywords or
// values.
func classifierSpans(spans []span) []span {
	var out []span
	for _, sp := range spans {
		parent, last := splitPointer(sp.pointer)
		switch {
		case sp.name && strings.HasSuffix(parent, "/properties"),
			!sp.name && (last == "description" || last == "title" || sp.pointer == "/name" || sp.pointer == instructionsPointer):
			out = append(out, sp)
		}
	}
	return out
}

// classify runs the word model over one unit (a tool's spans or the
// instructions) and reports a medium finding of the family's kind when
// it flags the unit and no rule reported that kind for the tool. The
// evidence is the sentence the model finds least benign.
func (s *scanner) classify(tool string, spans []span) {
	m := s.model
	if s.ownSquashed == nil {
		s.ownSquashed = squashedSet(s.own)
	}
	ss := classifierSentences(classifierSpans(spans), cueContext{own: s.ownSquashed, props: squashedSet(s.props)})
	v := textclf.Verdict{Sentence: -1}
	for i, se := range ss {
		class, mal := m.Rate(se.Features)
		if !s.eligible(tool, ss, se, ClassifierClasses[class].Kind) {
			continue
		}
		if mal > v.Malicious || v.Sentence < 0 {
			v = textclf.Verdict{Sentence: i, Class: class, Malicious: mal}
		}
	}
	if v.Sentence < 0 || v.Malicious < m.Threshold {
		return
	}
	class := ClassifierClasses[v.Class]
	for _, f := range s.out {
		if f.Tool == tool && f.Kind == class.Kind && f.Severity.Rank() >= finding.Medium.Rank() {
			return
		}
	}
	se := ss[v.Sentence]
	words := topFeatures(m, se.Features, v.Class, 3)
	start, end := se.bytes()
	s.add(finding.Finding{Kind: class.Kind, Severity: finding.Medium, Tool: tool, Pointer: se.sp.pointer,
		Message: fmt.Sprintf("reads like %s (word model: %.0f%% not benign, flagged from %.0f%%; words that weigh most: %s)",
			class.Means, 100*v.Malicious, 100*m.Threshold, strings.Join(words, ", ")),
		Evidence: excerptOf(se.sp.text, start, end, excerptMatch), Span: finding.Span{Start: se.Start, End: se.End}})
}

// eligible reports whether sentence se of the unit ss may report kind:
// the word model holds to what the rules hold to, judged on the sentence
// itself (a word elsewhere in the description must not switch a check
// off).
func (s *scanner) eligible(tool string, ss []sentence, se sentence, kind string) bool {
	text := se.text()
	switch kind {
	case KindExfiltrationRequest:
		return true
	case KindCoerciveOrdering:
		// An order kept to the server's own tools (a login tool) is no
		// coercive ordering.
		if ownServerOnly(text) {
			return false
		}
		// A parameter's description that says when the tool itself is
		// to be called ("call this tool before any other", 调用本工具)
		// speaks of the tool, not of the parameter. The description is
		// short: the tool may be named in the clause before the order.
		if isPropertyDescription(se.sp.pointer) {
			return namesItself(se.sp.text, tool)
		}
	case KindInstructionOverride:
		// Judged on the unit, so a parameter's description may report
		// it too: an override needs no particular place to work.
		return overridesAssistant(ss, text, s.props)
	case KindSecrecy:
		// What the user is told is no property of the parameter: a
		// sentence narrowing it counts wherever it is.
		if slices.Contains(se.Features, cueWithheld) {
			return true
		}
	case KindDataCollection:
		// A scanner or manager that names the secrets it finds or shows
		// collects nothing, unless it keeps or sends them.
		if manages.MatchString(text) && !collectionKeeps.MatchString(text) {
			return false
		}
	}
	// Like the rules, only exfiltration (and, above, an override)
	// counts in a parameter's description: "call this first" there
	// speaks of the parameter.
	return !isPropertyDescription(se.sp.pointer)
}

// bytes is the sentence's byte range in its span.
func (se sentence) bytes() (start, end int) {
	return byteOffset(se.sp.text, se.Start), byteOffset(se.sp.text, se.End)
}

// text is the sentence, first word to last.
func (se sentence) text() string {
	start, end := se.bytes()
	return se.sp.text[start:end]
}

// overridesAssistant reports whether an override sentence (text) of the
// unit ss is about the assistant's own guidance, as the rule requires: the
// unit speaks of the assistant, its instructions or the user's requests
// ("rate limit rules do not apply to admin tokens" is a rule of the
// tool's domain), or of the user, agents, refusals or guardrails
// (overrideUser). A tool whose job is setting a prompt (a system_prompt
// or persona parameter) may describe the assistant it configures: there
// the sentence itself must speak to the model reading it.
func overridesAssistant(ss []sentence, text string, props map[string]bool) bool {
	for p := range props {
		if promptParameters[squash(p)] {
			return directAddress.MatchString(text)
		}
	}
	for _, x := range ss {
		if overrideOwned.MatchString(x.sp.text) || overrideAddressee.MatchString(x.sp.text) ||
			overrideUser.MatchString(x.sp.text) {
			return true
		}
	}
	return false
}

// overrideUser is text that speaks of the user, of agents or assistants,
// or of their refusals and guardrails: the guidance an override voids.
var overrideUser = re(`\b(?:users?|user's|agents?|assistants|refusals?|guardrails?)\b|\butilisateurs?\b|\bl'agent\b|\bl'utilisateur\b|用户|对话|智能体`)

// promptParameters are parameters, squashed, that set another model's
// prompt.
var promptParameters = map[string]bool{"systemprompt": true, "systemmessage": true, "persona": true,
	"instructions": true, "systeminstructions": true, "prompt": true}

// directAddress is text that speaks to the model reading it.
var directAddress = re(`\b(?:you|your|yourself)\b|\bvous\b|\bvos\b|\bvotre\b|\btu\b|\bton\b|\btes\b|你|您`)

// manages is a sentence about listing, showing or checking things.
var manages = re(`\b(?:` + manageVerbs + `)\b`)

// collectionKeeps is a sentence that keeps or sends what it gathers.
var collectionKeeps = re(`\b(?:keeps?|stores?|retains?|saves?|logs?|collects?|gathers?|harvests?|archives?|caches?|uploads?|sends?|forwards?|transmits?|syncs?|copies|shares?)\b`)

// ownServerOnly reports a text that keeps its rules to the server's own
// tools.
func ownServerOnly(text string) bool {
	return orderingOwnServer.MatchString(text) && !orderingAnyServer.MatchString(text)
}

// byteOffset is the byte offset of rune offset r in s.
func byteOffset(s string, r int) int {
	for i := range s {
		if r == 0 {
			return i
		}
		r--
	}
	return len(s)
}

// topFeatures are the n features of feats that push most towards c,
// quoted.
func topFeatures(m *textclf.Model, feats []string, c, n int) []string {
	type fw struct {
		f string
		w float64
	}
	var ws []fw
	for _, f := range feats {
		if w := m.Contribution([]string{f}, c); w > 0 {
			ws = append(ws, fw{f, w})
		}
	}
	slices.SortFunc(ws, func(a, b fw) int { return cmp.Or(cmp.Compare(b.w, a.w), cmp.Compare(a.f, b.f)) })
	var out []string
	for i := 0; i < len(ws) && i < n; i++ {
		if label, ok := cueLabels[ws[i].f]; ok {
			out = append(out, "("+label+")")
			continue
		}
		out = append(out, fmt.Sprintf("%q", ws[i].f))
	}
	return out
}

// ClassifierClassNames are the names of ClassifierClasses, in order.
func ClassifierClassNames() []string {
	out := make([]string, len(ClassifierClasses))
	for i, c := range ClassifierClasses {
		out[i] = c.Name
	}
	return out
}
