package web_test

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAuditOrder: the audit page lists newest first by default and in
// chain order with ?order=asc, and its next-page link keeps the order.
func TestAuditOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.submit(t, owner, weather, "1.0.0", tools)
	alice := e.browser(t).signIn("alice")
	newest := alice.get("/audit")
	asc := alice.get("/audit?order=asc")
	for _, r := range []reply{newest, asc} {
		if r.Status != http.StatusOK {
			t.Fatalf("audit: %d", r.Status)
		}
	}
	mustContain(t, newest.Body, "Newest first.", `<option value="desc" selected>`)
	mustContain(t, asc.Body, "Chain order, oldest first.", `<option value="asc" selected>`)
	seqs := func(body string) []int {
		var out []int
		for _, m := range regexp.MustCompile(`<th scope="row">(\d+)</th>`).FindAllStringSubmatch(body, -1) {
			n, _ := strconv.Atoi(m[1])
			out = append(out, n)
		}
		return out
	}
	down, up := seqs(newest.Body), seqs(asc.Body)
	if len(down) < 3 || !slices.IsSortedFunc(down, func(a, b int) int { return b - a }) || !slices.IsSorted(up) || len(up) != len(down) {
		t.Fatalf("newest first %v, chain order %v", down, up)
	}
}

// TestUnknownPagesAreStyled: an unknown path gets the styled not-found
// page, signed in or not, saying "Not found".
func TestUnknownPagesAreStyled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		b     *browser
		paths []string
	}{
		{e.browser(t), []string{"/nope", "/v2/anything"}}, // signed out: pages under the UI's prefixes ask to sign in first
		{e.browser(t).signIn("alice"), []string{"/nope", "/review/x", "/servers/a/b/c"}},
	} {
		b := tc.b
		for _, path := range tc.paths {
			r := b.get(path)
			if r.Status != http.StatusNotFound || !strings.Contains(r.Body, "Not found: there is no page at "+path) ||
				!strings.Contains(r.Body, `<link rel="stylesheet"`) {
				t.Errorf("%s: %d\n%.300s", path, r.Status, r.Body)
			}
		}
	}
}
