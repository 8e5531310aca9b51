package scan

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpreg/mcpreg/pin"
)

// TestCatalogLimits: prompts and resources are read under the scan's
// limits; going over one fails the scan naming it, with nothing stored.
func TestCatalogLimits(t *testing.T) {
	tests := []struct {
		name      string
		lim       Limits
		cfg       catalogConfig
		pageSize  int
		fragments []string
	}{
		{"prompts", Limits{MaxPrompts: 4}, catalogConfig{Prompts: 2}, 2, []string{"MaxPrompts 4", "prompts/list"}},
		{"pages", Limits{MaxPages: 3}, catalogConfig{Prompts: 2}, 1, []string{"MaxPages 3", "prompts/list"}},
		{"resources", Limits{MaxResources: 1}, catalogConfig{}, 0, []string{"MaxResources 1", "resources/list"}},
		{"message bytes", Limits{MaxResponseBytes: 64 << 10}, catalogConfig{BigPrompt: 200 << 10}, 0,
			[]string{"MaxResponseBytes 65536", `prompts/get of prompt "greet" (read 1 of 2)`}},
		{"total bytes", Limits{MaxTotalBytes: 150 << 10}, catalogConfig{BigPrompt: 100 << 10}, 0,
			[]string{"MaxTotalBytes 153600", `prompts/get of prompt "greet" (read 2 of 2)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := sdkConfig{Catalog: &tt.cfg, PageSize: tt.pageSize}
			snap, err := read(t, tt.lim, stdioFixture(t, "sdk", cfg, nil))
			wantErr(t, err, ErrLimit, tt.fragments...)
			if snap.Tools != nil || snap.Prompts != nil || snap.Resources != nil || snap.ModelFile() != nil {
				t.Fatal("a failed scan kept what it read")
			}
		})
	}
}

// TestCatalogInvalid: prompts, resources and templates are read strictly;
// each rejection names the call and the JSON pointer.
func TestCatalogInvalid(t *testing.T) {
	type lists = map[string]map[string]string
	empty := lists{"prompts/list": {"": `{"prompts":[]}`}, "resources/list": {"": `{"resources":[]}`}, "resources/templates/list": {"": `{"resourceTemplates":[]}`}}
	prompts := func(pages ...string) lists {
		l := lists{"prompts/list": {}}
		cursors := []string{"", "p2", "p3"}
		for i, p := range pages {
			l["prompts/list"][cursors[i]] = p
		}
		return l
	}
	templates := func(page string) lists {
		return lists{"resources/list": {"": `{"resources":[]}`}, "resources/templates/list": {"": page}}
	}
	greet := map[string]string{"greet": greetResult}
	tests := []struct {
		name      string
		lists     lists
		gets      map[string]string
		target    error
		fragments []string
	}{
		{"prompt cursor loop", prompts(`{"prompts":[{"name":"a"}],"nextCursor":"p2"}`, `{"prompts":[{"name":"b"}],"nextCursor":"p2"}`), nil,
			ErrProtocol, []string{"prompts/list", "cursor loop", `"p2"`, "page 2"}},
		{"duplicate prompt across pages", prompts(`{"prompts":[{"name":"greet"}],"nextCursor":"p2"}`, `{"prompts":[{"name":"greet"}]}`), greet,
			ErrInvalid, []string{"prompts/list page 2", `"greet"`, "/prompts/0/name", "listed twice"}},
		{"prompt not an object", prompts(`{"prompts":["greet"]}`), nil, ErrInvalid, []string{"prompts/list page 1", "must be an object", "/prompts/0"}},
		{"prompt without a name", prompts(`{"prompts":[{"title":"x"}]}`), nil, ErrInvalid, []string{`must have a "name" member`, "/prompts/0"}},
		{"prompts not an array", prompts(`{"prompts":{}}`), nil, ErrInvalid, []string{"/prompts must be an array"}},
		{"listed messages", prompts(`{"prompts":[{"name":"greet","messages":[]}]}`), greet, ErrInvalid, []string{"/prompts/0/messages"}},
		{"required not a boolean", prompts(`{"prompts":[{"name":"greet","arguments":[{"name":"x","required":"true"}]}]}`), greet,
			ErrInvalid, []string{"/prompts/0/arguments/0/required", "boolean"}},
		{"argument not an object", prompts(`{"prompts":[{"name":"greet","arguments":["x"]}]}`), greet,
			ErrInvalid, []string{"/prompts/0/arguments/0", "must be an object"}},
		{"arguments not an array", prompts(`{"prompts":[{"name":"greet","arguments":{}}]}`), greet,
			ErrInvalid, []string{"/prompts/0/arguments must be an array"}},
		{"messages not an array", prompts(`{"prompts":[{"name":"greet"}]}`), map[string]string{"greet": `{"messages":{"role":"user"}}`},
			ErrInvalid, []string{`prompts/get of prompt "greet" (read 1 of 2)`, "/messages"}},
		{"prompts/get fails", prompts(`{"prompts":[{"name":"greet"}]}`), nil, ErrProtocol, []string{`prompts/get of prompt "greet"`, "unknown cursor or name"}},
		{"resource without a uri", lists{"resources/list": {"": `{"resources":[{"name":"a"}]}`}}, nil, ErrInvalid, []string{"resources/list page 1", `"uri"`, "/resources/0"}},
		{"resource uri not a string", lists{"resources/list": {"": `{"resources":[{"name":"a","uri":7}]}`}}, nil, ErrInvalid, []string{"got a number", "/resources/0/uri"}},
		{"invalid URI template", templates(`{"resourceTemplates":[{"name":"x","uriTemplate":"file:///{a b}"}]}`), nil,
			ErrInvalid, []string{"resources/templates/list page 1", "RFC 6570", "/resourceTemplates/0/uriTemplate"}},
		{"unclosed URI template", templates(`{"resourceTemplates":[{"name":"x","uriTemplate":"file:///{day"}]}`), nil,
			ErrInvalid, []string{"RFC 6570", "/resourceTemplates/0/uriTemplate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lists{}
			for _, src := range []lists{empty, tt.lists} {
				for m, pages := range src {
					l[m] = pages
				}
			}
			cfg := rawCatalog(l, tt.gets)
			snap, err := read(t, Limits{}, HTTPTarget{URL: serve(t, cfg).URL})
			wantErr(t, err, tt.target, tt.fragments...)
			if snap.Prompts != nil || snap.Resources != nil || snap.ResourceTemplates != nil {
				t.Fatal("a failed scan kept what it read")
			}
		})
	}
}

// TestCatalogCapabilitiesInvalid: capabilities that are not objects fail
// the scan, naming the pointer.
func TestCatalogCapabilitiesInvalid(t *testing.T) {
	for caps, ptr := range map[string]string{
		`[]`:                          "/capabilities",
		`{"prompts":true}`:            "/capabilities/prompts",
		`{"tools":{},"resources":[]}`: "/capabilities/resources",
	} {
		cfg := onePage([]byte(toolsOnly))
		cfg.Init = []byte(`{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"serverInfo":{"name":"raw","version":"0.1"}}`)
		_, err := read(t, Limits{}, HTTPTarget{URL: serve(t, cfg).URL})
		wantErr(t, err, ErrInvalid, "initialize result", ptr)
	}
}

// FuzzParseCatalog: the strict readers of list pages and prompts/get
// results never panic, and what they accept is what they were given: every
// item lies in the page as received, a merged prompt is valid JSON.
func FuzzParseCatalog(f *testing.F) {
	for _, s := range []string{
		`{"prompts":[{"name":"a","arguments":[{"name":"x","required":false}]}],"nextCursor":"c"}`,
		`{"resources":[{"uri":"file:///a","name":"a"}]}`,
		`{"resourceTemplates":[{"uriTemplate":"file:///{+path}{?q*}","name":"t"}]}`,
		`{"resourceTemplates":[{"uriTemplate":"{","name":"t"}]}`,
		`{"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		if pin.Validate(data, pin.DefaultLimits()) != nil {
			return // the recorder rejects it before any parser sees it
		}
		for _, c := range []catalog{promptsCatalog, resourcesCatalog, templatesCatalog} {
			p, err := parseCatalogPage(data, c)
			if err != nil {
				continue
			}
			for _, it := range p.items {
				if !bytes.Contains(data, it.raw) {
					t.Fatalf("item %s is not in the page", it.raw)
				}
				if c.method == methodListPrompts && !json.Valid(withMessages(it.raw, []byte(`[]`))) {
					t.Fatalf("merged prompt %s is invalid", withMessages(it.raw, []byte(`[]`)))
				}
			}
		}
		if msgs, err := parseGetPrompt(data); err == nil && !bytes.Contains(data, msgs) {
			t.Fatalf("messages %s are not in the result", msgs)
		}
	})
}
