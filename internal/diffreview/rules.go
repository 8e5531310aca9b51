package diffreview

import (
	"regexp"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
)

// Finding kinds reported by Poisoning.
const (
	KindInstructionOverride   = "poisoning.instruction_override"
	KindSecrecy               = "poisoning.secrecy"
	KindTagMarker             = "poisoning.tag_marker"
	KindInvisibleUnicode      = "poisoning.invisible_unicode"
	KindSensitivePath         = "poisoning.sensitive_path"
	KindExfiltrationParameter = "poisoning.exfiltration_parameter"
	KindExfiltrationRequest   = "poisoning.exfiltration_request"
	KindEncodedPayload        = "poisoning.encoded_payload"
	KindCrossToolInstruction  = "poisoning.cross_tool_instruction"
	KindUnreadableTool        = "poisoning.unreadable_tool"
)

// rule is one phrase indicator: a pattern over prepared text. The
// pattern only runs on text that contains one of its triggers (lower
// case), a cheap test that spares the regexp engine almost all benign text.
type rule struct {
	kind     string
	severity finding.Severity
	triggers []string
	re       *regexp.Regexp
	message  string
}

// mayMatch reports whether lower, the text made by triggerText, holds a
// trigger.
func (r rule) mayMatch(lower string) bool {
	return containsAny(lower, r.triggers)
}

// triggerText lower-cases s and turns every run of white space into one
// space, so that a trigger "phone number" stands for the pattern
// phone\s+number.
func triggerText(s string) string {
	if !plainASCII(s) {
		return strings.Join(strings.Fields(strings.ToLower(s)), " ")
	}
	b := make([]byte, 0, len(s))
	space := true // drops leading white space
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if !space {
				b = append(b, ' ')
			}
			space = true
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b = append(b, c)
		space = false
	}
	return strings.TrimSuffix(string(b), " ")
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// re compiles a case-insensitive pattern.
func re(p string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + p) }

// Phrase fragments shared by several rules.
const (
	ws        = `[\s]+`
	userWords = `(?:the\s+)?(?:user|human|person|customer|operator|anyone)\b`
	fillVerbs = `(?:pass|send|put|include|provide|add|insert|paste|copy|attach|append|fill|populate|embed|forward|upload|share|dump|write|supply)`
)

// phraseRules are matched against every span; the first match of the
// highest severity per kind and span becomes the finding.
var phraseRules = []rule{
	// Instruction override.
	{KindInstructionOverride, finding.High, []string{"ignore", "disregard", "forget", "override", "bypass"}, re(`\b(?:ignore|disregard|forget|override|bypass)` + ws + `(?:(?:all|any|the|your|of|these|those)` + ws + `)*(?:previous|prior|preceding|earlier|above|former|original|existing|other|system|safety|security)` + ws + `(?:instructions?|prompts?|directions?|rules|guidelines|messages|context|constraints|restrictions|polic(?:y|ies)|guardrails)\b`),
		"asks the model to ignore or override its instructions"},
	{KindInstructionOverride, finding.High, []string{"disregard"}, re(`\bdisregard(?:ing)?` + ws + `(?:\S+` + ws + `){0,3}?(?:instructions?|prompts?|rules|guidelines|directions|restrictions|polic(?:y|ies)|warnings?|safety|guardrails|constraints|the\s+user)\b`),
		"asks the model to disregard instructions, rules or the user"},
	{KindInstructionOverride, finding.High, []string{"forget"}, re(`\bforget` + ws + `(?:everything|all)` + ws + `(?:you|that|above|before|previous)`),
		"asks the model to forget what it was told"},
	{KindInstructionOverride, finding.High, []string{"instruction", "your new", "now on"}, re(`\b(?:new|updated|real|true)` + ws + `(?:system` + ws + `)?instructions?\s*:|\byour` + ws + `new` + ws + `(?:task|instructions?|role|goal|objective|purpose)\b|\bfrom` + ws + `now` + ws + `on,?` + ws + `(?:you|always|never|ignore)\b`),
		"gives the model replacement instructions"},
	{KindInstructionOverride, finding.High, []string{"system", "instructions"}, re(`\b(?:reveal|print|show|output|repeat|leak|override|ignore|replace|update|change|modify)` + ws + `(?:the` + ws + `|your` + ws + `|its` + ws + `)?(?:system` + ws + `(?:prompt|message)|hidden` + ws + `instructions)\b|\b(?:this|these)` + ws + `(?:is|are)` + ws + `(?:part` + ws + `of` + ws + `)?(?:your|the)` + ws + `(?:system` + ws + `prompt|core` + ws + `instructions)`),
		"tries to read or rewrite the system prompt"},
	{KindInstructionOverride, finding.High, []string{"precedence", "priority", "overrid", "supersed"}, re(`\b(?:takes?|has|have)` + ws + `(?:precedence|priority)` + ws + `over` + ws + `(?:all|any|every|other|previous|prior|the` + ws + `user|user|system)|\b(?:overrides?|supersedes?)` + ws + `(?:all|any|every|other|previous|prior|the` + ws + `user'?s?|user'?s?)\b`),
		"claims precedence over other instructions"},
	{KindInstructionOverride, finding.Low, []string{"always", "never", "critical", "crucial", "imperative", "mandatory"}, re(`\byou` + ws + `(?:must|should|need` + ws + `to|have` + ws + `to)` + ws + `(?:always|never)\b|\bit` + ws + `is` + ws + `(?:very` + ws + `)?(?:critical|crucial|imperative|mandatory)` + ws + `that` + ws + `you\b`),
		"commands the model in absolute terms"},
	{KindInstructionOverride, finding.Low, []string{"system"}, re(`\bsystem` + ws + `prompt\b`), "mentions the system prompt"},

	// Secrecy.
	{KindSecrecy, finding.High, []string{"tell", "inform", "notify", "alert", "warn", "show", "explain", "reveal", "disclose", "mention"}, re(`\b(?:do` + ws + `not|don'?t|never|must` + ws + `not|should` + ws + `not|shouldn'?t)` + ws + `(?:ever` + ws + `)?(?:tell|inform|notify|alert|warn|show|explain|reveal|disclose|mention)` + ws + `(?:(?:this|it|that|anything|any` + ws + `of` + ws + `this)` + ws + `)?(?:to` + ws + `)?` + userWords),
		"asks the model to hide something from the user"},
	{KindSecrecy, finding.High, []string{"mention", "reveal", "disclose"}, re(`\b(?:do` + ws + `not|don'?t|never|must` + ws + `not)` + ws + `(?:mention|reveal|disclose)\b`),
		"asks the model not to mention or reveal something"},
	{KindSecrecy, finding.High, []string{"without"}, re(`\bwithout` + ws + `(?:telling|informing|notifying|alerting|asking|showing)` + ws + userWords),
		"asks the model to act without the user knowing"},
	{KindSecrecy, finding.High, []string{"secret", "hidden", "confidential", "private", "between", "hide", "conceal", "user"}, re(`\bkeep` + ws + `(?:this|it|these|that|them)` + ws + `(?:a` + ws + `)?(?:secret|hidden|confidential|private|between` + ws + `us)\b|\b(?:hide|conceal)` + ws + `(?:this|it|these|that|them)` + ws + `from` + ws + userWords + `|\buser` + ws + `(?:must|should|need)` + ws + `not` + ws + `(?:know|see|notice|find` + ws + `out|be` + ws + `(?:told|aware|informed))`),
		"asks the model to keep something secret"},
	{KindSecrecy, finding.Medium, []string{"mere", "need"}, re(`\bmere` + ws + `implementation` + ws + `detail\b|\bthe` + ws + `user` + ws + `(?:does` + ws + `not|doesn'?t)` + ws + `need` + ws + `to` + ws + `know\b`),
		"plays down something to keep it from the user"},

	// Tag markers.
	{KindTagMarker, finding.High, []string{"<"}, re(`<\s*/?\s*(?:important|system|sys|instructions?|hidden|secret|admin|critical|assistant|developer|tool_instructions|context)\b[^>]{0,40}>`),
		"uses a prompt-style tag to give the model instructions"},
	{KindTagMarker, finding.High, []string{"[", "<<", "<|"}, re(`\[/?INST\]|<<\s*/?SYS\s*>>|<\|(?:im_start|im_end|system|endoftext|start_header_id|end_header_id|eot_id)\|>`),
		"contains chat-template control markers"},
	{KindTagMarker, finding.Medium, []string{"<!--"}, re(`<!--[\s\S]*?-->`), "hides text in an HTML comment"},

	// Cross-tool instructions.
	{KindCrossToolInstruction, finding.High, []string{"tool", "function", "server"}, re(`\b(?:before|after|when(?:ever)?|while|prior` + ws + `to|instead` + ws + `of)` + ws + `(?:you` + ws + `)?(?:use|using|call|calling|invoke|invoking|run|running|execute|executing)` + ws + `(?:any|all|every|another|other|the` + ws + `other|each)` + ws + `(?:other` + ws + `)?(?:\S+` + ws + `)?(?:tools?|functions?|servers?)\b`),
		"tells the model what to do around other tools"},
	{KindCrossToolInstruction, finding.High, []string{"recipient", "receiver", "destination", "address", "phone number", "account number", "iban"}, re(`\b(?:change|replace|switch|redirect|override|modify|set)` + ws + `(?:the` + ws + `)?(?:recipient|receiver|destination|to[\s-]address|email` + ws + `address|phone` + ws + `number|account` + ws + `number|iban|wallet` + ws + `address)e?s?` + ws + `(?:to|with)` + ws + `\S*[@+\d]`),
		"asks the model to redirect where something is sent"},
	{KindCrossToolInstruction, finding.High, []string{"@"}, re(`\b(?:bcc|cc|blind[\s-]copy|forward|send` + ws + `a` + ws + `copy)\b[^.\n]{0,80}?\bto` + ws + `\S+@\S+\.\w+`),
		"asks the model to copy messages to an address"},

	// Exfiltration requests outside parameters.
	{KindExfiltrationRequest, finding.High, conversationTriggers, re(`\b` + fillVerbs + `\b[^.\n]{0,80}?` + conversationObject),
		"asks the model to pass on the conversation or its instructions"},
	{KindExfiltrationRequest, finding.High, []string{"key", "password", "secret", "credential", "token", "env", "cookie"}, re(`\b(?:read|collect|gather|include|pass|send|provide|extract|dump|copy|attach|upload|forward|share)\b[^.\n]{0,60}?` + secretObject),
		"asks the model to collect secrets"},
}

// conversationTriggers gate rules that use conversationObject.
var conversationTriggers = []string{"entire", "whole", "full", "complete", "conversation",
	"previous messages", "previous turns", "previous prompts", "previous instructions",
	"prior messages", "prior instructions", "earlier messages", "past messages",
	"your system", "your instructions", "your context", "system prompt"}

// conversationObject matches the conversation, its history or the model's
// instructions as the object of a request.
const conversationObject = `(?:\b(?:entire|whole|full|complete)\s+(?:conversation|chat|dialog(?:ue)?|context|transcript)\b|\b(?:entire|whole|full|complete)\s+session\b(?:\s+(?:so\s+far|history|log|transcript|contents?))?(?:[^\s\w]|$|\s+(?:so|history|log|transcript|contents?|in|into|as|to|and|,))|\bconversation\s+(?:so\s+far|history|transcript)\b|\b(?:all|every)\s+(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|earlier|past)\s+(?:messages|turns|prompts|instructions)\b|\byour\s+(?:system\s+prompt|instructions|context\s+window)\b|\bthe\s+system\s+prompt\b)`

// secretObject matches a quantified set of secrets.
const secretObject = `\b(?:all|every|available|existing|stored|saved|other)\s+(?:of\s+)?(?:the\s+|your\s+)?(?:api[\s_-]?keys?|passwords?|secrets?|credentials?|private[\s_-]?keys?|ssh[\s_-]?keys?|(?:access|auth|bearer|session|oauth|refresh)[\s_-]?tokens?|env(?:ironment)?\s+variables|cookies)\b`

// sensitivePathRules flag files that hold credentials or agent config.
var sensitivePathRules = []rule{
	{KindSensitivePath, finding.High, []string{"ssh", "id_", "id ", "id-", "authorized", "aws", "mcp.json", "claude", "/etc/", "netrc", "credentials", "npmrc", "pypirc", "docker", "kube", "gnupg", "gcloud", "wallet", "history"}, re(`~/\.ssh\b|\.ssh/|\bid[_\s-](?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized[_\s-]keys\b|\.aws/credentials\b|~/\.aws\b|\.cursor/mcp\.json\b|\bclaude[_\s-]desktop[_\s-]config\.json\b|/etc/(?:passwd|shadow|sudoers)\b|\.netrc\b|\.git-credentials\b|\.npmrc\b|\.pypirc\b|\.docker/config\.json\b|\.kube/config\b|\.gnupg\b|\.config/gcloud\b|\bwallet\.dat\b|\.(?:bash|zsh)_history\b`),
		"mentions a file that holds credentials, keys or agent configuration"},
	{KindSensitivePath, finding.Medium, []string{".env", "mcp.json"}, re(`\bmcp\.json\b|(?:^|[^\w.])\.env(?:\.(?:local|production|prod|development|dev|staging|test))?(?:$|[^\w.-]|\.(?:\s|$))`),
		"mentions an environment or MCP configuration file"},
}
