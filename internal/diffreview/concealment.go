package diffreview

import (
	"regexp"
)

// Concealment said without "do not tell the user": a sentence that keeps
// something out of what the model reports (the reply, the summary, the
// confirmation, the conversation) by omission or by narrowing it, in the
// passive or indirect voice. Both parts must be there: "omit to use the
// default" narrows nothing a user is told, and "the response lists the
// files" keeps nothing back.
var (
	concealChannel = regexp.MustCompile(`(?i)` +
		`\b(?:respons|repl(?:y|ies)|answer|summar|confirmation|report|conversation|user[\s-]facing|the\s+user|explanation|message|recap|output\s+shown)` +
		`|\b(?:réponse|résum|compte[\s-]rendu|rapport|bilan|confirmation|échanges|explications|message|l'utilisateur|récapitulatif|conversation|synthèse)` +
		`|回复|回答|总结|汇总|说明|对话|汇报|向用户|给用户|用户|摘要|答复|展示`)
	concealOmission = regexp.MustCompile(`(?i)` +
		`\bneed(?:s)?\s+not\s+(?:be\s+)?(?:surfac|mention|shown|show|disclos|explain|report|brought|rais|include|describ|detail)` +
		`|\b(?:best|preferably|better|ideally|usually|typically|customarily)\s+(?:be\s+)?left\s+(?:unmentioned|unstated|unsaid|out|aside)` +
		`|\bleft\s+(?:unmentioned|unstated|unsaid)|\bomit(?:s|ting|ted)?\b|\bleave\s+(?:this|that|it|them|these)\s+out\b` +
		`|\bnot\s+(?:a\s+topic|brought\s+up|surfaced|to\s+be\s+mentioned|worth\s+mentioning|appear)|\bhandled\s+quietly|\bwithout\s+(?:mentioning|noting|surfacing|drawing\s+attention)` +
		`|\b(?:kept|keep|remains?|stays?)\s+(?:out\s+of|outside)\b|\bnothing\s+more\b|\b(?:only|alone)\b[^.;]{0,40}\b(?:is|are)\s+(?:reported|mentioned|described|shown)` +
		`|\b(?:describe|list|cover|say|state|mention)s?\s+(?:the\s+\S+\s+)?(?:only|alone)\b|\bgo(?:es)?\s+beyond\s+what\s+the\s+user\s+needs` +
		`|n'a\s+pas\s+(?:vocation|à\s+être|lieu)|sous\s+silence|(?:reste|restent|rester)\s+(?:en\s+dehors|hors)|\bhors\s+du|ne\s+transparaisse|n'abord|se\s+résume|s'en\s+tien|tai(?:se|ra|re)\b|élud|sans\s+(?:évoquer|mentionner|préciser|signaler)|inutile\s+de\s+(?:mentionner|préciser|signaler)|portent\s+uniquement|ne\s+font\s+état\s+que|pas\s+besoin\s+d'en\s+parler|mieux\s+vaut\s+ne\s+pas` +
		`|(?:无需|无须|不必|不需要|不用)(?:特意|特别|再)?(?:向用户)?(?:说明|提及|交代|告知|展开|指出|体现|解释|汇报|提|说)|省略|略过|略去|不提|不在.{0,12}(?:范围|之列)|不要出现|不会也不需要|留在后台|一般不在|只需(?:报告|说明|告知|回复|呈现|复述|回答|展示|知道)|(?:回答|回复|答复)[^，。]{0,12}即可|统一使用|不要提及|不予说明`)
)

// concealTriggers gate the rule cheaply.
var concealTriggers = []string{"need not", "needs not", "left", "omit", "leave", "not a topic", "brought up", "surfaced", "appear",
	"quietly", "without mention", "without not", "without surf", "without draw", "out of", "outside", "nothing more", "only", "alone",
	"beyond what", "vocation", "à être", "silence", "dehors", "hors", "transparaisse", "abord", "résume", "tien", "tai", "élud",
	"sans ", "inutile", "uniquement", "font état", "besoin", "mieux vaut",
	"无需", "无须", "不必", "不需要", "不用", "省略", "略", "不提", "不在", "不要", "不会", "后台", "一般不", "只需", "即可", "统一使用", "不予"}

// concealment returns the first sentence of text that keeps something
// from the user by omission.
func concealment(text, lower string) (phraseHit, bool) {
	if !containsAny(lower, concealTriggers) {
		return phraseHit{}, false
	}
	return sentenceHit(text, KindSecrecy, "keeps something out of what the model tells the user, without saying so outright",
		func(sent string) bool { return concealChannel.MatchString(sent) && concealOmission.MatchString(sent) })
}
