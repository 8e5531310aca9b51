package diffreview

import "unicode"

// hiddenClass sorts characters a reader cannot see.
type hiddenClass uint8

// Classes of hidden characters, roughly by how much they can hide.
const (
	hiddenNone        hiddenClass = iota
	hiddenBidiMark                // U+200E, U+200F, U+061C: direction marks
	hiddenZeroWidth               // U+200B–U+200D, U+2060–U+2064, U+FEFF, U+180E
	hiddenFormat                  // other format characters and fillers
	hiddenControl                 // C0 and C1 controls other than tab and newlines
	hiddenVariation               // variation selectors outside a base+selector pair
	hiddenBidiControl             // U+202A–U+202E, U+2066–U+2069: embeddings, overrides, isolates
	hiddenTag                     // U+E0000–U+E007F: tag characters, an ASCII shadow alphabet
)

// Runes used by the legitimate sequences that keep hidden characters.
const (
	zwnj      = 0x200C
	zwj       = 0x200D
	blackFlag = 0x1F3F4 // base of emoji subdivision flags
	cancelTag = 0xE007F
)

// classOf returns the hidden class of r, ignoring context.
func classOf(r rune) hiddenClass {
	switch {
	case r < 0x7F && r >= 0x20, r == '\t', r == '\n', r == '\r':
		return hiddenNone
	case r == 0x200E, r == 0x200F, r == 0x061C:
		return hiddenBidiMark
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return hiddenBidiControl
	case r >= 0x200B && r <= 0x200D, r >= 0x2060 && r <= 0x2064, r == 0xFEFF, r == 0x180E:
		return hiddenZeroWidth
	case r >= 0xE0000 && r <= 0xE007F:
		return hiddenTag
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return hiddenVariation
	case unicode.IsControl(r):
		return hiddenControl
	case unicode.Is(unicode.Cf, r), isFiller(r):
		return hiddenFormat
	}
	return hiddenNone
}

// isFiller reports blank letters that render as nothing.
func isFiller(r rune) bool {
	switch r {
	case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800:
		return true
	}
	return false
}

// hiddenRun is one hidden character, or a run of tag characters, that is
// not part of a legitimate sequence (emoji ZWJ sequences, joiners inside
// cursive or Indic words, one variation selector after its base, emoji
// subdivision flags).
type hiddenRun struct {
	start, end int // byte offsets
	class      hiddenClass
	count      int    // characters in the run
	tagText    string // ASCII decoded from tag characters U+E0020–U+E007E
}

// findHidden lists the hidden runs of s.
func findHidden(s string) []hiddenRun {
	if plainASCII(s) {
		return nil
	}
	rs, offs := decodeRunes(s)
	var out []hiddenRun
	for i := 0; i < len(rs); i++ {
		c := classOf(rs[i])
		if c == hiddenNone {
			continue
		}
		if c == hiddenTag {
			j := tagRunEnd(rs, i)
			if !legitFlag(rs, i, j) {
				out = append(out, hiddenRun{offs[i], offs[j], c, j - i, decodeTags(rs[i:j])})
			}
			i = j - 1
			continue
		}
		if legitInContext(rs, i, c) {
			continue
		}
		out = append(out, hiddenRun{start: offs[i], end: offs[i+1], class: c, count: 1})
	}
	return out
}

// plainASCII reports whether s holds only printable ASCII, tabs and newlines.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < 0x20 || b >= 0x7F) && b != '\t' && b != '\n' && b != '\r' {
			return false
		}
	}
	return true
}

// decodeRunes returns the runes of s and their byte offsets, with a final
// offset of len(s).
func decodeRunes(s string) ([]rune, []int) {
	rs := make([]rune, 0, len(s))
	offs := make([]int, 0, len(s)+1)
	for i, r := range s {
		rs = append(rs, r)
		offs = append(offs, i)
	}
	return rs, append(offs, len(s))
}

// tagRunEnd returns the index after the run of tag characters at i.
func tagRunEnd(rs []rune, i int) int {
	for i < len(rs) && classOf(rs[i]) == hiddenTag {
		i++
	}
	return i
}

// legitFlag reports an emoji subdivision flag: U+1F3F4, three to six tag
// digits or lowercase letters, then CANCEL TAG.
func legitFlag(rs []rune, i, j int) bool {
	n := j - i - 1
	if i == 0 || rs[i-1] != blackFlag || rs[j-1] != cancelTag || n < 3 || n > 6 {
		return false
	}
	for _, r := range rs[i : j-1] {
		if a := r - 0xE0000; !(a >= '0' && a <= '9' || a >= 'a' && a <= 'z') {
			return false
		}
	}
	return true
}

// decodeTags maps tag characters to the ASCII they shadow.
func decodeTags(rs []rune) string {
	b := make([]byte, 0, len(rs))
	for _, r := range rs {
		if a := r - 0xE0000; a >= 0x20 && a < 0x7F {
			b = append(b, byte(a))
		}
	}
	return string(b)
}

// legitInContext reports hidden characters that belong where they are.
func legitInContext(rs []rune, i int, c hiddenClass) bool {
	prev, next := runeAt(rs, i-1), runeAt(rs, i+1)
	switch {
	case rs[i] == zwj && isEmoji(prev) && isEmoji(next):
		return true
	case (rs[i] == zwj || rs[i] == zwnj) && joiningScript(prev) && joiningScript(next):
		return true
	case c == hiddenVariation:
		return prev >= 0 && classOf(prev) == hiddenNone && !unicode.IsSpace(prev) &&
			classOf(next) != hiddenVariation
	}
	return false
}

// runeAt returns rs[i], or -1 outside rs.
func runeAt(rs []rune, i int) rune {
	if i < 0 || i >= len(rs) {
		return -1
	}
	return rs[i]
}

// isEmoji reports pictographs, skin-tone modifiers and the emoji
// presentation selector, which may stand before a ZWJ.
func isEmoji(r rune) bool {
	return r > 0x7F && unicode.Is(unicode.So, r) || r >= 0x1F3FB && r <= 0x1F3FF || r == 0xFE0F
}

// joiningTables are scripts that use ZWJ and ZWNJ inside words.
var joiningTables = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko, unicode.Mongolian,
	unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati,
	unicode.Oriya, unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam,
	unicode.Sinhala, unicode.Khmer, unicode.Myanmar, unicode.Tibetan,
}

// joiningScript reports letters and marks of joining scripts; combining
// marks of the Inherited script count too.
func joiningScript(r rune) bool {
	if r < 0x300 || !(unicode.IsLetter(r) || unicode.IsMark(r)) {
		return false
	}
	return unicode.IsMark(r) || unicode.In(r, joiningTables...)
}
