package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/pin"
)

// listed is what a test reads of a prompt or resource.
type listed struct {
	Name        string          `json:"name"`
	URI         string          `json:"uri"`
	URITemplate string          `json:"uriTemplate"`
	Messages    json.RawMessage `json:"messages"`
}

func readListed(t *testing.T, raws []json.RawMessage) []listed {
	t.Helper()
	out := make([]listed, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			t.Fatalf("item %d %s: %v", i, raw, err)
		}
	}
	return out
}

// TestCatalogBothProtocolVersions: prompts, resources and templates are
// read over every page under each protocol version, to the same raw
// bytes; prompts/get is called twice per prompt without required
// arguments and never for the others; the model file joins them to the
// tools file, byte for byte.
func TestCatalogBothProtocolVersions(t *testing.T) {
	calls := &callCounter{}
	h := versionedHandler(versionedConfig{catalog: &catalogConfig{}, calls: calls, pageSize: 2})
	snap := mustRead(t, Limits{}, HTTPTarget{URL: serve(t, h).URL})
	if len(snap.Readings) != 2 || len(snap.Findings) != 0 {
		t.Fatalf("readings %d, findings %+v", len(snap.Readings), snap.Findings)
	}
	a, b := snap.Readings[0], snap.Readings[1]
	for _, c := range []struct {
		what   string
		ra, rb []json.RawMessage
		n      int
	}{{"prompts", a.Prompts, b.Prompts, 3}, {"resources", a.Resources, b.Resources, 2}, {"templates", a.ResourceTemplates, b.ResourceTemplates, 1}} {
		if len(c.ra) != c.n || !slices.EqualFunc(c.ra, c.rb, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) }) {
			t.Errorf("%s: %d read; %s and %s differ:\n%s\n%s", c.what, len(c.ra), a.ProtocolVersion, b.ProtocolVersion, c.ra, c.rb)
		}
	}
	withMessages := map[string]bool{}
	for _, p := range readListed(t, snap.Prompts) {
		withMessages[p.Name] = p.Messages != nil
	}
	if want := map[string]bool{"greet": true, "tone": true, "summarize": false}; !mapsEqual(withMessages, want) {
		t.Errorf("prompts with messages %v, want %v", withMessages, want)
	}
	for key, want := range map[string]int{
		"prompts/get greet": 4, "prompts/get tone": 4, "prompts/get summarize": 0,
		"prompts/list": 4, "resources/list": 2, "resources/templates/list": 2,
	} {
		if got := calls.count(key); got != want {
			t.Errorf("%s: %d calls, want %d (two readings)", key, got, want)
		}
	}
	checkModelFile(t, snap)
}

// checkModelFile checks that snap.ModelFile is its tools file with the
// raw prompts, resources and templates added, a tools file package pin
// reads, whose tool pins are the snapshot's.
func checkModelFile(t *testing.T, snap *Snapshot) {
	t.Helper()
	want := bytes.TrimSuffix(bytes.Clone(snap.ToolsFile), []byte("}"))
	for _, m := range []struct {
		name  string
		items []json.RawMessage
	}{{"prompts", snap.Prompts}, {"resources", snap.Resources}, {"resourceTemplates", snap.ResourceTemplates}} {
		if len(m.items) > 0 {
			want = append(want, `,"`+m.name+`":[`...)
			want = append(append(want, bytes.Join(toBytes(m.items), []byte(","))...), ']')
		}
	}
	want = append(want, '}')
	got := snap.ModelFile()
	if !bytes.Equal(got, want) {
		t.Fatalf("model file\n%s\nwant\n%s", got, want)
	}
	list, err := pin.ParseToolsList(got, pin.DefaultLimits())
	if err != nil {
		t.Fatalf("model file: %v", err)
	}
	if pins, err := pin.Compute(list); err != nil || !equalPins(pins, snap.Pins) {
		t.Fatalf("the model file pins %+v (%v), the tools file %+v", pins, err, snap.Pins)
	}
}

func toBytes(items []json.RawMessage) [][]byte {
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}

func mapsEqual[K, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestCatalogStdio: an SDK server over stdio serves the same prompts and
// resources, to the byte, as over HTTP.
func TestCatalogStdio(t *testing.T) {
	cfg := sdkConfig{Catalog: &catalogConfig{}, PageSize: 1}
	stdio := mustRead(t, Limits{}, stdioFixture(t, "sdk", cfg, nil))
	http := mustRead(t, Limits{}, HTTPTarget{URL: sdkHTTP(t, cfg, true).URL})
	if len(stdio.Prompts) != 3 || len(stdio.Resources) != 2 || len(stdio.ResourceTemplates) != 1 {
		t.Fatalf("stdio read %d prompts, %d resources, %d templates", len(stdio.Prompts), len(stdio.Resources), len(stdio.ResourceTemplates))
	}
	if !bytes.Equal(stdio.ModelFile(), http.ModelFile()) {
		t.Fatalf("stdio\n%s\nHTTP\n%s", stdio.ModelFile(), http.ModelFile())
	}
	checkModelFile(t, stdio)
}

// TestCatalogRawBytes: prompts (over two pages) and resources are kept as
// the server sent them (spacing, member order); a prompt's messages are
// added as sent.
func TestCatalogRawBytes(t *testing.T) {
	prompt := `{"name":"greet",  "description":"Say hi" }`
	withArgs := `{ "arguments":[{"name":"x","required":true}],"name":"ask"}`
	odd := `{"name":"odd","arguments":[null,{"name":"x","required":null}]}` // not required (pin-v2 rule 3)
	resource := `{"uri":"file:///a.txt" , "name":"a","_meta":{"z":1,"a":2}}`
	messages := `[ {"role":"user","content":{"type":"text","text":"Hi\u0021"}} ]`
	cfg := rawCatalog(map[string]map[string]string{
		"prompts/list":             {"": `{"prompts":[` + prompt + `,` + withArgs + `],"nextCursor":"2"}`, "2": `{"prompts":[` + odd + `]}`},
		"resources/list":           {"": `{"resources":[` + resource + `]}`},
		"resources/templates/list": {"": `{"resourceTemplates":[]}`},
	}, map[string]string{"greet": `{"description":"d","messages":` + messages + `}`, "odd": greetResult})
	for name, target := range map[string]Target{
		"stdio": stdioFixture(t, "raw", cfg, nil),
		"http":  HTTPTarget{URL: serve(t, cfg).URL},
	} {
		t.Run(name, func(t *testing.T) {
			snap := mustRead(t, Limits{}, target)
			want := []string{`{"name":"greet",  "description":"Say hi" ,"messages":` + messages + `}`, withArgs,
				strings.TrimSuffix(odd, "}") + `,"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}]}`}
			if got := rawStrings(snap.Prompts); !slices.Equal(got, want) {
				t.Errorf("prompts\n%q\nwant\n%q", got, want)
			}
			if got := rawStrings(snap.Resources); !slices.Equal(got, []string{resource}) || snap.ResourceTemplates == nil || len(snap.ResourceTemplates) != 0 {
				t.Errorf("resources %q, templates %q", got, snap.ResourceTemplates)
			}
			checkModelFile(t, snap)
		})
	}
}

func rawStrings(items []json.RawMessage) []string {
	var out []string
	for _, it := range items {
		out = append(out, string(it))
	}
	return out
}

// TestCatalogNotAdvertised: a server is asked for prompts and resources
// only when its capabilities advertise them.
func TestCatalogNotAdvertised(t *testing.T) {
	lists := map[string]map[string]string{
		"prompts/list":             {"": `{"prompts":[{"name":"greet"}]}`},
		"resources/list":           {"": `{"resources":[{"uri":"file:///a","name":"a"}]}`},
		"resources/templates/list": {"": `{"resourceTemplates":[]}`},
	}
	for _, c := range []struct {
		name     string
		caps     string
		asked    []string
		notAsked []string
	}{
		{"neither", `{"tools":{}}`, nil, []string{"prompts/list", "prompts/get", "resources/list", "resources/templates/list"}},
		{"null", `{"tools":{},"prompts":null,"resources":null}`, nil, []string{"prompts/list", "resources/list"}},
		{"prompts", `{"tools":{},"prompts":{"listChanged":true}}`, []string{"prompts/list", "prompts/get"}, []string{"resources/list", "resources/templates/list"}},
		{"resources", `{"tools":{},"resources":{}}`, []string{"resources/list", "resources/templates/list"}, []string{"prompts/list", "prompts/get"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := rawCatalog(lists, map[string]string{"greet": greetResult})
			cfg.Init = []byte(`{"protocolVersion":"2025-11-25","capabilities":` + c.caps + `,"serverInfo":{"name":"raw","version":"0.1"}}`)
			calls := &callCounter{}
			snap := mustRead(t, Limits{}, HTTPTarget{URL: serve(t, counted(cfg, calls)).URL})
			for _, m := range c.asked {
				if calls.count(m) == 0 {
					t.Errorf("%s was not asked", m)
				}
			}
			for _, m := range c.notAsked {
				if n := calls.count(m); n != 0 {
					t.Errorf("%s was asked %d times", m, n)
				}
			}
			if (snap.Prompts != nil) != slices.Contains(c.asked, "prompts/list") || (snap.Resources != nil) != slices.Contains(c.asked, "resources/list") {
				t.Errorf("prompts %s, resources %s", snap.Prompts, snap.Resources)
			}
		})
	}
}

// TestPromptInconsistent: a prompt whose messages change between the two
// prompts/get reads is a high finding naming it; the messages kept are
// the first read's.
func TestPromptInconsistent(t *testing.T) {
	h := versionedHandler(versionedConfig{versions: []string{"2025-11-25"}, catalog: &catalogConfig{Drift: true}})
	snap := mustRead(t, Limits{}, HTTPTarget{URL: serve(t, h).URL})
	if len(snap.Findings) != 1 {
		t.Fatalf("findings %+v", snap.Findings)
	}
	f := snap.Findings[0]
	t.Logf("finding %+v", f)
	if f.Kind != KindPromptInconsistent || f.Severity != finding.High || !strings.Contains(f.Message, `"greet"`) ||
		!strings.Contains(f.Evidence, "id_rsa") || !strings.Contains(f.Evidence, `prompt "greet"`) {
		t.Errorf("finding %+v", f)
	}
	for _, p := range readListed(t, snap.Prompts) {
		if p.Name == "greet" && (!strings.Contains(string(p.Messages), greetText) || strings.Contains(string(p.Messages), "id_rsa")) {
			t.Errorf("greet kept %s, want the first read's messages", p.Messages)
		}
	}
}

// TestCatalogProtocolVariance: a server that lists another prompt and
// another resource under 2026-07-28 than under 2025-11-25 has a high
// scan.protocol_variance finding for each, naming what was added.
func TestCatalogProtocolVariance(t *testing.T) {
	h := versionedHandler(versionedConfig{catalog: &catalogConfig{Variant: true}})
	snap := mustRead(t, Limits{}, HTTPTarget{URL: serve(t, h).URL})
	if len(snap.Findings) != 2 {
		t.Fatalf("findings %+v", snap.Findings)
	}
	for i, want := range []struct{ what, evidence string }{
		{"the prompts differ", `added: ["exfiltrate"]`},
		{"the resources differ", `added: ["file:///etc/shadow"]`},
	} {
		f := snap.Findings[i]
		t.Logf("finding %+v", f)
		if f.Kind != KindProtocolVariance || f.Severity != finding.High || !strings.Contains(f.Message, want.what) ||
			f.Evidence != want.evidence || !strings.Contains(f.Message, "2025-11-25") || !strings.Contains(f.Message, "2026-07-28") {
			t.Errorf("finding %d %+v, want %q with evidence %q", i, f, want.what, want.evidence)
		}
	}
	if names := readListed(t, snap.Prompts); slices.ContainsFunc(names, func(p listed) bool { return p.Name == "exfiltrate" }) {
		t.Errorf("primary prompts %+v: the 2025-11-25 reading's", names)
	}
}

// TestCatalogVarianceIgnoresOrder: the same prompts in another order, with
// members in another order, other escapes or other unpinned members
// (_meta, icons), are no variance; a changed description is.
func TestCatalogVarianceIgnoresOrder(t *testing.T) {
	a := Reading{ProtocolVersion: "2025-11-25", Prompts: []json.RawMessage{
		json.RawMessage(`{"name":"a","description":"x"}`), json.RawMessage(`{"name":"b"}`)}}
	b := Reading{ProtocolVersion: "2026-07-28", Prompts: []json.RawMessage{
		json.RawMessage(`{"name":"b","_meta":{"io.example/v":2},"icons":[]}`), json.RawMessage(`{"description":"\u0078","name":"a"}`)}}
	if fs := catalogVariance(a, b); len(fs) != 0 {
		t.Errorf("findings %+v", fs)
	}
	b.Prompts[1] = json.RawMessage(`{"description":"y","name":"a"}`)
	if fs := catalogVariance(a, b); len(fs) != 1 || fs[0].Evidence != `changed: ["a"]` {
		t.Errorf("findings %+v", fs)
	}
}

// TestRequiresArguments follows rule 3 of mcpreg-pin-v2: only an object
// argument with "required": true makes a prompt take arguments.
func TestRequiresArguments(t *testing.T) {
	for args, want := range map[string]bool{
		`[{"name":"x","required":true}]`:                   true,
		`[{"name":"x"},{"name":"y","\u0072equired":true}]`: true,
		`[{"name":"x","required":false}]`:                  false,
		`[{"name":"x","required":"true"}]`:                 false,
		`[{"name":"x","required":1}]`:                      false,
		`[{"name":"x","required":null}]`:                   false,
		`[true,"required",[{"required":true}]]`:            false,
		`{"x":{"required":true}}`:                          false,
		`null`:                                             false,
		``:                                                 false,
	} {
		if got := requiresArguments(jsontext.Value(args)); got != want {
			t.Errorf("arguments %s: required %v, want %v", args, got, want)
		}
	}
}

// TestFirstDifference: the evidence shows where two reads part, whole
// characters only, with hidden characters made visible.
func TestFirstDifference(t *testing.T) {
	a := []byte(`[{"text":"` + strings.Repeat("é", 40) + `Say hello."}]`)
	b := []byte(`[{"text":"` + strings.Repeat("é", 40) + "Say hello.\u200b\"}]")
	got := firstDifference(a, b)
	t.Log(got)
	if !utf8.ValidString(got) || !strings.Contains(got, "at byte 100 ") || !strings.Contains(got, "first read …éé") ||
		!strings.Contains(got, "Say hello.⟦U+200B⟧") {
		t.Errorf("evidence %q", got)
	}
}

// TestGetPromptNullMessages: a prompts/get result with "messages": null
// (what the Go SDK writes for a handler that returns none) is read as no
// messages; without the member, or with another value, it is refused.
func TestGetPromptNullMessages(t *testing.T) {
	if got, err := parseGetPrompt([]byte(`{"description":"d","messages":null}`)); err != nil || string(got) != "[]" {
		t.Errorf("null messages: %s, %v; want []", got, err)
	}
	for _, bad := range []string{`{"description":"d"}`, `{"messages":"hi"}`} {
		if _, err := parseGetPrompt([]byte(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", bad, err)
		}
	}
}
