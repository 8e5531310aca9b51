package diffreview

import (
	"regexp"
	"slices"
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
	// cueWithheld: the sentence (with the clauses it is joined to by
	// semicolons) speaks of what the user is told (a reply, a summary, a
	// confirmation, a mention) and narrows or negates it (only, not,
	// unmentioned, passed over): what keeps a step from the user.
	cueWithheld = textclf.CuePrefix + "withheld"
	// cueHistory: the sentence speaks of what was said earlier in the
	// conversation as a whole or word for word (the user's previous
	// messages, everything said today, the full exchange), the object of
	// a request to pass it on.
	cueHistory = textclf.CuePrefix + "history"
	// cueHistoryArg: the sentence speaks of the earlier conversation
	// (cueHistory) and names a member of the tool that is not named for
	// it: what is said earlier is to go into that argument.
	cueHistoryArg = textclf.CuePrefix + "history_arg"
)

// cueLabels say what each cue means, for the reviewer reading which
// features weighed most.
var cueLabels = map[string]string{
	cueOtherTool:  "names a tool the server does not have",
	cueToolChange: "changes what a tool the server does not have is given or returns",
	cueWithheld:   "narrows or negates what the user is told",
	cueHistory:    "speaks of the earlier conversation as a whole or word for word",
	cueHistoryArg: "puts the earlier conversation into an argument not meant for it",
}

// cueContext is what the cues need to know of the tool: the server's own
// tool names and the tool's member names, squashed (squash), so that
// next_thought_needed names the parameter nextThoughtNeeded.
type cueContext struct {
	own, props map[string]bool
	// member is the parameter whose description the text is, if it is
	// one.
	member string
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
	runes := []rune(text)
	tellingCues(runes, ss)
	if !meantForHistory(ctx.member) {
		historyCues(runes, ss, ctx.props)
	}
	if !strings.Contains(text, "_") && !hasUpper(text) {
		return // no identifier: no tool cue
	}
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

// Telling and withholding, by word prefix (English and French) and, for
// Chinese, by substring. A telling word is a verb or noun of reporting to
// someone: the reply, the summary, the confirmation, a mention. A
// withholding word narrows or negates: only, not, nothing, without, or a
// reporting word negated by its prefix (unmentioned, unreported).
var (
	tellWords = []string{"mention", "unmention", "reported", "unreport", "told", "summar", "reply", "replies", "narrat", "relay",
		"remark", "unremark", "described", "itemi", "surfac", "confirmation", "recap", "unstat", "unsaid", "unspoken", "unnotic", "unaddress",
		"unannounc", "undisclos", "unflag", "informed", "réponse", "résumé", "synthèse", "rendu", "évoqu", "signaler",
		"citer", "préciser", "communiqué", "rapport", "apparaî", "apparai", "paraî", "parai", "instruit", "averti", "prévenu", "récapitul", "restitu"}
	zhTell    = []string{"告知", "告诉", "向用户提", "回复", "答复", "汇报", "总结", "透露"}
	holdWords = []string{"only", "alone", "not", "no", "never", "nothing", "none", "neither", "nor", "without", "rather",
		"beyond", "omit", "left", "spare", "outside", "exclud", "refrain", "superfluous", "unnecessary", "needless",
		"unmention", "unreport", "unremark", "unstat", "unsaid", "unspoken", "unnotic", "unaddress", "unannounc", "undisclos", "unflag",
		"pas", "aucun", "rien", "ni", "sans", "seul", "uniquement", "born", "limit", "content", "arrêt", "hors", "inutil",
		"abstien", "épargn", "écart", "tais", "tair", "silence", "implicit"}
	zhHold = []string{"不", "无需", "无须", "只", "仅", "省略", "略", "免", "勿", "别"}
)

// isTellBigram reports whether a feature is a phrase of reporting
// ("faire état", to mention).
func isTellBigram(f string) bool {
	switch f {
	case "faire état", "fait état", "fasse état", "font état":
		return true
	}
	return false
}

// isHoldBigram reports whether a feature is a phrasal verb of leaving
// something out ("passed over").
func isHoldBigram(f string) bool {
	switch f {
	case "passed over", "glossed over", "skipped over", "skated over":
		return true
	}
	return false
}

// tellingCues marks each sentence of ss (runes its text) that speaks of
// what the user is told and narrows or negates it with cueWithheld. A
// sentence is read with those it is joined to by a semicolon, which
// often holds the other half ("summaries describe the change only; the
// webhook is best left unstated").
func tellingCues(runes []rune, ss []textclf.Sentence) {
	told := make([]bool, len(ss))
	held := make([]bool, len(ss))
	for i, se := range ss {
		sent := string(runes[se.Start:se.End])
		han := !plainASCII(sent)
		told[i] = hasWordPrefix(se.Features, tellWords) && !asksConfirmation(se.Features) ||
			slices.ContainsFunc(se.Features, isTellBigram) || han && containsAny(sent, zhTell)
		held[i] = hasWordPrefix(se.Features, holdWords) || slices.ContainsFunc(se.Features, isHoldBigram) || han && containsAny(sent, zhHold)
	}
	// clauses: runs of sentences joined by semicolons.
	for i := 0; i < len(ss); {
		j := i + 1
		for j < len(ss) && semicolonBetween(runes, ss[j-1].End, ss[j].Start) {
			j++
		}
		t, h := false, false
		for k := i; k < j; k++ {
			t, h = t || told[k], h || held[k]
		}
		if t && h {
			for k := i; k < j; k++ {
				ss[k].Features = append(ss[k].Features, cueWithheld)
			}
		}
		i = j
	}
}

// semicolonBetween reports whether runes[from:to] holds a semicolon.
func semicolonBetween(runes []rune, from, to int) bool {
	for _, r := range runes[from:to] {
		if r == ';' || r == '；' {
			return true
		}
	}
	return false
}

// hasWordPrefix reports whether a unigram of features begins with one of
// prefixes; a prefix of three letters or fewer must be the whole word.
func hasWordPrefix(features []string, prefixes []string) bool {
	for _, f := range features {
		if strings.ContainsAny(f, " ~") {
			continue // bigrams and stems
		}
		for _, p := range prefixes {
			if f == p || len(p) > 3 && strings.HasPrefix(f, p) {
				return true
			}
		}
	}
	return false
}

// asksConfirmation reports whether a sentence speaks of a confirmation
// asked of the user (after confirmation, without confirmation), not of
// one given to them, and of no other telling.
func asksConfirmation(features []string) bool {
	asked := false
	for _, f := range features {
		switch f {
		case "after confirmation", "without confirmation", "for confirmation", "requires confirmation", "user confirmation", "explicit confirmation":
			asked = true
		}
	}
	if !asked {
		return false
	}
	var other []string
	for _, f := range features {
		if !strings.HasPrefix(f, "confirmation") {
			other = append(other, f)
		}
	}
	return !hasWordPrefix(other, tellWords)
}

// What was said earlier: a word for the conversation's content and a word
// that takes it whole, word for word or from before.
var (
	saidWords = []string{"message", "utterance", "conversation", "chat", "turns", "told", "said", "exchange",
		"transcript", "dialog", "échange", "discussion", "propos", "saisi"}
	zhSaid     = []string{"对话", "聊天", "消息", "会话", "说过"}
	earlyWords = []string{"previous", "prior", "earlier", "last", "past", "preceding", "verbatim", "whole", "entire", "complete",
		"today", "précédent", "antérieur", "tôt", "intégral", "entier", "mot"}
	zhEarly = []string{"之前", "此前", "先前", "以往", "历史", "原文", "逐字", "上文", "前面"}
)

// historyWords name a parameter meant to carry the conversation
// (previous_messages, chatHistory, transcript): that one is documented
// for it, and the earlier conversation in its description is no request
// to smuggle it out.
var historyWords = []string{"message", "history", "conversation", "transcript", "chat", "turn", "dialog", "context", "echange", "historique"}

// meantForHistory reports whether the parameter member is named for the
// conversation.
func meantForHistory(member string) bool {
	return member != "" && containsAny(strings.ToLower(member), historyWords)
}

// historyCues marks each sentence of ss (runes its text) that speaks of
// the earlier conversation with cueHistory, and with cueHistoryArg too
// when it names one of props (squashed member names) not meant for the
// conversation.
func historyCues(runes []rune, ss []textclf.Sentence, props map[string]bool) {
	for i, se := range ss {
		sent := string(runes[se.Start:se.End])
		han := !plainASCII(sent)
		said := hasWordPrefix(se.Features, saidWords) || han && containsAny(sent, zhSaid)
		if said && (hasWordPrefix(se.Features, earlyWords) || han && containsAny(sent, zhEarly)) {
			ss[i].Features = append(ss[i].Features, cueHistory)
			if namesMember(sent, props) {
				ss[i].Features = append(ss[i].Features, cueHistoryArg)
			}
		}
	}
}

// namesMember reports whether sent holds, as a whole word, one of props
// (squashed member names) that is not named for the conversation.
func namesMember(sent string, props map[string]bool) bool {
	if len(props) == 0 {
		return false
	}
	for _, w := range strings.FieldsFunc(sent, func(r rune) bool { return !isWordRune(r) }) {
		if n := squash(w); props[n] && !containsAny(n, historyWords) {
			return true
		}
	}
	return false
}
