package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/officialapi"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestOfficialReadAPI: /v0.1 serves approved, non-quarantined versions in
// the official shapes (validated against the official OpenAPI document),
// with mcpreg's pins and digests under _meta, to discovery readers only.
func TestOfficialReadAPI(t *testing.T) {
	spec, err := officialapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startDiscovery(t, dialect)
		get := func(token, path string) response { return call(t, "GET", e.in.URL+path, token, nil) }
		valid := func(op string, r response) map[string]any {
			t.Helper()
			if r.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", op, r.Status, r.Body)
			}
			if err := spec.ValidateResponse("GET", op, r.Status, r.Body); err != nil {
				t.Fatalf("%s does not match the official document: %v\n%s", op, err, r.Body)
			}
			return r.json(t)
		}
		names := func(list map[string]any) []string {
			var out []string
			for _, s := range list["servers"].([]any) {
				srv := s.(map[string]any)["server"].(map[string]any)
				out = append(out, srv["name"].(string)+"@"+srv["version"].(string))
			}
			return out
		}
		const list, versions, one = "/v0.1/servers", "/v0.1/servers/{serverName}/versions", "/v0.1/servers/{serverName}/versions/{version}"
		enc := url.PathEscape("io.github.acme/weather")

		all := valid(list, get(e.host, "/v0.1/servers"))
		if !sameList(names(all), "io.github.acme/weather@1.0.0", "io.github.acme/weather@1.1.0") {
			t.Fatalf("host list: %v", names(all))
		}
		first := all["servers"].([]any)[1].(map[string]any)["_meta"].(map[string]any)
		official := first[registry.OfficialMetaKey].(map[string]any)
		ours := first[registry.RegistryMetaKey].(map[string]any)
		if official["isLatest"] != true || official["status"] != "active" || ours["pins"].(map[string]any)["toolDefinitionHash"] == "" ||
			ours["approval"].(map[string]any)["approvedBy"] != "alice" {
			t.Fatalf("_meta: %v", first)
		}
		latest := valid(list, get(e.prodHost, "/v0.1/servers?version=latest"))
		if !sameList(names(latest), "io.github.acme/billing@2.0.0", "io.github.acme/weather@1.1.0") {
			t.Fatalf("prod host latest: %v", names(latest))
		}
		page := valid(list, get(e.alice, "/v0.1/servers?limit=1"))
		cursor := page["metadata"].(map[string]any)["nextCursor"].(string)
		next := valid(list, get(e.alice, "/v0.1/servers?limit=2&cursor="+url.QueryEscape(cursor)))
		if !sameList(names(page), "io.github.acme/billing@2.0.0") || !sameList(names(next), "io.github.acme/weather@1.0.0", "io.github.acme/weather@1.1.0") {
			t.Fatalf("pages: %v then %v", names(page), names(next))
		}
		if s := valid(list, get(e.alice, "/v0.1/servers?search=billing")); !sameList(names(s), "io.github.acme/billing@2.0.0") {
			t.Fatalf("search: %v", names(s))
		}
		if s := valid(list, get(e.alice, "/v0.1/servers?updated_since=2999-01-01T00:00:00Z")); len(names(s)) != 0 {
			t.Fatalf("updated_since in the future: %v", names(s))
		}
		if vs := valid(versions, get(e.host, "/v0.1/servers/"+enc+"/versions")); !sameList(names(vs), "io.github.acme/weather@1.0.0", "io.github.acme/weather@1.1.0") {
			t.Fatalf("versions: %v", names(vs))
		}
		if v := valid(one, get(e.host, "/v0.1/servers/"+enc+"/versions/latest")); v["server"].(map[string]any)["version"] != "1.1.0" {
			t.Fatalf("latest: %v", v)
		}
		valid(one, get(e.host, "/v0/servers/"+enc+"/versions/1.0.0"))

		// Quarantined and pending versions are not there.
		ok(t, "quarantine", e.transition(t, "quarantine", "io.github.acme/weather", "1.1.0"))
		if v := valid(one, get(e.host, "/v0.1/servers/"+enc+"/versions/latest")); v["server"].(map[string]any)["version"] != "1.0.0" {
			t.Fatalf("latest after quarantine: %v", v)
		}
		for _, path := range []string{"/v0.1/servers/" + enc + "/versions/1.1.0", "/v0.1/servers/" + url.PathEscape("io.github.acme/pending") + "/versions",
			"/v0.1/servers/" + url.PathEscape("io.github.acme/billing") + "/versions/2.0.0"} {
			r := get(e.host, path)
			if r.Status != http.StatusNotFound {
				t.Fatalf("%s: %d %s, want 404", path, r.Status, r.Body)
			}
			op := one
			if strings.HasSuffix(path, "/versions") {
				op = versions
			}
			if err := spec.ValidateResponse("GET", op, r.Status, r.Body); err != nil {
				t.Fatalf("404 body: %v", err)
			}
		}
		for q, status := range map[string]int{"limit=0": 422, "limit=101": 422, "limit=ten": 422, "search=ab": 422,
			"updated_since=yesterday": 400, "include_deleted=maybe": 422} {
			r := get(e.host, "/v0.1/servers?"+q)
			if r.Status != status || r.Header.Get("Content-Type") != "application/problem+json" || r.json(t)["detail"] == "" {
				t.Fatalf("?%s: %d %s %s, want %d", q, r.Status, r.Header.Get("Content-Type"), r.Body, status)
			}
		}
		for token, status := range map[string]int{"": 401, e.owner: 403, "mcpreg_bogus": 401} {
			if r := get(token, "/v0.1/servers"); r.Status != status {
				t.Fatalf("token %q: %d, want %d", token, r.Status, status)
			}
		}
	})
}

// TestOfficialReadAPIPublic: with --public-read-api, anonymous readers get
// the versions whose contracts do not restrict environments.
func TestOfficialReadAPIPublic(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect, func(c *config.Config) { c.PublicReadAPI = true })
		owner := in.Token(t, "olga", registry.RoleOwner, "io.github.acme")
		alice := in.Token(t, "alice", registry.RoleReviewer)
		ok(t, "submit", call(t, "POST", in.URL+"/v1/versions", owner, submitBody("io.github.acme/weather", "1.0.0", toolsJSON)))
		body := submitBody("io.github.acme/billing", "1.0.0", toolsJSON)
		body["contract"] = prodOnlyContract
		ok(t, "submit billing", call(t, "POST", in.URL+"/v1/versions", owner, body))
		for _, n := range []string{"weather", "billing"} {
			ok(t, "approve", call(t, "POST", in.URL+"/v1/servers/io.github.acme/"+n+"/versions/1.0.0/approve", alice, map[string]any{"reason": "ok"}))
		}
		r := ok(t, "anonymous", call(t, "GET", in.URL+"/v0.1/servers", "", nil))
		if !strings.Contains(string(r.Body), "io.github.acme/weather") || strings.Contains(string(r.Body), "billing") {
			t.Fatalf("anonymous list: %s", r.Body)
		}
		if r := call(t, "GET", in.URL+"/v0.1/servers", owner, nil); r.Status != http.StatusForbidden {
			t.Fatalf("an owner token is still checked: %d", r.Status)
		}
		if r := call(t, "GET", in.URL+"/v1/discovery/servers", "", nil); r.Status != http.StatusUnauthorized {
			t.Fatalf("discovery stays private: %d", r.Status)
		}
	})
}
