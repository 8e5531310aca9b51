package diffreview

import (
	"fmt"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/textclf"
	"github.com/mcpreg/mcpreg/pin"
)

// Poisoning looks for tool-poisoning indicators in all model-visible text
// of a server: each tool's name, title and description, every string and
// member name in its annotations, inputSchema and outputSchema, and the
// server's instructions. Text hidden as Unicode tag characters, base64,
// hex or a data: URI is decoded and scanned too.
//
// Findings point into the tool's raw JSON (RFC 6901), or at /instructions,
// and carry an excerpt with hidden characters made visible. They are
// evidence for a reviewer, not verdicts; the result is sorted with
// finding.Sort and holds at most one finding per kind, tool and pointer.
func Poisoning(tools []pin.Tool, instructions *string) []finding.Finding {
	s := newScanner(tools)
	s.server(tools, instructions)
	return s.result()
}

// scanner collects the findings of one Poisoning call.
type scanner struct {
	own map[string]bool // names of the server's own tools
	// props are the member names of the tool being scanned (its
	// parameters), which its description may name.
	props map[string]bool
	out   []finding.Finding
	model *textclf.Model // the word model
	// ownSquashed is own with the names squashed, made when the word
	// model first needs it.
	ownSquashed map[string]bool
}

func newScanner(tools []pin.Tool) *scanner {
	own := make(map[string]bool, len(tools))
	for _, t := range tools {
		own[t.Name] = true
	}
	return &scanner{own: own, model: TextModel()}
}

// server scans the tools and the instructions.
func (s *scanner) server(tools []pin.Tool, instructions *string) {
	for _, t := range tools {
		s.tool(t)
	}
	if instructions != nil {
		sp := span{pointer: instructionsPointer, text: *instructions}
		s.scan("", sp)
		s.classify("", []span{sp})
	}
}

// tool scans one tool.
func (s *scanner) tool(t pin.Tool) {
	spans, err := toolSpans(t.Raw)
	if err != nil {
		s.add(finding.Finding{Kind: KindUnreadableTool, Severity: finding.Medium, Tool: t.Name,
			Message: "the tool's JSON could not be read in full, so part of it was not scanned: " + err.Error()})
	}
	s.props = map[string]bool{}
	for _, sp := range spans {
		if sp.name {
			s.props[sp.text] = true
		}
	}
	for _, sp := range spans {
		s.scan(t.Name, sp)
	}
	s.exfilParams(t.Name, spans)
	s.classify(t.Name, spans)
	s.props = nil
}

// scan runs every text detector over one span.
func (s *scanner) scan(tool string, sp span) {
	p := prepare(sp.text, sp.name)
	s.hidden(tool, sp)
	s.phrases(tool, sp, p, "")
	s.payloads(tool, sp, p)
}

// hiddenSeverity rates the most dangerous hidden class in a string.
var hiddenSeverity = map[hiddenClass]finding.Severity{
	hiddenTag:         finding.Critical,
	hiddenBidiControl: finding.High,
	hiddenVariation:   finding.Medium,
	hiddenControl:     finding.Medium,
	hiddenFormat:      finding.Medium,
	hiddenZeroWidth:   finding.Medium,
	hiddenBidiMark:    finding.Low,
}

// hidden reports invisible characters and scans text hidden in tag
// characters.
func (s *scanner) hidden(tool string, sp span) {
	runs := findHidden(sp.text)
	if len(runs) == 0 {
		return
	}
	sum := summarize(runs)
	msg := "contains hidden characters: " + sum.describe()
	if len(sum.tagText) > 0 {
		msg += fmt.Sprintf("; the tag characters spell %q", truncate(strings.Join(sum.tagText, " "), 200))
	}
	s.add(finding.Finding{Kind: KindInvisibleUnicode, Severity: hiddenSeverity[sum.worst], Tool: tool,
		Pointer: sp.pointer, Message: msg,
		Evidence: excerptOf(sp.text, runs[0].start, runs[len(runs)-1].end, hiddenEvidenceMax),
		Span:     finding.RuneSpan(sp.text, runs[0].start, runs[len(runs)-1].end)})
	if len(sum.tagText) > 0 {
		s.derived(tool, sp, strings.Join(sum.tagText, "\n"), "Unicode tag characters")
	}
}

// hiddenEvidenceMax lets evidence show up to 200 tag characters.
const hiddenEvidenceMax = 800

// derived scans text decoded from a hidden or encoded form of sp.
func (s *scanner) derived(tool string, sp span, text, via string) {
	s.phrases(tool, sp, prepare(text, false), via)
}

// phrases runs the phrase rules and named-tool instructions over p.
func (s *scanner) phrases(tool string, sp span, p prepared, via string) {
	best := map[string]phraseHit{}
	consider := func(h phraseHit) {
		if cur, ok := best[h.kind]; !ok || h.severity.Rank() > cur.severity.Rank() {
			best[h.kind] = h
		}
	}
	lower := triggerText(p.clean)
	for _, r := range ruleSet {
		if !r.mayMatch(lower) || r.kind == KindExfiltrationRequest && isPropertyDescription(sp.pointer) {
			continue // exfilParams reports requests in parameter descriptions
		}
		if loc := r.re.FindStringIndex(p.clean); loc != nil {
			consider(pathDowngrade(p.clean, reportedDowngrade(p.clean, quotedDowngrade(p.clean, phraseHit{r.kind, r.severity, r.message, loc[0], loc[1]}))))
		}
	}
	if !isPropertyDescription(sp.pointer) {
		if h, ok := coerciveOrdering(p.clean, lower); ok {
			consider(h)
		}
		if h, ok := concealment(p.clean, lower); ok {
			consider(h)
		}
		if h, ok := plainOverride(p.clean, lower); ok {
			consider(h)
		}
		if h, ok := dataCollection(p.clean, lower); ok {
			consider(h)
		}
		if h, ok := s.steering(p.clean, lower, s.props); ok {
			consider(h)
		}
	} else if namesItself(p.clean, tool) {
		// A parameter's description may still order the tool itself
		// to be called first or after every call.
		if h, ok := coerciveOrdering(p.clean, lower); ok {
			consider(h)
		}
	}
	if !sp.name {
		if h, ok := exfilProse(p.clean, lower, isPropertyDescription(sp.pointer)); ok {
			consider(h)
		}
	}
	for _, ref := range namedToolReferences(p.clean, lower) {
		if !s.own[ref.name] && !s.props[ref.name] { // a parameter of this tool is no other tool
			consider(phraseHit{KindCrossToolInstruction, finding.Medium,
				fmt.Sprintf("tells the model how to use %q, a tool this server does not have", ref.name),
				ref.start, ref.end})
		}
	}
	for _, h := range best {
		s.add(h.finding(tool, sp.pointer, p, via))
	}
}

// ruleSet is every phrase rule, sensitive paths included.
var ruleSet = append(append([]rule{}, phraseRules...), sensitivePathRules...)

// phraseHit is the match a rule made.
type phraseHit struct {
	kind       string
	severity   finding.Severity
	message    string
	start, end int
}

// finding turns a hit into a finding; via names the encoding the text was
// hidden in, if any.
func (h phraseHit) finding(tool, ptr string, p prepared, via string) finding.Finding {
	f := finding.Finding{Kind: h.kind, Severity: h.severity, Tool: tool, Pointer: ptr,
		Message: h.message, Evidence: p.excerpt(h.start, h.end), Span: p.span(h.start, h.end)}
	if via != "" {
		f.Span = finding.Span{} // the offsets are into the decoded text, not the string
		f.Message += " (in text hidden as " + via + ")"
		f.Evidence = "decoded " + via + ": " + f.Evidence
	}
	return f
}

// payloads reports encoded blobs and scans what they decode to.
func (s *scanner) payloads(tool string, sp span, p prepared) {
	for _, pl := range findPayloads(p.clean) {
		f := finding.Finding{Kind: KindEncodedPayload, Severity: finding.Medium, Tool: tool,
			Pointer: sp.pointer, Evidence: p.excerpt(pl.start, pl.end), Span: p.span(pl.start, pl.end)}
		if pl.decoded != "" {
			f.Severity = finding.High
			f.Message = fmt.Sprintf("contains %s that decodes to text: %q", pl.encoding, truncate(pl.decoded, 200))
			s.derived(tool, sp, pl.decoded, pl.encoding)
		} else {
			f.Message = fmt.Sprintf("contains an opaque %s blob of %d characters", pl.encoding, pl.end-pl.start)
		}
		s.add(f)
	}
}

// add records a finding.
func (s *scanner) add(f finding.Finding) { s.out = append(s.out, f) }

// result keeps the most severe finding per kind, tool and pointer, sorted.
func (s *scanner) result() []finding.Finding {
	type key struct{ kind, tool, ptr string }
	at := map[key]int{}
	var out []finding.Finding
	for _, f := range s.out {
		k := key{f.Kind, f.Tool, f.Pointer}
		i, seen := at[k]
		switch {
		case !seen:
			at[k] = len(out)
			out = append(out, f)
		case f.Severity.Rank() > out[i].Severity.Rank():
			out[i] = f
		}
	}
	finding.Sort(out)
	return out
}

// truncate cuts s to at most n bytes on a rune boundary, made visible.
func truncate(s string, n int) string {
	if len(s) <= n {
		return Visible(s)
	}
	return Visible(s[:runeStart(s, n)]) + "…"
}

// quotedDowngrade lowers an override or secrecy phrase that stands in
// quotes, as text that explains prompt injection quotes its examples
// ("attackers hide text like 'ignore previous instructions'"). It stays a
// low finding: the evidence is still shown.
func quotedDowngrade(text string, h phraseHit) phraseHit {
	if h.kind != KindInstructionOverride && h.kind != KindSecrecy || !quoted(text, h.start, h.end) {
		return h
	}
	h.severity = finding.Low
	h.message = "quotes a phrase used in prompt injection (" + h.message + ")"
	return h
}

// reportedDowngrade lowers an override or secrecy phrase that is the
// object of a reported directive ("detects text that tells an assistant
// to disregard its rules"): security documentation describes attacks so.
func reportedDowngrade(text string, h phraseHit) phraseHit {
	if h.kind != KindInstructionOverride && h.kind != KindSecrecy || h.severity == finding.Low ||
		!reportedRe.MatchString(text[max(0, h.start-80):h.start]) {
		return h
	}
	if lo, _ := sentenceAround(text, h.start, h.end); selfRe.MatchString(text[lo:h.start]) {
		return h // the tool reports its own directive: it gives it
	}
	h.severity = finding.Low
	h.message = "describes an instruction used in prompt injection (" + h.message + ")"
	return h
}

// selfRe is the tool or its authors speaking of themselves.
var selfRe = re(`\b(?:this\s+(?:tool|server|integration|plugin|extension|skill)|we|our|us|i)\b`)

// reportedRe ends in a directive reported about an assistant.
var reportedRe = re(`\b(?:tells?|telling|told|asks?|asking|instructs?|instructing|tricks?|tricking|coax(?:es|ing)?|persuad(?:es?|ing))\s+(?:an?|the)\s+(?:ai\s+)?(?:assistant|model|llm|agent|chatbot)s?\s+(?:to\s+)?$`)

// pathDowngrade lowers a sensitive-path mention that the sentence negates
// ("never reads ~/.ssh") or names as what the tool manages, shows or
// checks ("lists the hosts defined in ~/.ssh/config", "scans .env files
// for leaked keys"), when the sentence sends nothing anywhere.
func pathDowngrade(text string, h phraseHit) phraseHit {
	if h.kind != KindSensitivePath || h.severity == finding.Low {
		return h
	}
	lo, hi := sentenceAround(text, h.start, h.end)
	before, sent := text[lo:h.start], text[lo:hi]
	switch {
	case pathExfil.MatchString(sent):
		return h
	case pathNegation.MatchString(before):
		h.message = "names a credential or configuration file it says it does not touch (" + h.message + ")"
	case pathManages.MatchString(before):
		h.message = "names a credential or configuration file as what it manages, shows or checks (" + h.message + ")"
	default:
		return h
	}
	h.severity = finding.Low
	return h
}

var (
	pathExfil    = re(`\b(?:send|sends|sent|upload|uploads|forward|forwards|include|includes|attach|attaches|pass|passes|post|posts|copy|copies|share|shares|transmit|transmits|append|appends|embed|embeds|return|returns)\b`)
	pathNegation = re(`\b(?:never|not|no|without|doesn'?t|won'?t|cannot|can'?t)\b[^.;]{0,60}$`)
	pathManages  = re(`\b(?:` + manageVerbs + `)\b[^.;]{0,60}$`)
)

// manageVerbs are what a tool does with things it lists, shows, checks or
// manages rather than takes.
const manageVerbs = `lists?|listing|shows?|displays?|validates?|checks?|audits?|scans?|scanning|parses?|edits?|rotates?|protects?|monitors?|watches|manages?|detects?|finds?|flags?|reports?`

// quoted reports whether text[start:end] is enclosed in matching quotes
// (allowing a few characters of slack on each side).
func quoted(text string, start, end int) bool {
	const slack = 3
	before := text[max(0, start-slack):start]
	after := text[end:min(len(text), end+slack)]
	for _, q := range [][2]string{{"'", "'"}, {"\"", "\""}, {"“", "”"}, {"‘", "’"}, {"`", "`"}} {
		if strings.Contains(before, q[0]) && strings.Contains(after, q[1]) {
			return true
		}
	}
	return false
}

// Text is one piece of model-visible text a server returned at run time
// (a tool result block, a prompt message, a resource's contents), located
// by an RFC 6901 pointer into the answer it came in.
type Text struct {
	Pointer string
	Text    string
}

// Content runs Poisoning's text detectors (hidden characters, the phrase
// rules, encoded payloads) over text nobody reviewed: what a server
// returns. Findings point at each text's pointer and name no tool.
func Content(texts []Text) []finding.Finding {
	s := newScanner(nil)
	for _, t := range texts {
		s.scan("", span{pointer: t.Pointer, text: t.Text})
	}
	return s.result()
}
