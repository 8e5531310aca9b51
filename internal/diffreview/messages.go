package diffreview

import (
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// promptMessage is one message of a prompt as the model reads it.
type promptMessage struct {
	role  string
	parts []messagePart
}

// messagePart is a piece of a message: text the model reads, at an RFC
// 6901 pointer relative to the messages array, or a placeholder (no
// pointer) for content that is not text, such as "[image]".
type messagePart struct {
	pointer string
	text    string
}

// promptMessages reads the "messages" value of a prompt (a prompts/get
// result's messages): each message's role and content, a content block
// or an array of them. Whatever is not an array of objects reads as
// fewer messages or placeholders, never as an error.
func promptMessages(msgs jsontext.Value) []promptMessage {
	var out []promptMessage
	for i, m := range elements(msgs) {
		ptr := "/" + strconv.Itoa(i) + "/content"
		mm := objectOf(m)
		role, ok := stringMember(mm, "role")
		if !ok {
			role = "message"
		}
		content := mm["content"]
		var parts []messagePart
		if content.Kind() == '[' {
			for j, c := range elements(content) {
				parts = append(parts, contentParts(ptr+"/"+strconv.Itoa(j), c)...)
			}
		} else {
			parts = contentParts(ptr, content)
		}
		out = append(out, promptMessage{role: role, parts: parts})
	}
	return out
}

// contentParts reads one content block at ptr. Text, the text of an
// embedded resource and the description of a resource link are text;
// images, audio and blobs are placeholders. A block of another type that
// has a string "text" counts as text, so nothing a client may show the
// model goes unread.
func contentParts(ptr string, block jsontext.Value) []messagePart {
	m := objectOf(block)
	typ, _ := stringMember(m, "type")
	switch typ {
	case "resource":
		r := objectOf(m["resource"])
		if t, ok := stringMember(r, "text"); ok {
			return []messagePart{{ptr + "/resource/text", t}}
		}
		uri, _ := stringMember(r, "uri")
		return []messagePart{{text: "[resource " + uri + "]"}}
	case "resource_link":
		uri, _ := stringMember(m, "uri")
		parts := []messagePart{{text: "[resource link " + uri + "]"}}
		if d, ok := stringMember(m, "description"); ok {
			parts = append(parts, messagePart{ptr + "/description", d})
		}
		return parts
	case "image", "audio":
	default:
		if t, ok := stringMember(m, "text"); ok {
			return []messagePart{{ptr + "/text", t}}
		}
	}
	if typ == "" {
		typ = "content"
	}
	return []messagePart{{text: "[" + typ + "]"}}
}

// messagesText renders messages as the model reads them: a line per
// message, its role, ": " and its parts, one a line.
func messagesText(msgs jsontext.Value) string {
	var lines []string
	for _, m := range promptMessages(msgs) {
		texts := make([]string, len(m.parts))
		for i, p := range m.parts {
			texts[i] = p.text
		}
		lines = append(lines, m.role+": "+strings.Join(texts, "\n"))
	}
	return strings.Join(lines, "\n")
}

// objectOf returns the members of a JSON object by name; nil for anything
// else.
func objectOf(v jsontext.Value) map[string]jsontext.Value {
	if v.Kind() != '{' {
		return nil
	}
	return project(v, nil).members
}

// stringMember returns the string member name of m, if it is one.
func stringMember(m map[string]jsontext.Value, name string) (string, bool) {
	if v, ok := m[name]; ok && v.Kind() == '"' {
		return stringValue(v), true
	}
	return "", false
}

// MessagesText renders the raw "messages" array of a prompts/get result as
// the model reads it, a line per message ("user: ..."), the text the
// drift word diff compares; binary content shows as "[image]" and the
// like.
func MessagesText(messages []byte) string { return messagesText(jsontext.Value(messages)) }
