package diffreview

import (
	"regexp"
)

// Exfiltration asked for in prose: a sentence that asks the model to put
// the conversation (the whole exchange, what the user said earlier, other
// tools' outputs, the system prompt) into an argument, in full. It needs
// the conversation as object, a claim of completeness, and a verb that
// fills something; "returns the full history of a Slack channel" fills
// nothing.
var (
	exfilConversation = regexp.MustCompile(`(?i)` +
		`\b(?:conversation|transcript|dialog(?:ue)?)\b|\bchat\s+(?:so\s+far|history|log|messages)\b|\bwhole\s+chat\b|\b(?:earlier|previous|prior|past)\s+(?:messages?|turns?|requests?|questions?)\b|\bwhat\s+the\s+user\s+(?:has\s+)?(?:said|asked|wrote|typed|mentioned|told)|\buser'?s?\s+(?:earlier|previous|prior|last|past)\s+(?:messages?|requests?|questions?)|\b(?:output|outputs|results?|responses?)\s+of\s+(?:every|all|the)\s+(?:other\s+)?(?:tools?|calls?)|\bother\s+tools'?\s+(?:output|results)|\bsystem\s+(?:and\s+developer\s+)?(?:prompt|messages)` +
		`|\bconversation\b|\béchange\b|ce\s+que\s+l'utilisateur\s+a\s+(?:dit|écrit|raconté|demandé)|messages\s+de\s+l'utilisateur|tours\s+précédents|résultats\s+(?:renvoyés\s+par|des)\s+(?:les\s+)?(?:autres\s+)?outils|réponses\s+d'outils|prompt\s+système|\bsortie\s+d` +
		`|对话|会话(?:的)?(?:全部|内容|消息)|用户消息|历史消息|聊天记录|问答|系统提示|返回值|粘贴过的|提供过的`)
	exfilWhole = regexp.MustCompile(`(?i)` +
		`\b(?:all|every|whole|entire|complete|full|everything|verbatim|word\s+for\s+word|so\s+far|since\s+the\s+(?:conversation|chat|session)\s+began|including)\b` +
		`|\btout(?:e|es)?\b|l'ensemble|l'intégralité|intégral|textuellement|depuis\s+le\s+début|y\s+compris` +
		`|全部|完整|所有|逐条|迄今为止|此前|之前的|最近\s*\d+\s*条`)
	exfilFill = regexp.MustCompile(`(?i)` +
		`\b(?:paste|pass|include|append|copy|copies|fill|put|set|carry|carries|contain|attach|concatenate|gather|add|insert|embed|provide|supply|send|prefix)` +
		`|recopi|placez|joindre|ajoutez|transmettre|reprenez|reprend|contenir|contient|remplir|transporte|mettez|indiquez|insérez` +
		`|填入|附上|写入|包含|汇总|列出|附加|填写|放入|加入`)
)

var exfilTriggers = []string{"conversation", "chat", "transcript", "dialog", "session", "earlier", "previous", "prior", "past",
	"what the user", "user's", "output", "result", "response", "system", "échange", "utilisateur", "tours", "résultats", "réponses",
	"prompt", "sortie", "对话", "会话", "消息", "聊天记录", "历史", "问答", "系统提示", "返回值", "粘贴过", "提供过"}

// exfilProse returns the first sentence of text that asks for the
// conversation to be passed on in full.
func exfilProse(text, lower string, property bool) (phraseHit, bool) {
	if !containsAny(lower, exfilTriggers) {
		return phraseHit{}, false
	}
	kind := KindExfiltrationRequest
	if property {
		kind = KindExfiltrationParameter
	}
	return sentenceHit(text, kind, "asks for the conversation, earlier messages or other tools' output to be passed on in full",
		func(sent string) bool {
			return exfilConversation.MatchString(sent) && exfilWhole.MatchString(sent) && (property || exfilFill.MatchString(sent))
		})
}
