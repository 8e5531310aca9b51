package diffreview

import (
	"regexp"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
)

// KindCoerciveOrdering is the kind of a description that demands to be
// called first, after every other call, or instead of other tools.
const KindCoerciveOrdering = "poisoning.coercive_ordering"

// A sentence orders the model's tool use coercively when it puts a rule
// on all of the model's activity (every conversation, each tool call, any
// other tool, whatever the server or the topic) and that rule is an order
// or a replacement (before, after, first, instead of, supersedes). Either
// alone is ordinary documentation: "call list_tables first" names one
// step of one task; "returns every tool's metrics" orders nothing.
var (
	orderingScope = regexp.MustCompile(`(?i)` +
		// English
		`\b(?:any|every|each|all)\s+(?:and\s+every\s+|other\s+|single\s+|subsequent\s+|new\s+|of\s+the\s+|the\s+)?(?:other\s+)?(?:[a-z-]+\s+)?(?:tools?|tool\s+calls?|calls?|repl(?:y|ies)|responses?|answers?|conversations?|sessions?|turns?|questions?|messages?|actions?|requests?|results?|outputs?|operations?)\b` +
		`|\bwhatever\s+(?:server|tool|the)|\bregardless\s+of\b|\bno\s+matter\s+(?:which|what)\b|\beven\s+when\b|\bother\s+(?:[a-z-]+\s+)?(?:servers?|tools)\b` +
		// French
		`|\b(?:tout|toute|tous|toutes|chaque|chacun(?:e)?|n'importe\s+quel(?:le)?|la\s+moindre|le\s+moindre|aucune?)\s+(?:(?:les|autre|autres|nouvelle?|de\s+vos|tour\s+de)\s+)?(?:outils?|appels?|réponses?|conversations?|sessions?|tours?|questions?|actions?|messages?|textes?|résultats?|modifications?|démarches?|mentions?|command(?:e|es)|recherches?)\b` +
		`|quel(?:le)?s?\s+que\s+soi(?:t|ent)|d'où\s+qu|tous\s+serveurs|sans\s+exception|même\s+non|même\s+d'ordre|tout\s+premier|qu'il\s+vienne` +
		// Chinese
		`|任何|任意|任一|所有|每次|每一次|每当|其他|其它|每个|凡是|无论|不管|不论|没有例外|即便|即使|哪怕|一切`)
	orderingRelation = regexp.MustCompile(`(?i)` +
		`\b(?:before|after|first|following|prior\s+to|preceding|at\s+the\s+(?:start|beginning|end)\s+of|begin|supersedes?|instead\s+of|rather\s+than|in\s+place\s+of|preferred|left\s+unused|precedence|only\s+after|once\s+\S+\s+has\s+returned)\b` +
		`|\b(?:avant|après|d'abord|en\s+premier|au\s+début|à\s+l'issue|premi(?:er|ère)|précède|précéder|préalable|suivie?s?\s+d|à\s+la\s+place|au\s+lieu|prime\s+sur|prévaut|à\s+préférer|de\s+préférence|tant\s+que|en\s+fin\s+de|commence)` +
		`|之前|以前|之后|以后|首先|第一|最开始|优先|改用|而不要|不要使用|收尾|紧接着|完毕后|完成后|结束以后|返回之前|先于|须先|必须先|都必须先`)
	// orderingOwnServer: the rule is kept to the server's own tools ("log
	// in before any other tool of this server"), which an authentication
	// or session tool may ask; orderingAnyServer widens it again.
	orderingOwnServer = regexp.MustCompile(`(?i)\b(?:tools?|calls?|operations?)\s+(?:of|on|from|in)\s+this\s+server\b|\bthis\s+server'?s\s+(?:other\s+)?tools\b|\boutils?\s+de\s+ce\s+serveur\b|(?:本|该)服务器的?(?:其他|其它|所有|任何)?工具`)
	orderingAnyServer = regexp.MustCompile(`(?i)\bother\s+servers?\b|\bwhatever\s+server\b|\bany\s+server\b|\bautres?\s+serveurs?\b|tous\s+serveurs|quel\s+que\s+soit\s+le\s+serveur|其他服务器|任何服务器`)
	// orderingAct: the sentence is about using or calling tools.
	orderingAct = regexp.MustCompile(`(?i)\b(?:call|invok|run|execut|use|using|used|consult|submit|route|go\s+through|appel|lanc|exécut|utilis|consult|soumi|recour|passer\s+par|s'exécute)|调用|使用|执行|运行|处理|作答|交给`)
)

// orderingSelf: the sentence speaks of the tool it describes (this
// tool, cet outil, 本工具, call it), not of some step of a task.
var orderingSelf = regexp.MustCompile(`(?i)\b(?:this|the\s+present)\s+tool\b|\b(?:cet|le\s+présent)\s+outil\b|(?:本|该|此|这个)工具|(?:调用|使用|运行|执行)它`)

// namesItself reports whether text speaks of the tool named tool itself:
// by orderingSelf or by its name, as a whole word.
func namesItself(text, tool string) bool {
	if orderingSelf.MatchString(text) {
		return true
	}
	for i := 0; tool != "" && i < len(text); {
		j := strings.Index(text[i:], tool)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(tool)
		if (start == 0 || !nameByte(text[start-1])) && (end == len(text) || !nameByte(text[end])) {
			return true
		}
		i = start + 1
	}
	return false
}

// nameByte reports whether c may be part of a tool name.
func nameByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// orderingTriggers gate the rule cheaply (lower-cased text).
var orderingTriggers = []string{"before", "after", "first", "following", "prior", "preced", "start", "begin", "supersed", "instead",
	"rather", "place of", "prefer", "unused", "avant", "après", "abord", "premi", "début", "issue", "précè", "préala", "suivi",
	"place", "lieu", "prime", "prévaut", "tant que", "fin de", "commence",
	"之前", "以前", "之后", "以后", "先", "第一", "最开始", "优先", "改用", "不要", "收尾", "紧接着", "后"}

// A sentence that only suggests an order ("useful as a first call to
// discover which names other tools accept") demands nothing, unless it
// also says must, always, every, required or the like.
var (
	orderingAdvice     = re(`\b(?:useful|helpful|handy|recommended|you\s+(?:can|may)|can\s+be\s+used)\b`)
	orderingObligation = re(`\b(?:must|always|required|requires?|shall|need\s+to|has\s+to|have\s+to|mandatory|should|every|never|only|each)\b`)
)

// orderingActTriggers gate orderingAct: each of its alternatives starts
// with one of them.
var orderingActTriggers = []string{"call", "invok", "run", "execut", "use", "using", "consult", "submit", "route", "go ",
	"appel", "lanc", "exécut", "utilis", "soumi", "recour", "passer", "s'exécute",
	"调用", "使用", "执行", "运行", "处理", "作答", "交给"}

// coerciveOrdering returns the first sentence of text that orders the
// model's tool use coercively.
func coerciveOrdering(text, lower string) (phraseHit, bool) {
	if !containsAny(lower, orderingTriggers) {
		return phraseHit{}, false
	}
	return sentenceHit(text, KindCoerciveOrdering, "demands to be used first, after every other call, or instead of other tools",
		func(sent string) bool {
			// The trigger test, then the small patterns first: most
			// sentences of a long text fail early.
			lower := triggerText(sent)
			return containsAny(lower, orderingTriggers) && containsAny(lower, orderingActTriggers) &&
				orderingRelation.MatchString(sent) && orderingAct.MatchString(sent) && orderingScope.MatchString(sent) &&
				!(orderingAdvice.MatchString(sent) && !orderingObligation.MatchString(sent)) &&
				(!orderingOwnServer.MatchString(sent) || orderingAnyServer.MatchString(sent))
		})
}

// sentenceHit is the first sentence of text that ok accepts, as a medium
// hit of kind saying message.
func sentenceHit(text, kind, message string, ok func(sent string) bool) (phraseHit, bool) {
	for _, s := range sentences(text) {
		if ok(text[s[0]:s[1]]) {
			return phraseHit{kind, finding.Medium, message, s[0], s[1]}, true
		}
	}
	return phraseHit{}, false
}

// sentences returns the byte ranges of text's sentences: split after
// . ! ? ; (followed by space or the end), their full-width forms and line
// breaks, trimmed.
func sentences(text string) [][2]int {
	var out [][2]int
	start := 0
	emit := func(end int) {
		s, e := start, end
		for s < e && strings.ContainsRune(" \t\r\n", rune(text[s])) {
			s++
		}
		if s < e {
			out = append(out, [2]int{s, e})
		}
	}
	for i, r := range text {
		switch r {
		case '。', '！', '？', '；', '\n':
			emit(i + len(string(r)))
			start = i + len(string(r))
		case '.', '!', '?', ';':
			if next := i + 1; next == len(text) || text[next] == ' ' || text[next] == '\n' {
				emit(i + 1)
				start = i + 1
			}
		}
	}
	emit(len(text))
	return out
}
