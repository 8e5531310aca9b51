package server_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	apiv0 "github.com/modelcontextprotocol/registry/pkg/api/v0"

	"github.com/mcpreg/mcpreg/internal/officialapi"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
)

// TestOfficialWalk walks /v0.1/servers page by page over a fleet with
// active, deprecated, revoked and quarantined versions and holds it to
// the official registry (v1.8.9) semantics: every answer matches its
// OpenAPI document and decodes into its Go types; records are ordered by
// name, then version text, both ascending; following nextCursor visits
// every record once and ends without an empty page; a cursor is a
// position ("name:version" or a name), so one this registry never issued
// seeks instead of failing; deleted versions appear only with
// include_deleted or updated_since; statusChangedAt and statusMessage are
// in the official _meta; a trailing slash is redirected.
func TestOfficialWalk(t *testing.T) {
	spec, err := officialapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	in := servertest.Start(t, store.DialectSQLite)
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	alice := in.Token(t, "alice", registry.RoleReviewer)
	host := in.HostToken(t, "laptop")
	for _, n := range []string{"delta", "alpha", "charlie", "bravo"} {
		for _, v := range []string{"1.2.0", "1.10.0", "1.0.0"} {
			name := "io.github.acme/" + n
			ok(t, "submit", call(t, "POST", in.URL+"/v1/versions", owner, submitBody(name, v, toolsJSON)))
			ok(t, "approve", call(t, "POST", in.URL+"/v1/servers/"+name+"/versions/"+v+"/approve", alice, map[string]any{"reason": "ok"}))
		}
	}
	ok(t, "deprecate", call(t, "POST", in.URL+"/v1/servers/io.github.acme/bravo/versions/-/status", owner,
		map[string]any{"status": "deprecated", "message": "use io.github.acme/alpha"}))
	ok(t, "revoke", call(t, "POST", in.URL+"/v1/servers/io.github.acme/charlie/versions/1.10.0/revoke", alice, map[string]any{"reason": "bad"}))
	ok(t, "quarantine", call(t, "POST", in.URL+"/v1/servers/io.github.acme/delta/versions/1.0.0/quarantine", alice, map[string]any{"reason": "odd"}))

	type rec struct{ name, version, status string }
	page := func(query string) (recs []rec, next string) {
		t.Helper()
		r := call(t, "GET", in.URL+"/v0.1/servers?"+query, host, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("?%s: %d %s", query, r.Status, r.Body)
		}
		if err := spec.ValidateResponse("GET", "/v0.1/servers", r.Status, r.Body); err != nil {
			t.Fatalf("?%s does not match the official document: %v", query, err)
		}
		var list apiv0.ServerListResponse
		if err := json.Unmarshal(r.Body, &list); err != nil {
			t.Fatalf("?%s does not decode into the official types: %v", query, err)
		}
		if list.Metadata.Count != len(list.Servers) {
			t.Errorf("?%s: count %d, %d servers", query, list.Metadata.Count, len(list.Servers))
		}
		for _, s := range list.Servers {
			o := s.Meta.Official
			if o == nil || o.StatusChangedAt.IsZero() || o.PublishedAt.IsZero() {
				t.Fatalf("?%s: %s@%s: official _meta %+v", query, s.Server.Name, s.Server.Version, o)
			}
			if (o.Status == "deprecated") != (o.StatusMessage != nil && *o.StatusMessage == "use io.github.acme/alpha") {
				t.Errorf("%s@%s: status %s, message %v", s.Server.Name, s.Server.Version, o.Status, o.StatusMessage)
			}
			recs = append(recs, rec{s.Server.Name, s.Server.Version, string(o.Status)})
		}
		return recs, list.Metadata.NextCursor
	}
	walk := func(query string) []rec {
		t.Helper()
		var all []rec
		cursor := ""
		for pages := 0; ; pages++ {
			q := query + "&limit=2"
			if cursor != "" {
				q += "&cursor=" + url.QueryEscape(cursor)
			}
			recs, next := page(q)
			if len(recs) == 0 {
				t.Fatalf("?%s: an empty page after %d pages", q, pages)
			}
			all = append(all, recs...)
			if next == "" {
				return all
			}
			cursor = next
		}
	}
	ordered := func(recs []rec) bool {
		return slices.IsSortedFunc(recs, func(a, b rec) int {
			if c := strings.Compare(a.name, b.name); c != 0 {
				return c
			}
			return strings.Compare(a.version, b.version)
		})
	}

	active := walk("")
	one, next := page("limit=100")
	if !slices.Equal(active, one) || next != "" || !ordered(active) || len(active) != 10 {
		t.Fatalf("walk %v\n one page %v (next %q)", active, one, next)
	}
	if active[0] != (rec{"io.github.acme/alpha", "1.0.0", "active"}) || active[1].version != "1.10.0" || active[2].version != "1.2.0" {
		t.Errorf("versions are not in text order: %v", active[:3])
	}
	for _, r := range active {
		if r.status == "deleted" || (strings.HasSuffix(r.name, "/bravo") != (r.status == "deprecated")) {
			t.Errorf("without include_deleted: %v", r)
		}
	}
	withDeleted := walk("include_deleted=true")
	if len(withDeleted) != 12 || !ordered(withDeleted) ||
		!slices.Contains(withDeleted, rec{"io.github.acme/charlie", "1.10.0", "deleted"}) ||
		!slices.Contains(withDeleted, rec{"io.github.acme/delta", "1.0.0", "deleted"}) {
		t.Errorf("with include_deleted: %v", withDeleted)
	}
	if since := walk("updated_since=2000-01-01T00:00:00Z"); !slices.Equal(since, withDeleted) {
		t.Errorf("updated_since lists deleted versions too: %v", since)
	}
	// Cursors are positions.
	if recs, _ := page("limit=100&cursor=io.github.acme%2Fbravo%3A1.10.0"); recs[0] != (rec{"io.github.acme/bravo", "1.2.0", "deprecated"}) {
		t.Errorf("seek to a name and version: %v", recs[0])
	}
	if recs, _ := page("limit=100&cursor=io.github.acme%2Fbravo"); recs[0].name != "io.github.acme/charlie" {
		t.Errorf("seek past a name: %v", recs[0])
	}
	if recs, _ := page("limit=100&cursor=aaa-never-issued"); !slices.Equal(recs, active) {
		t.Errorf("a cursor before every name starts from the beginning: %v", recs)
	}
	if recs, next := page("limit=100&cursor=zzz"); len(recs) != 0 || next != "" {
		t.Errorf("a cursor after every name: %v %q", recs, next)
	}
	// Deprecated versions stay resolvable and carry their status in the
	// signed discovery document.
	d := call(t, "GET", in.URL+"/v1/discovery/servers?name=io.github.acme/bravo", host, nil)
	var env struct{ Payload string }
	if err := json.Unmarshal(d.Body, &env); err != nil || d.Status != http.StatusOK {
		t.Fatalf("discovery: %d %v", d.Status, err)
	}
	payload, _ := base64.StdEncoding.DecodeString(env.Payload)
	if !strings.Contains(string(payload), `"status":"deprecated","statusMessage":"use io.github.acme/alpha"`) {
		t.Errorf("discovery of deprecated versions: %s", payload)
	}
	// One version, deleted ones only when asked.
	enc := url.PathEscape("io.github.acme/charlie")
	if r := call(t, "GET", in.URL+"/v0.1/servers/"+enc+"/versions/1.10.0", host, nil); r.Status != http.StatusNotFound {
		t.Errorf("a revoked version without include_deleted: %d", r.Status)
	}
	r := call(t, "GET", in.URL+"/v0.1/servers/"+enc+"/versions/1.10.0?include_deleted=true", host, nil)
	if err := spec.ValidateResponse("GET", "/v0.1/servers/{serverName}/versions/{version}", r.Status, r.Body); r.Status != http.StatusOK || err != nil ||
		!strings.Contains(string(r.Body), `"status":"deleted"`) {
		t.Errorf("a revoked version with include_deleted: %d %v %s", r.Status, err, r.Body)
	}
	vs := call(t, "GET", in.URL+"/v0.1/servers/"+enc+"/versions?include_deleted=true", host, nil)
	if vs.Status != http.StatusOK || strings.Count(string(vs.Body), `"status":"deleted"`) != 1 || strings.Count(string(vs.Body), `"status":"active"`) != 2 {
		t.Errorf("versions with include_deleted: %d %s", vs.Status, vs.Body)
	}
	// A trailing slash is redirected to the canonical path, query kept,
	// never off-site.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	redirect := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", in.URL+path, nil)
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Location")
	}
	if code, loc := redirect("/v0.1/servers/?limit=2"); code != http.StatusPermanentRedirect || loc != "/v0.1/servers?limit=2" {
		t.Errorf("trailing slash: %d %q, want 308 to /v0.1/servers?limit=2", code, loc)
	}
	for path := "/v0.1//evil.example/"; ; {
		code, loc := redirect(path)
		if code/100 != 3 {
			break
		}
		if !strings.HasPrefix(loc, "/v0.1/") || strings.HasPrefix(loc, "//") {
			t.Fatalf("GET %s redirects off-site: %d %q", path, code, loc)
		}
		path = loc
	}
}

// TestOfficialDeletedKeepsVisibility: a host token holder asking for
// deleted versions learns nothing its environment labels hide: a revoked
// prod-only version is listed (as deleted) for the prod host, not for a
// host without the label, and not through the version endpoints either.
func TestOfficialDeletedKeepsVisibility(t *testing.T) {
	e := startDiscovery(t, store.DialectSQLite)
	ok(t, "revoke", e.transition(t, "revoke", "io.github.acme/billing", "2.0.0"))
	enc := url.PathEscape("io.github.acme/billing")
	for _, c := range []struct {
		token string
		see   bool
	}{{e.prodHost, true}, {e.host, false}} {
		for _, path := range []string{"/v0.1/servers?include_deleted=true", "/v0.1/servers?updated_since=2000-01-01T00:00:00Z",
			"/v0.1/servers/" + enc + "/versions?include_deleted=true", "/v0.1/servers/" + enc + "/versions/2.0.0?include_deleted=true"} {
			r := call(t, "GET", e.in.URL+path, c.token, nil)
			if got := strings.Contains(string(r.Body), `"io.github.acme/billing"`); got != c.see {
				t.Errorf("%s (sees prod: %v): billing listed %v: %d %s", path, c.see, got, r.Status, r.Body)
			}
		}
	}
}
