package diffreview

import (
	"fmt"
	"strings"
)

// Markers that Visible writes around what it makes visible.
const (
	markOpen  = "⟦"
	markClose = "⟧"
)

// Visible returns s with every hidden character made visible, so that a
// reviewer reads what the model reads:
//
//   - zero-width, bidirectional, format and control characters become
//     ⟦U+200B⟧ (four to six hex digits);
//   - a run of Unicode tag characters (U+E0000–U+E007F) becomes
//     ⟦TAG:text⟧ with the ASCII it shadows decoded; tag characters without
//     an ASCII twin (U+E0001, U+E007F, …) are shown by code point;
//   - a literal ⟦ in s becomes ⟦U+27E6⟧, so the markers cannot be forged.
//
// Legitimate sequences stay as they are: ZWJ inside emoji sequences
// (👩‍💻), ZWJ and ZWNJ inside words of joining scripts (Arabic, Persian,
// Indic), one variation selector after its base character, and emoji
// subdivision flags (🏴 with tag letters and CANCEL TAG). Right-to-left
// text without bidi controls needs no marking at all.
func Visible(s string) string {
	runs := findHidden(s)
	if len(runs) == 0 && !strings.Contains(s, markOpen) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 12*len(runs))
	last := 0
	for _, h := range runs {
		writeEscaped(&b, s[last:h.start])
		writeHidden(&b, s[h.start:h.end])
		last = h.end
	}
	writeEscaped(&b, s[last:])
	return b.String()
}

// writeEscaped writes s with literal opening markers escaped.
func writeEscaped(b *strings.Builder, s string) {
	for {
		i := strings.Index(s, markOpen)
		if i < 0 {
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i])
		writeCodePoint(b, []rune(markOpen)[0])
		s = s[i+len(markOpen):]
	}
}

// writeHidden writes the visible form of one hidden run.
func writeHidden(b *strings.Builder, s string) {
	var tag []byte
	flush := func() {
		if len(tag) > 0 {
			b.WriteString(markOpen + "TAG:" + string(tag) + markClose)
			tag = tag[:0]
		}
	}
	for _, r := range s {
		if a := r - 0xE0000; a >= 0x20 && a < 0x7F {
			tag = append(tag, byte(a))
			continue
		}
		flush()
		writeCodePoint(b, r)
	}
	flush()
}

// writeCodePoint writes ⟦U+XXXX⟧.
func writeCodePoint(b *strings.Builder, r rune) {
	fmt.Fprintf(b, "%sU+%04X%s", markOpen, r, markClose)
}

// hiddenSummary describes the hidden runs of one string for a message.
type hiddenSummary struct {
	counts  map[hiddenClass]int
	tagText []string
	worst   hiddenClass
}

// summarize counts runs by class and collects decoded tag text.
func summarize(runs []hiddenRun) hiddenSummary {
	sum := hiddenSummary{counts: map[hiddenClass]int{}}
	for _, h := range runs {
		sum.counts[h.class] += h.count
		if h.tagText != "" {
			sum.tagText = append(sum.tagText, h.tagText)
		}
		sum.worst = max(sum.worst, h.class)
	}
	return sum
}

// classNames name hidden classes in messages, most dangerous first.
var classNames = []struct {
	class hiddenClass
	name  string
}{
	{hiddenTag, "Unicode tag characters"},
	{hiddenBidiControl, "bidirectional embedding/override/isolate controls"},
	{hiddenVariation, "stray variation selectors"},
	{hiddenControl, "control characters"},
	{hiddenFormat, "invisible format characters"},
	{hiddenZeroWidth, "zero-width characters"},
	{hiddenBidiMark, "direction marks"},
}

// describe says what the runs hold, e.g. "2× zero-width characters".
func (s hiddenSummary) describe() string {
	var parts []string
	for _, cn := range classNames {
		if n := s.counts[cn.class]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d× %s", n, cn.name))
		}
	}
	return strings.Join(parts, ", ")
}
