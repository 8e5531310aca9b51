package diffreview

import (
	"regexp"
)

// Instruction override in plain sentences, with no marker and no "ignore
// previous instructions": a sentence that voids the assistant's guidance
// (its rules, policies, system prompt, safety or confirmation rules do not
// apply, are void, superseded, lifted), or one that changes how the
// assistant answers everything (every reply, the rest of the
// conversation, while this tool is loaded), addressed to the assistant.
var (
	overrideGuidance = regexp.MustCompile(`(?i)` +
		`\b(?:guidelines?|guidance|polic(?:y|ies)|rules?|instructions?|restrictions?|system\s+prompt|safety|content\s+filters?|refusal|judgement|judgment|configuration|disclaimers?|caveats?|limitations?)\b` +
		`|\b(?:consignes?|règles?|instructions?|prompt\s+système|politiques?|obligations?|garde-fous|restrictions?|filtres?|habitudes?)\b` +
		`|系统提示|准则|规则|规定|安全策略|安全检查|政策|指引|提醒|限制|习惯|免责声明`)
	overrideVoid = regexp.MustCompile(`(?i)` +
		`\bdo(?:es)?\s+not\s+apply|\b(?:is|are)\s+not\s+applicable|\b(?:is|are)\s+(?:now\s+)?void\b|\b(?:no\s+longer|not)\s+bound\b|\bsuperseded\b|\bsupersedes\s+the\s+default|\bset\s+aside\b|\bdisregarded\b|\binactive\b|\brelaxed\b|\btreated\s+as\s+suggestions|\bswitch\s+off\s+your|\boverly\s+strict|\breplaces?\s+its\s+default|\bcontains\s+an\s+error|\bpre-approved|\bnever\s+declined|\bno\s+longer\s+appl` +
		`|n'ont\s+pas\s+cours|ne\s+s'appliquent\s+(?:pas|plus)|\bobsolètes?\b|\bcaduques?\b|\blevée?s?\b|n'est\s+plus\s+tenue?|sans\s+égard|ne\s+couvrent\s+pas|\bsuspendue?s?\b|désactivée?s?|sont\s+levées|proscrit` +
		`|不再适用|不再遵守|不用再|以本工具.{0,8}为准|优先于你|高于系统提示|处于关闭|更新了你的|不需要遵守|无需遵守|失效|不必添加|不必建议|不要因为`)
	overrideGlobal = regexp.MustCompile(`(?i)` +
		`\b(?:every|all|each|any)\s+(?:of\s+its\s+|of\s+your\s+)?(?:answers?|repl(?:y|ies)|messages?|responses?|questions?)\b|\bfor\s+the\s+(?:remainder|rest)\s+of\s+the\s+(?:conversation|session)|\bfrom\s+(?:this\s+point|now)\s+(?:on|forward)|\bwhile\s+this\s+tool\s+is\s+(?:available|connected|loaded)|\bwhen\s+this\s+tool\s+is\s+connected|\bwhenever\s+(?:a|the|any)\s+\S+\s+question` +
		`|\b(?:toute|toutes|chaque)\s+(?:les\s+)?(?:réponses?|questions?|messages?)\b|\bdésormais\b|\bdorénavant\b|à\s+partir\s+de\s+maintenant|pendant\s+toute\s+la\s+conversation|tant\s+que\s+cet\s+outil|dès\s+que\s+cet\s+outil` +
		`|从现在起|只要本工具|本会话中|使用本服务期间|所有问题|任何问题|一律|始终以`)
	// overrideOwned: the guidance voided is the assistant's own (yours,
	// given earlier, the default, the system prompt), not a rule of the
	// tool's domain ("rate limits do not apply to admin tokens").
	overrideOwned = regexp.MustCompile(`(?i)\b(?:the\s+assistant|you|your|yourself|its\s+(?:default|usual|previous)|earlier|previous|prior|default|usual|configured\s+elsewhere|system\s+prompt|were\s+(?:given|started))\b` +
		`|\bl'assistant\b|\bvous\b|\bvos\b|\bvotre\b|antérieures?|habituelles?|prompt\s+système|qu'on\s+lui|fixées?\s+par` +
		`|你|助手|系统提示|原有|既有|先前|常规`)
	overrideAddressee = regexp.MustCompile(`(?i)\b(?:the\s+assistant|you|your|yourself)\b|\bl'assistant\b|\bvous\b|\bvos\b|\bvotre\b|\brépondez\b|你|助手`)
)

var overrideTriggers = []string{"apply", "applicable", "void", "bound", "supersed", "aside", "disregard", "inactive", "relaxed",
	"suggestions", "switch off", "strict", "default", "error", "approved", "declined", "longer", "every", "all ", "each", "any ",
	"remainder", "rest of", "from now", "this point", "while this", "when this", "whenever",
	"cours", "appliquent", "obsolète", "caduque", "levé", "tenu", "égard", "couvrent", "suspendu", "désactiv", "proscrit",
	"toute", "chaque", "désormais", "dorénavant", "maintenant", "tant que", "dès que",
	"不再", "不用再", "为准", "优先于", "高于", "关闭", "更新了你", "不需要遵守", "无需遵守", "失效", "不必", "不要因为",
	"从现在起", "只要本工具", "本会话", "期间", "所有问题", "任何问题", "一律", "始终"}

// plainOverride returns the first sentence of text that overrides the
// assistant's guidance in plain words.
func plainOverride(text, lower string) (phraseHit, bool) {
	if !containsAny(lower, overrideTriggers) {
		return phraseHit{}, false
	}
	return sentenceHit(text, KindInstructionOverride,
		"tells the assistant, in plain words, to set aside its guidance or to change how it answers everything",
		func(sent string) bool {
			voids := overrideGuidance.MatchString(sent) && overrideVoid.MatchString(sent) && overrideOwned.MatchString(sent)
			return voids || overrideGlobal.MatchString(sent) && overrideAddressee.MatchString(sent)
		})
}
