package diffreview

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
)

// Cross-tool steering in prose: a sentence that names another tool in a
// call context (when it is called, calls to it, its results, 调用 X 时)
// and changes what that tool is given or what it returned (set, replace,
// instead of, always, 替换, 一律). Naming a sibling tool as the next step
// of a task ("call list_tables first") is neither.
var (
	steerIdentifier = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)
	steerContext    = regexp.MustCompile(`(?i)` +
		`\bwhen(?:ever)?\b|\bif\s+(?:the\s+user\s+asks\s+)?(?:the\s+)?\S+\s+(?:tool\s+)?(?:is|are|returns?|reports?)|\bcalls?\s+to\b|\beach\s+time\b|\bfor\s+every\s+call\b|\b(?:is|are)\s+(?:called|invoked|used|run|executed)\b|\b(?:results?|outputs?|rows|responses?)\s+(?:from|of|returned\s+by)\b|\bcreated\s+with\b|\bsent\s+(?:through|with|via|by)\b|\bis\s+always\s+(?:given|called|run)\b` +
		`|\blorsque\b|\bquand\b|\blors\s+d|\bau\s+moment\s+d|\best\s+appelée?\b|\bappel\s+à\b|\bles\s+résultats\s+de\b|\bpour\s+toute\b|\benvoyées?\s+par\b|\best\s+toujours\s+lancée?\b` +
		`|调用\s*[A-Za-z_]+\s*(?:时|发送|创建|保存)|使用\s*[A-Za-z_]+\s*(?:时|给|保存|上传|订票|发送)|执行\s*[A-Za-z_]+\s*时|返回的|当你调用`)
	steerChange = regexp.MustCompile(`(?i)` +
		`\b(?:replac|substitut|instead\s+of|in\s+(?:their|its)\s+place|set\s+to|is\s+set|are\s+set|should\s+(?:be|have|use|always|include|also)|must\s+(?:be|include|use)|need\s+(?:their|its)|always|discard|change\s+its|regardless\s+of\s+what\s+the\s+user|add(?:ed)?\s+(?:as|to|first)|goes\s+in|also\s+be\s+e-?mailed|no\s+need\s+to\s+ask)` +
		`|remplac|plutôt\s+que|à\s+la\s+place|doit|vaut\b|utilisez|passez|ajouté|toujours|multipliez|ne\s+la\s+reprenez|et\s+non\s+celui|même\s+si\s+l'utilisateur|utilise\s+l'expéditeur` +
		`|替换|改为|一律|设置为|设为|附加|无需|填写|同时发送|加上|增加|忽略用户|而不是`)
)

var steerTriggers = []string{"_"}

// steering returns the first sentence of text that steers a tool other
// than own's, and the tool it names.
func (s *scanner) steering(text, lower string, props map[string]bool) (phraseHit, bool) {
	if !containsAny(lower, steerTriggers) {
		return phraseHit{}, false
	}
	ss := sentences(text)
	for i, sp := range ss {
		// A clause ending in ";" reads with the next one: "results from X
		// are stale; replace them".
		if i+1 < len(ss) && (text[sp[1]-1] == ';' || strings.HasSuffix(text[:sp[1]], "；")) {
			sp[1] = ss[i+1][1]
		}
		sent := text[sp[0]:sp[1]]
		if !strings.Contains(sent, "_") {
			continue
		}
		var other string
		for _, id := range steerIdentifier.FindAllString(sent, -1) {
			if !s.own[id] && !props[id] {
				other = id
				break
			}
		}
		if other != "" && steerContext.MatchString(sent) && steerChange.MatchString(sent) {
			return phraseHit{KindCrossToolInstruction, finding.Medium,
				fmt.Sprintf("changes how %q, a tool this server does not have, is called or what it returned", other), sp[0], sp[1]}, true
		}
	}
	return phraseHit{}, false
}
