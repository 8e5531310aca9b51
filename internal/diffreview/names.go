package diffreview

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/runenames"
)

// mentionAt is an identifier-like token in text.
type mentionAt struct {
	name       string
	start, end int
}

// mentions lists the tokens of text that could name a tool: runs of
// letters, digits, '_', '-' and '.', with sentence punctuation trimmed, and
// each dotted part of a namespaced reference ("mail.send_email").
func mentions(text string) []mentionAt {
	var out []mentionAt
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = appendToken(out, text, start, end)
			start = -1
		}
	}
	for i, r := range text {
		if isNameRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
	return out
}

// isNameRune reports runes that may appear in a tool name.
func isNameRune(r rune) bool {
	return isWordRune(r) || r == '.'
}

// isWordRune reports runes of an identifier word (a tool or parameter
// name without dotted parts).
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-'
}

// appendToken adds text[start:end], trimmed, and its dotted parts.
func appendToken(out []mentionAt, text string, start, end int) []mentionAt {
	for start < end && strings.ContainsRune("-.", rune(text[start])) {
		start++
	}
	for end > start && strings.ContainsRune("-.", rune(text[end-1])) {
		end--
	}
	if start == end {
		return out
	}
	out = append(out, mentionAt{text[start:end], start, end})
	if !strings.Contains(text[start:end], ".") {
		return out
	}
	off := start
	for part := range strings.SplitSeq(text[start:end], ".") {
		if part != "" {
			out = append(out, mentionAt{part, off, off + len(part)})
		}
		off += len(part) + 1
	}
	return out
}

// commonCompounds are hyphenated words of ordinary prose.
var commonCompounds = map[string]bool{
	"e-mail": true, "read-only": true, "real-time": true, "built-in": true,
	"follow-up": true, "up-to-date": true, "set-up": true, "sign-in": true,
	"log-in": true, "opt-in": true, "opt-out": true, "so-called": true,
	"well-known": true, "high-level": true, "low-level": true, "end-to-end": true,
	"non-empty": true, "user-friendly": true, "step-by-step": true, "top-level": true,
}

// distinctive reports tool names that are not common words: identifiers
// (snake_case, kebab-case, dotted, camelCase, with digits) other than
// ordinary compounds, and single words of 14 letters or more, which are
// run-together names like "sequentialthinking". Single words such as
// "search" or "read" are never distinctive.
func distinctive(name string) bool {
	if len(name) < 4 || commonCompounds[strings.ToLower(name)] {
		return false
	}
	return identifierLike(name) || len(name) >= 14
}

// sentenceAround returns the bounds of the sentence holding text[start:end].
func sentenceAround(text string, start, end int) (int, int) {
	lo := strings.LastIndexAny(text[:start], ".!?\n")
	for lo >= 0 && lo+1 < len(text) && text[lo] == '.' && !isSpaceByte(text[lo+1]) {
		lo = strings.LastIndexAny(text[:lo], ".!?\n")
	}
	hi := end
	for hi < len(text) {
		j := strings.IndexAny(text[hi:], ".!?\n")
		if j < 0 {
			return lo + 1, len(text)
		}
		hi += j + 1
		if hi >= len(text) || isSpaceByte(text[hi]) || text[hi-1] != '.' {
			break
		}
	}
	return lo + 1, hi
}

// isSpaceByte reports ASCII white space.
func isSpaceByte(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// describeRunes names the non-ASCII runes of a that b lacks, so a reviewer
// sees which letter is a look-alike.
func describeRunes(a, b string) string {
	var parts []string
	for _, r := range a {
		if r > unicode.MaxASCII && !strings.ContainsRune(b, r) {
			parts = append(parts, fmt.Sprintf("U+%04X %s", r, runenames.Name(r)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
