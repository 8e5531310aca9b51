package server_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestCraftedTextReachesHostsAsSubmitted: the discovery index holds each
// version's entry encoded as bytes. An owner who writes text made to
// look like that encoding or like the JSON around it (quotes, backslashes,
// a "latest":true fragment, length prefixes, non-ASCII) gets exactly that
// text back to hosts, in the signed resolve document and in /v0.1, and no
// field of the entry moves.
func TestCraftedTextReachesHostsAsSubmitted(t *testing.T) {
	const (
		name        = "io.github.acme/crafted"
		title       = "\x7f\x01 \"latest\":true,\"owner\":\"root\" \\u0000 ✓"
		description = "\",\"latest\":true,\"pins\":{}} \\ \x05\x02ab 𝔘𝔫𝔦 " + "€\u2028"
	)
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startDiscovery(t, dialect)
		var doc map[string]any
		if err := json.Unmarshal([]byte(serverJSON(name, "1.0.0")), &doc); err != nil {
			t.Fatal(err)
		}
		doc["title"], doc["description"] = title, description
		sj, _ := json.Marshal(doc)
		ok(t, "submit", call(t, "POST", e.in.URL+"/v1/versions", e.owner, map[string]any{"serverJson": string(sj), "tools": toolsJSON}))
		ok(t, "approve", e.transition(t, "approve", name, "1.0.0"))

		var resolved discovery.Document
		if err := json.Unmarshal([]byte(decodePayload(t, ok(t, "resolve", call(t, "GET", e.in.URL+"/v1/discovery/servers?name="+url.QueryEscape(name), e.host, nil)).Body)), &resolved); err != nil {
			t.Fatal(err)
		}
		if len(resolved.Servers) != 1 {
			t.Fatalf("resolve %s: %d entries", name, len(resolved.Servers))
		}
		got := resolved.Servers[0]
		if got.Title != title || got.Description != description {
			t.Errorf("resolve: title %q description %q, want %q %q", got.Title, got.Description, title, description)
		}
		if got.Name != name || got.Version != "1.0.0" || got.Owner != "olga" || got.Namespace != "io.github.acme" || !got.Latest ||
			len(got.Pins.Tools) != 2 || got.Pins.Tools[0].Name != "get_alerts" || got.Approval.ApprovedBy != "alice" {
			t.Errorf("resolve: entry fields moved: %+v", got)
		}

		v := ok(t, "/v0.1", call(t, "GET", e.in.URL+"/v0.1/servers/"+url.PathEscape(name)+"/versions/1.0.0", e.host, nil)).json(t)
		srv := v["server"].(map[string]any)
		if srv["title"] != title || srv["description"] != description {
			t.Errorf("/v0.1: title %q description %q, want %q %q", srv["title"], srv["description"], title, description)
		}
		pins, _ := json.Marshal(v["_meta"])
		if !strings.Contains(string(pins), got.Pins.ToolDefinitionHash) || got.Pins.ToolDefinitionHash == "" {
			t.Errorf("/v0.1 _meta lacks the version's tool definition hash %q: %s", got.Pins.ToolDefinitionHash, pins)
		}
	})
}

// TestNULCharacterRefused: a submitted document whose text holds U+0000
// (which PostgreSQL cannot store as text), or any text field of a request
// holding it, is refused as invalid, naming the field, on both dialects,
// and nothing is stored. Before, PostgreSQL answered 500 and SQLite
// stored it.
func TestNULCharacterRefused(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startDiscovery(t, dialect)
		const name = "io.github.acme/nul"
		nulDoc := strings.Replace(serverJSON(name, "1.0.0"), "Weather forecasts for agents", `Weather\u0000forecasts`, 1)
		for _, c := range []struct{ field, serverJSON, tools, contract string }{
			{"serverJson", nulDoc, toolsJSON, ""},
			{"tools", serverJSON(name, "1.0.0"), strings.Replace(toolsJSON, "Get the forecast", `Get\u0000the forecast`, 1), ""},
			{"contract", serverJSON(name, "1.0.0"), toolsJSON, `{"hostEnvironments":{"allow":["pr\u0000od"]}}`},
		} {
			body := map[string]any{"serverJson": c.serverJSON, "tools": c.tools}
			if c.contract != "" {
				body["contract"] = c.contract
			}
			r := call(t, "POST", e.in.URL+"/v1/versions", e.owner, body)
			if r.Status != 400 || !strings.Contains(string(r.Body), c.field+": the string") || !strings.Contains(string(r.Body), "NUL character") {
				t.Errorf("NUL in %s: %d %s", c.field, r.Status, r.Body)
			}
		}
		if r := call(t, "GET", e.in.URL+"/v1/servers/"+name+"/versions/1.0.0", e.alice, nil); r.Status != 404 {
			t.Errorf("after refused submissions the version answers %d %s, want 404", r.Status, r.Body)
		}
		// Any text field of the API: a review reason.
		r := call(t, "POST", e.in.URL+"/v1/servers/io.github.acme/weather/versions/1.2.0/approve", e.alice, map[string]any{"reason": "fine\x00"})
		if r.Status != 400 || !strings.Contains(string(r.Body), "reason holds the NUL character") {
			t.Errorf("approve with a NUL in its reason: %d %s", r.Status, r.Body)
		}
		if v := call(t, "GET", e.in.URL+"/v1/servers/io.github.acme/weather/versions/1.2.0", e.alice, nil).json(t); v["state"] != "pending_review" {
			t.Errorf("after a refused approval the version is %v", v["state"])
		}
		// The escape spelled out as text (a backslash, then u0000) is no NUL.
		text := strings.Replace(serverJSON(name, "1.0.0"), "Weather forecasts for agents", `Weather \\u0000 forecasts`, 1)
		ok(t, "text that reads \\u0000", call(t, "POST", e.in.URL+"/v1/versions", e.owner, map[string]any{"serverJson": text, "tools": toolsJSON}))
	})
}
