package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpreg/mcpreg/internal/store"
)

const (
	// longNamespace and longServer make a server name of 117 characters
	// with every separator a name may hold.
	longNamespace = "io.github.example-organisation-with-a-long-name"
	longServer    = longNamespace + "/marine-conditions_and_coastal.forecast-server_for-harbour-masters-v2"

	// longTools1 and longTools2 hold what stretches a page: a long tool
	// name, a description with a long URL, schema property names longer
	// than a phone is wide. 1.1.0 changes a description and adds a tool.
	longTools1 = `{"tools":[
 {"name":"get_marine_conditions_for_coastal_region_with_tide_tables_and_swell","description":"Marine conditions from https://marine.example-organisation-with-a-long-name.example/api/v2/coastal/regions/conditions for a coastal region.","inputSchema":{"type":"object","properties":{"coastal_region_identifier_as_published_by_the_national_hydrographic_office":{"type":"string","description":"The region identifier as published by the national hydrographic office, without spaces."}}}}]}`
	longTools2 = `{"tools":[
 {"name":"get_marine_conditions_for_coastal_region_with_tide_tables_and_swell","description":"Marine conditions and swell heights from https://marine.example-organisation-with-a-long-name.example/api/v2/coastal/regions/conditions for a coastal region.","inputSchema":{"type":"object","properties":{"coastal_region_identifier_as_published_by_the_national_hydrographic_office":{"type":"string","description":"The region identifier as published by the national hydrographic office, without spaces."}}}},
 {"name":"list_harbour_master_notices_for_port_authority_jurisdiction","description":"Notices to mariners for a port authority.","inputSchema":{"type":"object"}}]}`
)

// layoutWidths are the viewport widths every page must fit: a desktop
// and a phone.
var layoutWidths = []int64{1280, 390}

// TestPagesFitTheirViewport: with a server whose name, tool names, URLs
// and schema members are longer than a phone is wide, the queue, review,
// servers, server and audit pages never scroll sideways at 1280 or 390 px
// (wide tables and code blocks scroll inside themselves), long
// identifiers break at "/", "." and "_" through <wbr>, no word of 12
// characters or fewer is broken across lines, and every page passes axe
// at both widths. A screenshot of each page at 390 px is saved as
// evidence.
func TestPagesFitTheirViewport(t *testing.T) {
	br := startBrowser(t)
	reg := startRegistry(t, store.DialectSQLite)
	reg.addUser(t, "rita", "reviewer", password("rita"))
	owner := reg.token(t, "acme-ci", "owner", longNamespace)
	bob := reg.token(t, "bob", "reviewer")
	doc := func(version string) string {
		return `{"$schema":"` + schemaURL + `","name":"` + longServer + `","version":"` + version + `",
 "title":"Marine conditions, coastal forecasts and notices for harbour masters",
 "description":"Marine conditions and coastal forecasts for harbour masters and port authorities.",
 "remotes":[{"type":"streamable-http","url":"https://marine.example-organisation-with-a-long-name.example/mcp/v2/coastal-forecast-server/streamable-http-endpoint"}]}`
	}
	submitDocument(t, reg, owner, doc("1.0.0"), longTools1)
	reg.mustCLI(t, bob, "approve", longServer, "1.0.0", "--reason", "reviewed the marine tools")
	submitDocument(t, reg, owner, doc("1.1.0-release-candidate.2026-12-02"), longTools2)

	f := &flow{t: t, br: br, reg: reg}
	p := f.signIn("rita")
	pages := []struct{ name, path string }{
		{"queue", "/queue"},
		{"review", reviewPath(longServer, "1.1.0-release-candidate.2026-12-02")},
		{"servers", "/servers"},
		{"server", "/servers/" + longServer},
		{"audit", "/audit"},
	}
	for _, pg := range pages {
		for _, w := range layoutWidths {
			p.do(fmt.Sprintf("viewport %d px", w), chromedp.EmulateViewport(w, 900))
			if st := p.visit(pg.path); st != 200 {
				t.Fatalf("%s: status %d", pg.path, st)
			}
			// Folded parts (server.json, unchanged tools) count too.
			eval[bool](p, `(document.querySelectorAll("details").forEach(d => d.open = true), true)`)
			where := fmt.Sprintf("%s at %d px", pg.name, w)
			if got := eval[[]int64](p, `[document.documentElement.scrollWidth, window.innerWidth]`); got[0] > got[1] {
				t.Errorf("%s: the page scrolls sideways: scrollWidth %d > innerWidth %d; widest: %s",
					where, got[0], got[1], eval[string](p, widestJS))
			}
			if broken := eval[[]string](p, brokenWordsJS); len(broken) > 0 {
				t.Errorf("%s: words of 12 characters or fewer broken across lines: %q", where, broken)
			}
			p.checkA11y(where)
			if w == 390 {
				p.screenshot("layout-" + pg.name + "-390")
			}
		}
	}

	// The name in the queue breaks only at its separators.
	p.do("desktop viewport", chromedp.EmulateViewport(1280, 900))
	p.visit("/queue")
	got := eval[[]string](p, `[...document.querySelectorAll("section[aria-labelledby=pending-h] tbody th a")].map(a =>
		[...a.childNodes].map(n => n.nodeName === "WBR" ? "|" : n.textContent).join(""))`)
	want := strings.NewReplacer("/", "/|", ".", ".|", "_", "_|").Replace(longServer)
	if len(got) != 1 || got[0] != want {
		t.Errorf("queue link for the long name: %q, want %q (| is a <wbr>)", got, want)
	}
	// A short identifier is left whole.
	p.visit("/audit")
	if n := eval[int](p, `[...document.querySelectorAll("main td")].filter(td => td.textContent === "bob" && td.querySelector("wbr")).length`); n != 0 {
		t.Errorf("%d cells break the 3-character actor name", n)
	}
	p.noDialogs()
}

// reviewPath is the review page of name@version.
func reviewPath(name, version string) string { return "/review/" + name + "/" + version }

// brokenWordsJS lists the words (runs of non-space characters within one
// text node) of 12 characters or fewer in the main content whose boxes lie
// on more than one line.
const brokenWordsJS = `(() => {
  const bad = [];
  const walk = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    for (const m of n.data.matchAll(/\S+/g)) {
      if ([...m[0]].length > 12) continue;
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter(b => b.width > 0).map(b => Math.round(b.top)));
      if (tops.size > 1) bad.push(m[0]);
    }
  }
  return bad;
})()`

// widestJS names the element that sticks out furthest to the right, for
// the failure message.
const widestJS = `(() => {
  let worst = null, right = 0;
  for (const e of document.querySelectorAll("main *")) {
    const r = e.getBoundingClientRect().right;
    if (r > right) { right = r; worst = e; }
  }
  return worst ? worst.tagName + " " + (worst.className || "") + " right=" + Math.round(right) + ": " + worst.textContent.slice(0, 80) : "none";
})()`
