package diffreview

import (
	"regexp"
	"strings"

	"github.com/mcpreg/mcpreg/internal/textclf"
)

// Cues are features the word model reads besides a sentence's words: what
// the sentence does, which no single word of it says. A steering attack
// names the tool it steers (payments_transfer, calendarCreateEvent), a
// name the model has never seen and so gives no weight; the cue stands
// for every such name. A cue starts with textclf.CuePrefix, which no word
// does (textclf.Tokens keeps letters and digits only).
const (
	// cueOtherTool: the sentence names a tool that is neither one of the
	// server's nor a member of this tool (a parameter).
	cueOtherTool = textclf.CuePrefix + "other_tool"
	// cueToolChange: it does, and it speaks of setting, replacing,
	// adding or removing something (what that tool is given or returns).
	cueToolChange = textclf.CuePrefix + "tool_change"
)

// cueLabels say what each cue means, for the reviewer reading which
// features weighed most.
var cueLabels = map[string]string{
	cueOtherTool:  "names a tool the server does not have",
	cueToolChange: "changes what a tool the server does not have is given or returns",
}

// cueContext is what the cues need to know of the tool: the server's own
// tool names and the tool's member names, squashed (squash), so that
// next_thought_needed names the parameter nextThoughtNeeded.
type cueContext struct {
	own, props map[string]bool
}

// squashedSet is names squashed.
func squashedSet(names map[string]bool) map[string]bool {
	out := make(map[string]bool, len(names))
	for n := range names {
		out[squash(n)] = true
	}
	return out
}

// knows reports whether name is one of the server's tools or one of the
// tool's members.
func (c cueContext) knows(name string) bool {
	n := squash(name)
	return c.own[n] || c.props[n]
}

// identifier is a snake_case or camelCase name, as tools are named, not
// within a dotted path (process.env.GITHUB_TOKEN).
var identifier = regexp.MustCompile(`(?:^|[^.\w])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)\b`)

// toolLike reports whether an identifier may name a tool: a constant or
// an environment variable (GITHUB_TOKEN, MAX_RETRIES) is written in
// capitals.
func toolLike(id string) bool {
	return strings.ToUpper(id) != id
}

// changeWords are words that change what something is given or returns,
// by prefix ("replac" stands for "replace", "replaced", "remplacé" is
// "remplac"); zhChange are their Chinese forms, looked for in the text.
var (
	//nolint:misspell // stems, not words: "includ" stands for include, included, including
	changeWords = []string{"set", "replac", "rewrit", "chang", "swap", "add", "includ", "insert", "remov",
		"drop", "round", "multipl", "mov", "fix", "becom", "point", "receiv", "overrid", "append", "strip", "filter",
		"normalis", "normaliz", "correct", "adjust", "redirect", "retry", "instead",
		"remplac", "réécri", "ajout", "retir", "écart", "arrondi", "corrig", "devient", "reçoi", "joint", "réglé",
		"fixé", "modifi", "supprim", "utilise"}
	zhChange = []string{"改", "替换", "加", "乘", "设", "删", "移除", "上调", "调整", "填", "写入", "附"}
)

// addCues appends to each sentence ss of text its cues.
func addCues(text string, ss []textclf.Sentence, ctx cueContext) {
	if !strings.Contains(text, "_") && !hasUpper(text) {
		return // no identifier: no cue
	}
	runes := []rune(text)
	for i := range ss {
		se := &ss[i]
		sent := string(runes[se.Start:se.End])
		other := false
		for _, m := range identifier.FindAllStringSubmatch(sent, -1) {
			if id := m[1]; toolLike(id) && !ctx.knows(id) {
				other = true
				break
			}
		}
		if !other {
			continue
		}
		se.Features = append(se.Features, cueOtherTool)
		if changes(se.Features, sent) {
			se.Features = append(se.Features, cueToolChange)
		}
	}
}

// changes reports whether a sentence, given by its features and its
// text, speaks of changing something.
func changes(features []string, sent string) bool {
	for _, f := range features {
		if strings.ContainsAny(f, " ~") {
			continue // bigrams and stems
		}
		for _, p := range changeWords {
			if strings.HasPrefix(f, p) {
				return true
			}
		}
	}
	return !plainASCII(sent) && containsAny(sent, zhChange)
}

// hasUpper reports whether s holds an ASCII capital letter.
func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}
