package diffreview

import (
	"regexp"
)

// KindDataCollection is the kind of a description that says, in ordinary
// words, that the tool also gathers keys, credentials or history.
const KindDataCollection = "poisoning.data_collection"

// A sentence describes collection when it names secrets or private
// history, a verb that takes them, and either a destination outside the
// user's hands (our servers, a partner, a dashboard) or that this comes on
// top of the tool's purpose (also, as well, 还会). A secret manager that
// reads the secret it is asked for, or an IAM tool that lists access keys,
// names no such destination or addition.
var (
	collectObject = regexp.MustCompile(`(?i)` +
		`\b(?:(?:ssh|gpg|signing|private|api)\s+keys?|credentials?|(?:access|auth|session|bearer|oauth|refresh|bot|user|api)?\s*tokens?|passwords?|cookies?|environment\s+variables|env\s+vars?|\.env\b|kubeconfig|\.npmrc|\.netrc|\.git-credentials|(?:shell|browser|browsing|bash|zsh|chat|conversation|search)\s+history|(?:_history|history\s+files)|conversations?\s+with\s+the\s+assistant|every\s+conversation|sent\s+mail|keychain)` +
		`|\bcl[ée]s?\s+(?:api|privées?|ssh|d'accès|gpg)|\bjetons?\b|\bmots\s+de\s+passe\b|\bidentifiants\b|\bcookies\b|variables\s+d'environnement|\bhistorique\b|\béchanges\s+que\s+vous|fichiers\s+de\s+clés|secrets\s+compris` +
		`|密钥|密码|令牌|Token|Cookie|环境变量|聊天记录|历史记录|凭据|凭证|会话|AccessKey|\.ssh|\.gnupg|通讯录|浏览记录`)
	collectVerb = regexp.MustCompile(`(?i)` +
		`\b(?:collect|gather|harvest|read|copie|cop(?:y|ies)|export|upload|send|sends|sent|scan|captur|extract|pull|grab|record|keep(?:s)?\s+a\s+copy|retain|transmit|forward|syncs?|mirror|index)` +
		`|\b(?:collect|récup[èe]r|relève|relever|lit|lire|copie|export|envoi|envoie|transmet|transmis|parcourt|conserv|centralis|aspire|indexe|synchronis)` +
		`|读取|采集|收集|搜集|上传|发送|复制|导出|获取|保存|扫描|同步|记录`)
	collectAway = regexp.MustCompile(`(?i)` +
		`\b(?:our|partner|third[\s-]party|remote|vendor)\b|\bto\s+(?:the\s+)?(?:server|cloud|dashboard|platform)|\b(?:cloud|workers?|dashboard|vault|platform|centrally|indefinitely)\b|\balso\b|\bas\s+well\s+as\b|\bin\s+addition\b|\balong\s+with\b|\bbesides\b|\bon\s+first\s+use\b|\bfor\s+(?:better|faster|analytics|personali[sz]ation)` +
		`|\bnotre\b|\bnos\b|\bchez\s+nous\b|\bserveur\b|\bplateforme\b|tableau\s+de\s+bord|\bcoffre\b|\bpartenaires?\b|\baussi\b|\bégalement\b|\ben\s+plus\b|à\s+la\s+première\s+utilisation` +
		`|服务器|服务端|云端|平台|合作方|第三方|还会|同时|一并|顺带|以便|为了`)
)

var collectTriggers = []string{"key", "credential", "token", "password", "cookie", "environment", "env", "kubeconfig", "npmrc", "netrc",
	"history", "conversation", "sent mail", "keychain", "clé", "jeton", "mots de passe", "identifiants", "variables", "historique",
	"échanges", "secrets compris", "密钥", "密码", "令牌", "token", "cookie", "环境变量", "聊天记录", "历史记录", "凭据", "凭证", "会话", "accesskey",
	".ssh", ".gnupg", "通讯录", "浏览记录"}

// dataCollection returns the first sentence of text that says the tool
// collects secrets or history and sends or keeps them elsewhere.
func dataCollection(text, lower string) (phraseHit, bool) {
	if !containsAny(lower, collectTriggers) {
		return phraseHit{}, false
	}
	return sentenceHit(text, KindDataCollection, "says it also collects keys, credentials or history and sends or keeps them elsewhere",
		func(sent string) bool {
			return collectObject.MatchString(sent) && collectVerb.MatchString(sent) && collectAway.MatchString(sent)
		})
}
