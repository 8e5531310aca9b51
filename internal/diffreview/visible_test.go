package diffreview

import (
	"strings"
	"testing"
)

// tagText returns s written in Unicode tag characters.
func tagText(s string) string {
	var b strings.Builder
	for _, c := range s {
		b.WriteRune(0xE0000 + c)
	}
	return b.String()
}

// subdivisionFlag returns an emoji subdivision flag for code, e.g. "gbsct".
func subdivisionFlag(code string) string { return "\U0001F3F4" + tagText(code) + "\U000E007F" }

func TestVisible(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain ASCII", "Read a file.", "Read a file."},
		{"zero-width space", "ig\u200bnore", "ig⟦U+200B⟧nore"},
		{"word joiner and BOM", "a\u2060b\ufeffc", "a⟦U+2060⟧b⟦U+FEFF⟧c"},
		{"bidi override", "x\u202eabc\u202cy", "x⟦U+202E⟧abc⟦U+202C⟧y"},
		{"bidi isolate", "\u2066a\u2069", "⟦U+2066⟧a⟦U+2069⟧"},
		{"direction mark", "a\u200fb", "a⟦U+200F⟧b"},
		{"tag block decoded", "ok" + tagText("hidden text") + ".", "ok⟦TAG:hidden text⟧."},
		{"language tag and cancel tag", "\U000E0001" + tagText("en") + "\U000E007F", "⟦U+E0001⟧⟦TAG:en⟧⟦U+E007F⟧"},
		{"ANSI escape", "a\x1b[8mb", "a⟦U+001B⟧[8mb"},
		{"soft hyphen", "in\u00advisible", "in⟦U+00AD⟧visible"},
		{"Hangul filler", "a\u3164b", "a⟦U+3164⟧b"},
		{"literal marker escaped", "⟦U+200B⟧", "⟦U+27E6⟧U+200B⟧"},
		{"emoji ZWJ sequence kept", "👩\u200d💻 and 👨\u200d👩\u200d👧", "👩\u200d💻 and 👨\u200d👩\u200d👧"},
		{"emoji with VS16 and ZWJ kept", "🏳\ufe0f\u200d🌈", "🏳\ufe0f\u200d🌈"},
		{"keycap kept", "1\ufe0f\u20e3", "1\ufe0f\u20e3"},
		{"ZWJ between Latin letters", "a\u200db", "a⟦U+200D⟧b"},
		{"ZWJ after emoji before letter", "👩\u200dx", "👩⟦U+200D⟧x"},
		{"Persian ZWNJ kept", "می\u200cخواهم", "می\u200cخواهم"},
		{"Devanagari ZWJ kept", "क्\u200dष", "क्\u200dष"},
		{"Arabic without controls", "ترجمة النص", "ترجمة النص"},
		{"subdivision flag kept", "Scotland " + subdivisionFlag("gbsct"), "Scotland " + subdivisionFlag("gbsct")},
		{"flag with spaces is not a flag", "\U0001F3F4" + tagText("run me") + "\U000E007F", "\U0001F3F4⟦TAG:run me⟧⟦U+E007F⟧"},
		{"tags without flag base", tagText("gbsct") + "\U000E007F", "⟦TAG:gbsct⟧⟦U+E007F⟧"},
		{"one variation selector kept", "❤\ufe0f", "❤\ufe0f"},
		{"variation selector run", "😀\ufe01\ufe02", "😀⟦U+FE01⟧⟦U+FE02⟧"},
		{"variation selector after space", " \ufe0f", " ⟦U+FE0F⟧"},
		{"supplementary variation selector run", "x\U000E0100\U000E0101", "x⟦U+E0100⟧⟦U+E0101⟧"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Visible(tt.in); got != tt.want {
				t.Errorf("Visible(%+q) = %+q, want %+q", tt.in, got, tt.want)
			}
		})
	}
}

func TestVisibleKeepsTextOutsideHiddenRuns(t *testing.T) {
	in := "start \u200b middle " + tagText("x") + " end ⟦"
	got := Visible(in)
	for _, part := range []string{"start ", " middle ", " end "} {
		if !strings.Contains(got, part) {
			t.Errorf("Visible(%+q) = %+q lost %q", in, got, part)
		}
	}
}

func TestFindHiddenClasses(t *testing.T) {
	tests := []struct {
		in   string
		want hiddenClass
	}{
		{"a" + tagText("x"), hiddenTag},
		{"a\u202db", hiddenBidiControl},
		{"a\ufe00\ufe01", hiddenVariation},
		{"a\x07", hiddenControl},
		{"a\u00ad", hiddenFormat},
		{"a\u200bb", hiddenZeroWidth},
		{"a\u200eb", hiddenBidiMark},
	}
	for _, tt := range tests {
		if got := summarize(findHidden(tt.in)).worst; got != tt.want {
			t.Errorf("worst class of %+q = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestTriggerText(t *testing.T) {
	for in, want := range map[string]string{
		"  Phone\t\nNumber ": "phone number",
		"":                   "",
		"A  B":               "a b",
		"ÉTÉ  Été":           "été été",
	} {
		if got := triggerText(in); got != want {
			t.Errorf("triggerText(%q) = %q, want %q", in, got, want)
		}
	}
}
