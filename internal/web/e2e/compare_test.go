package e2e_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpreg/mcpreg/internal/store"
)

const (
	// compareTools1 and compareTools2 are the scenario: from 1.0.0
	// to 1.1.0 one description changes (get_forecast), one schema maximum
	// rises (get_alerts) and one tool is added (get_radar); get_tides stays
	// as it was.
	compareTools1 = `{"tools":[
 {"name":"get_forecast","description":"Get the forecast for a city.","inputSchema":` + citySchema + `},
 {"name":"get_alerts","description":"Weather alerts for a US state.","inputSchema":{"type":"object","properties":{"days":{"type":"integer","maximum":7}}}},
 {"name":"get_tides","description":"Tide tables for a port.","inputSchema":{"type":"object"}}]}`
	compareTools2 = `{"tools":[
 {"name":"get_forecast","description":"Get the hourly forecast for a city.","inputSchema":` + citySchema + `},
 {"name":"get_alerts","description":"Weather alerts for a US state.","inputSchema":{"type":"object","properties":{"days":{"type":"integer","maximum":14}}}},
 {"name":"get_tides","description":"Tide tables for a port.","inputSchema":{"type":"object"}},
 {"name":"get_radar","description":"Radar images for a region.","inputSchema":{"type":"object"}}]}`
)

// TestReviewShowsWhatChanged: an owner submits 1.0.0, a reviewer approves
// it, the owner submits 1.1.0 with one description changed, one tool
// added and a schema maximum raised. The reviewer's queue row shows the
// summary; the review page starts with exactly those changes, the word
// diff and the schema change by pointer, the unchanged tool folded; and
// `mcpreg versions diff` prints the same summary. The page passes axe and
// is screenshotted at 1280 and 390 px.
func TestReviewShowsWhatChanged(t *testing.T) {
	br := startBrowser(t)
	reg := startRegistry(t, store.DialectSQLite)
	reg.addUser(t, "rita", "reviewer", password("rita"))
	owner := reg.token(t, "acme-ci", "owner", "io.github.acme")
	bob := reg.token(t, "bob", "reviewer")
	submitTools(t, reg, owner, weather, "1.0.0", compareTools1)
	reg.mustCLI(t, bob, "approve", weather, "1.0.0", "--reason", "reviewed")
	submitTools(t, reg, owner, weather, "1.1.0", compareTools2)
	cli := reg.mustCLI(t, owner, "versions", "diff", weather, "-", "1.1.0")

	f := &flow{t: t, br: br, reg: reg}
	p := f.signIn("rita")
	const summary = "2 tools changed, 1 added; "
	row := eval[string](p, `[...document.querySelectorAll("section[aria-labelledby=pending-h] tbody tr")].map(r => r.textContent).join("\n")`)
	if !strings.Contains(row, "1.1.0") || !strings.Contains(row, summary) {
		t.Fatalf("the queue row does not show the summary %q:\n%s", summary, row)
	}
	p.submit("open the review", chromedp.Click(linkIn("pending-h", weather)))
	if first := eval[string](p, `document.querySelector("main section").getAttribute("aria-labelledby")`); first != "changes" {
		t.Errorf("the review page starts with section %q, want the changes", first)
	}
	line := p.text("section[aria-labelledby=changes] .summary-line")
	if !strings.HasPrefix(line, summary) || !strings.Contains(cli, "Summary: "+line) {
		t.Errorf("page summary %q; want it to start %q and to be what versions diff prints:\n%s", line, summary, cli)
	}
	p.contains("section[aria-labelledby=changes]", "Compared with version 1.0.0", "highest version below this one")
	heads := eval[[]string](p, `[...document.querySelectorAll("section[aria-labelledby=changes] article h3")].map(h => h.textContent.trim())`)
	slices.Sort(heads)
	if want := []string{"Tool get_alerts: changed", "Tool get_forecast: changed", "Tool get_radar: added"}; !slices.Equal(heads, want) {
		t.Errorf("changed tools shown: %q, want %q", heads, want)
	}
	ins := eval[[]string](p, `[...document.querySelectorAll("section[aria-labelledby=changes] article ins")].map(e => e.textContent.trim())`)
	if !slices.Contains(ins, "hourly") || !slices.Contains(ins, "14") {
		t.Errorf("the changes' <ins> lack the inserted word and the new maximum: %q", ins)
	}
	p.contains("section[aria-labelledby=changes]", "description_changed", "schema_changed", "/properties/days/maximum", "1 unchanged tool(s)")
	if open := eval[bool](p, `document.querySelector("section[aria-labelledby=changes] details.unchanged").open`); open {
		t.Errorf("the unchanged tools are not folded")
	}
	p.checkA11y("version comparison")
	p.screenshot("review-compare")
	p.do("narrow viewport", chromedp.EmulateViewport(390, 844))
	p.screenshot("review-compare-390")
	p.noDialogs()
}

// submitTools submits name@version with a tools file, offline.
func submitTools(t *testing.T, reg *registryProc, owner, name, version, tools string) {
	t.Helper()
	doc := `{"$schema":"` + schemaURL + `","name":"` + name + `","description":"Weather","version":"` + version + `",
 "remotes":[{"type":"streamable-http","url":"https://weather.acme.example/mcp"}]}`
	submitDocument(t, reg, owner, doc, tools)
}

// submitDocument submits a server.json document with a tools file, offline.
func submitDocument(t *testing.T, reg *registryProc, owner, doc, tools string) {
	t.Helper()
	dir := t.TempDir()
	sj, tl := filepath.Join(dir, "server.json"), filepath.Join(dir, "tools.json")
	for p, s := range map[string]string{sj: doc, tl: tools} {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	reg.mustCLI(t, owner, "submit", "--server-json", sj, "--tools", tl)
}
