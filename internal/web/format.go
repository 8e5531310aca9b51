package web

import (
	"html/template"
	"net/url"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// funcs are the template helpers. None returns template.HTML: everything
// a page shows goes through html/template's escaping.
var funcs = template.FuncMap{
	"vis":        visibleParts,
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
type textPart struct {
	Text string
	Mark bool
}

// The markers diffreview.Visible writes; it escapes literal ones in the
// input, so they cannot be forged.
const (
	markOpen  = "⟦"
	markClose = "⟧"
)

// visibleParts makes hidden characters of raw text visible and splits out
// the marks.
func visibleParts(s string) []textPart { return markParts(diffreview.Visible(s)) }

// markParts splits text already passed through diffreview.Visible (drift
// diffs, finding evidence) into plain text and marks.
func markParts(s string) []textPart {
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
