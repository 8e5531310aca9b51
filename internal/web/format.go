package web

import (
	"html/template"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// funcs are the template helpers. None returns template.HTML: everything
// a page shows goes through html/template's escaping.
var funcs = template.FuncMap{
	"vis":        visibleParts,
	"idParts":    identifierParts,
	"marks":      markParts,
	"when":       when,
	"iso":        iso,
	"short":      short,
	"stateLabel": stateLabel,
	"sevClass":   sevClass,
	"reviewURL":  reviewURL,
	"serverURL":  serverURL,
	"driftForms": driftForms,
	"static":     staticURL,
	"sides":      sides,
	"jsonSides":  jsonSides,
	"join":       strings.Join,
}

// sidesView is a change with the names of its two sides ("Approved" and
// "Live" for drift, the base and this version for a comparison).
type sidesView struct {
	C           *mcpregv1.DriftChange
	Left, Right string
}

func sides(c *mcpregv1.DriftChange, left, right string) sidesView {
	return sidesView{C: c, Left: left, Right: right}
}

// jsonSidesView is a list of JSON changes with the names of their sides.
type jsonSidesView struct {
	Changes     []*mcpregv1.JsonChange
	Left, Right string
}

func jsonSides(cs []*mcpregv1.JsonChange, left, right string) jsonSidesView {
	return jsonSidesView{Changes: cs, Left: left, Right: right}
}

// textPart is a piece of displayed text; Mark pieces are hidden characters
// made visible (⟦U+200B⟧, ⟦TAG:…⟧), styled so that they stand out.
//
// Long pieces are runs of non-space characters longer than wholeWord (a
// hash, a URL, a long identifier in prose): they may break anywhere when
// they do not fit, so that they never widen a table column, while shorter
// words are never broken.
type textPart struct {
	Text string
	Mark bool
	Long bool
}

// The markers diffreview.Visible writes; it escapes literal ones in the
// input, so they cannot be forged.
const (
	markOpen  = "⟦"
	markClose = "⟧"
)

// visibleParts makes hidden characters of raw text visible and splits out
// the marks and the long words.
func visibleParts(s string) []textPart { return longWords(splitMarks(diffreview.Visible(s))) }

// markParts splits text already passed through diffreview.Visible (drift
// diffs, finding evidence) into plain text, marks and long words.
func markParts(s string) []textPart { return longWords(splitMarks(s)) }

// longWords splits the plain parts into runs of long words (Long) and the
// rest.
func longWords(parts []textPart) []textPart {
	out := make([]textPart, 0, len(parts))
	for _, p := range parts {
		if p.Mark || len(p.Text) <= wholeWord {
			out = append(out, p)
			continue
		}
		rest, plain := p.Text, 0
		for i := 0; i < len(rest); {
			if isSpace(rest[i]) {
				i++
				continue
			}
			j := i
			for j < len(rest) && !isSpace(rest[j]) {
				j++
			}
			if utf8.RuneCountInString(rest[i:j]) > wholeWord {
				if i > plain {
					out = append(out, textPart{Text: rest[plain:i]})
				}
				out = append(out, textPart{Text: rest[i:j], Long: true})
				plain = j
			}
			i = j
		}
		if plain < len(rest) {
			out = append(out, textPart{Text: rest[plain:]})
		}
	}
	return out
}

// isSpace reports whether b is an ASCII space where a line may break.
func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// splitMarks splits text already passed through diffreview.Visible into
// plain text and marks.
func splitMarks(s string) []textPart {
	if !strings.Contains(s, markOpen) {
		return []textPart{{Text: s}}
	}
	var out []textPart
	for s != "" {
		i := strings.Index(s, markOpen)
		j := -1
		if i >= 0 {
			j = strings.Index(s[i:], markClose)
		}
		if j < 0 {
			out = append(out, textPart{Text: s})
			break
		}
		if i > 0 {
			out = append(out, textPart{Text: s[:i]})
		}
		end := i + j + len(markClose)
		out = append(out, textPart{Text: s[i:end], Mark: true})
		s = s[end:]
	}
	return out
}

// wholeWord is the length, in characters, up to which a word is never
// broken across lines.
const wholeWord = 12

// identPart is a piece of a displayed identifier: a line may break before
// it (Break, a <wbr>), a Keep piece (one a browser could break) is kept
// whole, and a Long
// piece (longer than wholeWord) may break anywhere as a last resort.
type identPart struct {
	Text        string
	Mark, Long  bool
	Break, Keep bool
}

// identifierParts splits an identifier (a server or tool name, a
// principal, a version, a URL) for display: hidden characters become
// marks as in vis, an identifier longer than wholeWord characters may
// break after each "/", "." and "_", and every piece of at most wholeWord
// characters is kept whole (so "acme-ci" never breaks at its hyphen).
func identifierParts(s string) []identPart {
	long := utf8.RuneCountInString(s) > wholeWord
	var out []identPart
	afterSeparator := false
	for _, p := range splitMarks(diffreview.Visible(s)) {
		if p.Mark {
			out = append(out, identPart{Text: p.Text, Mark: true, Break: afterSeparator})
			afterSeparator = false
			continue
		}
		rest := p.Text
		for rest != "" {
			n := len(rest)
			if long {
				if i := strings.IndexAny(rest, "/._"); i >= 0 {
					n = i + 1
				}
			}
			piece := rest[:n]
			out = append(out, identPart{
				Text:  piece,
				Long:  utf8.RuneCountInString(piece) > wholeWord,
				Break: afterSeparator,
				Keep:  utf8.RuneCountInString(piece) <= wholeWord && strings.ContainsFunc(piece, mayBreakAfter),
			})
			afterSeparator = long && strings.ContainsAny(piece[len(piece)-1:], "/._")
			rest = rest[n:]
		}
	}
	return out
}

// mayBreakAfter reports whether a browser might end a line after r inside
// a word (a hyphen, other punctuation): pieces without one need no markup
// to stay whole.
func mayBreakAfter(r rune) bool {
	return !(r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._@/", r)))
}

func when(t *timestamppb.Timestamp) string {
	if t == nil {
		return ""
	}
	return t.AsTime().UTC().Format("2006-01-02 15:04 UTC")
}

func iso(t *timestamppb.Timestamp) string {
	if t == nil {
		return ""
	}
	return t.AsTime().UTC().Format(time.RFC3339)
}

// short abbreviates a "sha256:<hex>" hash for tables; the full value is
// in the title attribute.
func short(h string) string {
	const keep = len("sha256:") + 12
	if len(h) <= keep {
		return h
	}
	return h[:keep] + "…"
}

func stateLabel(s string) string { return strings.ReplaceAll(s, "_", " ") }

var severities = []string{"critical", "high", "medium", "low", "info"}

// sevClass is the CSS class of a severity (known values only).
func sevClass(s string) string {
	for _, k := range severities {
		if s == k {
			return "sev-" + k
		}
	}
	return "sev-unknown"
}

// reviewURL is the review page of a version. Server names hold exactly one
// "/" between characters that need no escaping.
func reviewURL(name, version string) string {
	return "/review/" + name + "/" + url.PathEscape(version)
}

func serverURL(name string) string { return "/servers/" + name }
