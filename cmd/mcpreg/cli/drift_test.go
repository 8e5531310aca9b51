package cli

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/states"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Every rejection here happens before a call: the service is unreachable,
// so a call would fail with a connection error instead.
func TestScanAndDriftArgumentValidation(t *testing.T) {
	env := map[string]string{EnvServer: unreachable, EnvToken: "mcpreg_x"}
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"accept without reason", []string{"drift", "accept", "4"}, "--reason is required"},
		{"decline blank reason", []string{"drift", "decline", "4", "--reason", "  "}, "--reason is required"},
		{"accept bad id", []string{"drift", "accept", "abc", "--reason", "ok"}, `drift event id "abc"`},
		{"decline zero id", []string{"drift", "decline", "0", "--reason", "ok"}, `drift event id "0"`},
		{"accept two ids", []string{"drift", "accept", "1", "2", "--reason", "ok"}, "accepts 1 arg(s)"},
		{"list bad status", []string{"drift", "list", "--status", "closed"}, `--status "closed": want one of open, accepted, declined, warned, resolved`},
		{"list too many args", []string{"drift", "list", "a/b", "1", "x"}, "accepts at most 2 arg(s)"},
		{"list negative page size", []string{"scans", "list", "a/b", "1", "--page-size", "-1"}, "--page-size -1"},
		{"scan one arg", []string{"scan", "io.github.acme/weather"}, "accepts 2 arg(s)"},
		{"scan bad name", []string{"scan", "weather", "1.0.0"}, "want NAMESPACE/NAME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, env, "", tt.args...)
			if r.err == nil || !strings.Contains(r.err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", r.err, tt.wantErr)
			}
		})
	}
}

// fakeService answers every request with body and remembers the last path.
func fakeService(t *testing.T, body string) (url string, last func() string) {
	t.Helper()
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		path = r.Method + " " + r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() string { return path }
}

const driftResult = `{"scan":{"id":"9","name":"io.github.acme/weather","version":"1.0.0","trigger":"manual","outcome":"drift",
 "toolDefinitionHash":"sha256:new","driftEventId":"3"},
 "driftEvent":{"id":"3","name":"io.github.acme/weather","version":"1.0.0","scanId":"9","pinRevision":1,"action":"quarantine","status":"open",
  "changes":[{"class":"description_changed","severity":"high","action":"quarantine","tool":"get_forecast","pointer":"/description",
    "message":"description changed","words":[{"op":"equal","text":"Get the "},{"op":"delete","text":"forecast"},{"op":"insert","text":"weather\nnow"}]},
   {"class":"schema_changed","severity":"medium","action":"warn","tool":"get_forecast","pointer":"/inputSchema",
    "schema":[{"pointer":"/properties/days","op":"added","after":"{\"type\":\"integer\"}"},
              {"pointer":"/properties/city/type","op":"changed","before":"\"string\"","after":"\"number\""}]}]},
 "state":"quarantined"}`

// Drift is a result: the command succeeds and prints every change.
func TestScanDriftIsNotAFailure(t *testing.T) {
	url, last := fakeService(t, driftResult)
	r := execute(t, map[string]string{EnvServer: url, EnvToken: "mcpreg_x"}, "", "scan", "io.github.acme/weather", "1.0.0")
	if r.err != nil {
		t.Fatalf("scan with drift failed: %v\n%s", r.err, r.out)
	}
	if got := last(); got != "POST /v1/servers/io.github.acme/weather/versions/1.0.0/scan" {
		t.Errorf("request %s", got)
	}
	for _, want := range []string{
		"Outcome:", "drift", "sha256:new", "Version state:  quarantined",
		"high  description_changed  quarantine  get_forecast /description",
		"Get the [-forecast-]{+weather now+}",
		"added /properties/days - → {\"type\":\"integer\"}",
		"changed /properties/city/type \"string\" → \"number\"",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}
}

func TestScanErrorOutcomeFails(t *testing.T) {
	url, _ := fakeService(t, `{"scan":{"id":"10","name":"io.github.acme/weather","version":"1.0.0","outcome":"error",
		"error":"dial tcp 127.0.0.1:9: connection refused","errorKind":"protocol"},"state":"approved"}`)
	for _, output := range []string{"table", "json"} {
		r := execute(t, map[string]string{EnvServer: url, EnvToken: "mcpreg_x"}, "", "scan", "io.github.acme/weather", "1.0.0", "-o", output)
		if !errors.Is(r.err, errScanFailed) || !strings.Contains(r.err.Error(), "connection refused") {
			t.Fatalf("%s: error = %v, want errScanFailed with the cause", output, r.err)
		}
		if !strings.Contains(r.out, "connection refused") {
			t.Errorf("%s: the failed scan was not printed:\n%s", output, r.out)
		}
	}
}

func TestScanJSONIsTheAPIResult(t *testing.T) {
	url, _ := fakeService(t, driftResult)
	r := execute(t, map[string]string{EnvServer: url, EnvToken: "mcpreg_x"}, "", "scan", "io.github.acme/weather", "1.0.0", "-o", "json")
	if r.err != nil {
		t.Fatal(r.err)
	}
	var res struct {
		Scan       struct{ Outcome string }
		DriftEvent struct {
			ID      string `json:"id"`
			Changes []struct{ Class string }
		}
		State string
	}
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	if res.Scan.Outcome != string(states.OutcomeDrift) || res.DriftEvent.ID != "3" || len(res.DriftEvent.Changes) != 2 || res.State != "quarantined" {
		t.Fatalf("decoded %+v", res)
	}
}

func TestDriftDecisionPaths(t *testing.T) {
	for _, decision := range []string{"accept", "decline"} {
		url, last := fakeService(t, `{"name":"io.github.acme/weather","version":"1.0.0","state":"approved"}`)
		r := execute(t, map[string]string{EnvServer: url, EnvToken: "mcpreg_x"}, "", "drift", decision, "17", "--reason", "reviewed")
		if r.err != nil {
			t.Fatalf("%s: %v", decision, r.err)
		}
		if got := last(); got != "POST /v1/drift-events/17/"+decision {
			t.Errorf("%s: request %s", decision, got)
		}
	}
}

func TestChangeDetail(t *testing.T) {
	long := strings.Repeat("x", maxValueRunes+10)
	tests := []struct {
		name   string
		change *mcpregv1.DriftChange
		want   []string
	}{
		{"words", &mcpregv1.DriftChange{Words: []*mcpregv1.DiffSegment{{Op: "delete", Text: "old"}, {Op: "insert", Text: "new"}, {Op: "equal", Text: " text"}}},
			[]string{"[-old-]{+new+} text"}},
		{"schema and annotations", &mcpregv1.DriftChange{
			Schema:      []*mcpregv1.JsonChange{{Op: "removed", Pointer: "/required/0", Before: `"city"`}},
			Annotations: []*mcpregv1.JsonChange{{Op: "changed", Pointer: "destructiveHint", Before: "false", After: "true"}}},
			[]string{`removed /required/0 "city" → -`, "changed destructiveHint false → true"}},
		{"values only", &mcpregv1.DriftChange{Before: "Weather", After: "Weather\tPro"}, []string{"Weather → Weather Pro"}},
		{"long value clipped", &mcpregv1.DriftChange{After: long}, []string{"- → " + long[:maxValueRunes] + "…"}},
		{"nothing to show", &mcpregv1.DriftChange{Class: string(diffreview.ClassToolRemoved)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := changeDetail(tt.change)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || len(got) != len(tt.want) {
				t.Fatalf("changeDetail = %q, want %q", got, tt.want)
			}
		})
	}
}
