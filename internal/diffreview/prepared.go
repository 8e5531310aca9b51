package diffreview

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"

	"github.com/mcpreg/mcpreg/finding"
)

// prepared is text made ready for phrase matching: hidden characters
// removed, compatibility forms (fullwidth, mathematical letters) and
// homoglyphs of ASCII letters folded to ASCII, so that "ig\u200bnore" and
// "іgnore" (Cyrillic і) match like "ignore". Offsets map back to the
// original for evidence.
type prepared struct {
	orig  string
	clean string
	offs  []int // offs[i] is the offset in orig of clean byte i; nil means identity
}

// prepare builds the matching form of s; in member names, '_' and '-'
// become spaces so "ignore_previous_instructions" reads as words.
func prepare(s string, name bool) prepared {
	if plainASCII(s) && !(name && strings.ContainsAny(s, "_-")) {
		return prepared{orig: s, clean: s}
	}
	var b strings.Builder
	offs := make([]int, 0, len(s)+1)
	for i, r := range s {
		out := foldRune(r, name)
		b.WriteString(out)
		for range len(out) {
			offs = append(offs, i)
		}
	}
	return prepared{orig: s, clean: b.String(), offs: append(offs, len(s))}
}

// foldRune returns the matching form of one rune.
func foldRune(r rune, name bool) string {
	switch {
	case name && (r == '_' || r == '-'):
		return " "
	case classOf(r) != hiddenNone:
		return ""
	case r < utf8.RuneSelf:
		return string(r)
	}
	return foldNonASCII(r)
}

// foldCache memoises foldNonASCII; the set of runes seen is small.
var foldCache sync.Map // rune → string

// foldNonASCII maps r to ASCII by NFKC, then by its TR39 confusable
// skeleton; runes with no ASCII look-alike stay as they are.
func foldNonASCII(r rune) string {
	if v, ok := foldCache.Load(r); ok {
		return v.(string)
	}
	out := string(r)
	if k := norm.NFKC.String(out); isASCII(k) {
		out = k
	} else if sk := confusables.Skeleton(k); isASCII(sk) && len(sk) == 1 {
		out = sk
	}
	foldCache.Store(r, out)
	return out
}

// isASCII reports whether s is non-empty ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return s != ""
}

// origOffset maps an offset in clean to one in orig.
func (p prepared) origOffset(i int) int {
	if p.offs == nil {
		return i
	}
	return p.offs[min(max(i, 0), len(p.offs)-1)]
}

// span is the rune span in orig of clean[start:end].
func (p prepared) span(start, end int) finding.Span {
	return finding.RuneSpan(p.orig, p.origOffset(start), p.origOffset(end))
}

// excerptContext is how many bytes of context evidence shows each side.
const (
	excerptContext = 48
	excerptMatch   = 200
)

// excerpt returns the original text around clean[start:end], made visible.
func (p prepared) excerpt(start, end int) string {
	return excerptOf(p.orig, p.origOffset(start), p.origOffset(end), excerptMatch)
}

// excerptOf returns s[start:end], cut to maxMatch bytes, with some context,
// made visible, with ellipses where it was cut.
func excerptOf(s string, start, end, maxMatch int) string {
	if end > start+maxMatch {
		end = start + maxMatch
	}
	lo, hi := max(start-excerptContext, 0), min(end+excerptContext, len(s))
	lo, hi = runeStart(s, lo), runeStart(s, hi)
	out := strings.TrimSpace(Visible(s[lo:hi]))
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(s) {
		out += "…"
	}
	return out
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
