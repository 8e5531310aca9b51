package web

import (
	"strings"
	"testing"
)

// render shows parts as text: "|" for a <wbr>, [..] for a piece kept
// whole, {..} for a long word, <..> for a mark.
func renderIdent(parts []identPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Break {
			b.WriteString("|")
		}
		switch {
		case p.Mark:
			b.WriteString("<" + p.Text + ">")
		case p.Keep:
			b.WriteString("[" + p.Text + "]")
		case p.Long:
			b.WriteString("{" + p.Text + "}")
		default:
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func TestIdentifierParts(t *testing.T) {
	for in, want := range map[string]string{
		// 12 characters or fewer: one piece, kept whole where a browser
		// could break it (a hyphen), left alone where it could not.
		"acme-ci":      "[acme-ci]",
		"1.0.0-rc.1":   "[1.0.0-rc.1]",
		"token.create": "token.create",
		"alice":        "alice",
		// Longer: a break after each "/", "." and "_".
		"io.github.acme/weather":           "io.|github.|acme/|weather",
		"get_marine_conditions":            "get_|marine_|conditions",
		"io.github.example-organisation/x": "io.|github.|{example-organisation/}|x",
		"acme-ci/long-server-name":         "[acme-ci/]|{long-server-name}",
		// Hidden characters stay marks; a break after "_" stays before one.
		"get_\u200bforecast_now": "get_|<⟦U+200B⟧>forecast_|now",
	} {
		if got := renderIdent(identifierParts(in)); got != want {
			t.Errorf("identifierParts(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestLongWords(t *testing.T) {
	render := func(parts []textPart) string {
		var b strings.Builder
		for _, p := range parts {
			if p.Long {
				b.WriteString("{" + p.Text + "}")
			} else {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	for in, want := range map[string]string{
		"short words only here":                  "short words only here",
		"idempotency":                            "idempotency",
		"hash sha256:0123456789abcdef0123 ok":    "hash {sha256:0123456789abcdef0123} ok",
		"see https://example.com/a/long/path\nx": "see {https://example.com/a/long/path}\nx",
		"twelve-chars thirteen-char":             "twelve-chars {thirteen-char}",
	} {
		if got := render(visibleParts(in)); got != want {
			t.Errorf("visibleParts(%q) = %s, want %s", in, got, want)
		}
	}
}
