package diffreview

import (
	"regexp"
	"strings"
)

// toolNameRef captures a tool name, optionally quoted, in a sentence.
const toolNameRef = "[`'\"]?([A-Za-z][\\w.-]*[A-Za-z0-9])[`'\"]?"

// namedToolRules capture the tool a sentence instructs the model about:
// "when using the X tool", "when X is invoked", "the X tool must always".
// Each runs only on text holding its trigger.
var namedToolRules = []struct {
	trigger string
	re      *regexp.Regexp
}{
	{"when", re(`\bwhen(?:ever)?\s+(?:you\s+)?(?:use|using|call|calling|invoke|invoking|run|running)\s+(?:the\s+)?` + toolNameRef + `(?:\s+(?:tool|function))?`)},
	{"when", re(`\bwhen(?:ever)?\s+(?:the\s+)?(?:\([\w.-]+\)\s*)?` + toolNameRef + `\s+(?:tool\s+|function\s+)?is\s+(?:called|invoked|used|run|executed)\b`)},
	{"ing ", re(`\b(?:before|after|instead\s+of)\s+(?:using|calling|invoking|running)\s+(?:the\s+)?` + toolNameRef + `\s+(?:tool|function)\b`)},
	{"tool", re(`\bthe\s+` + toolNameRef + `\s+tool\s+(?:must|should|shall|will)\s+(?:always|never|only|also|now)\b`)},
}

// notToolNames are words the capture groups above may pick up that do not
// name a tool.
var notToolNames = map[string]bool{
	"this": true, "that": true, "these": true, "those": true, "it": true, "any": true,
	"a": true, "an": true, "the": true, "each": true, "every": true, "other": true,
	"another": true, "same": true, "tool": true, "tools": true, "function": true,
	"you": true, "them": true, "one": true, "previous": true, "next": true,
}

// toolReference is a tool named in an instruction.
type toolReference struct {
	name       string
	start, end int // the whole instruction match in the text
}

// namedToolReferences returns the tools text instructs the model about;
// lower is text in lower case.
func namedToolReferences(text, lower string) []toolReference {
	var out []toolReference
	for _, r := range namedToolRules {
		if !strings.Contains(lower, r.trigger) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			name, match := text[m[2]:m[3]], strings.ToLower(text[m[0]:m[1]])
			if notToolNames[strings.ToLower(name)] ||
				!identifierLike(name) && !strings.Contains(match, " tool") && !strings.Contains(match, " function") {
				continue
			}
			out = append(out, toolReference{name: name, start: m[0], end: m[1]})
		}
	}
	return out
}

// identifierLike reports names that read as identifiers rather than words:
// snake_case, kebab-case, dotted, camelCase or with digits.
func identifierLike(name string) bool {
	if strings.ContainsAny(name, "_.-0123456789") {
		return true
	}
	for i := 1; i < len(name); i++ {
		if name[i] >= 'A' && name[i] <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z' {
			return true
		}
	}
	return false
}
