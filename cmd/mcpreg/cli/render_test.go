package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpreg/mcpreg/internal/testkit"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func ts(s string) *timestamppb.Timestamp {
	t, _ := time.Parse(time.RFC3339, s)
	return timestamppb.New(t)
}

func sampleVersion() *mcpregv1.Version {
	return &mcpregv1.Version{
		Name: "io.github.acme/weather", Version: "1.0.0-rc.1+build", State: "quarantined",
		StateReason: "drift: description_changed", StateChangedAt: ts("2026-03-02T10:00:00Z"),
		SubmittedBy: "alice", SubmittedAt: ts("2026-03-01T09:00:00Z"), Owner: "team-weather",
		Description: "Weather for agents",
		Pins: &mcpregv1.Pins{SpecVersion: "mcpreg-pin-v1", Revision: 1,
			ToolDefinitionHash: "sha256:" + strings.Repeat("a", 64), SchemaHash: "sha256:" + strings.Repeat("b", 64),
			InstructionsHash: "sha256:" + strings.Repeat("c", 64), CreatedAt: ts("2026-03-01T09:00:00Z"), CreatedBy: "alice",
			Tools: []*mcpregv1.ToolPin{
				{Name: "create_ticket", Hash: "sha256:" + strings.Repeat("1", 64)},
				{Name: "get_weather", Hash: "sha256:" + strings.Repeat("2", 64)},
			}},
		Decisions: []*mcpregv1.Decision{
			{Action: "approve", FromState: "pending_review", ToState: "approved", Actor: "bob", Reason: "reviewed diff", CreatedAt: ts("2026-03-01T12:00:00Z")},
			{Action: "quarantine", FromState: "approved", ToState: "quarantined", Actor: "scanner", Reason: "drift", CreatedAt: ts("2026-03-02T10:00:00Z")},
		},
	}
}

func TestPrintVersionGolden(t *testing.T) {
	var out bytes.Buffer
	if err := printVersion(&out, sampleVersion()); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "testdata/version.golden", out.Bytes())
}

func TestTableNeutralisesControlCharacters(t *testing.T) {
	v := sampleVersion()
	v.Pins.Tools[0].Name = "evil\x1b[2J\ttab\nline\u009b"
	v.Description = "multi\r\nline"
	var out bytes.Buffer
	if err := printVersion(&out, v); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\r\u009b") {
		t.Fatalf("control characters reached the terminal: %q", out.String())
	}
	if !strings.Contains(out.String(), "evil\uFFFD[2J tab line\uFFFD") || !strings.Contains(out.String(), "multi  line") {
		t.Fatalf("unexpected rendering:\n%s", out.String())
	}
}

func TestJSONOutputIsTheAPIJSON(t *testing.T) {
	var out bytes.Buffer
	g := &globals{io: Streams{Out: &out}, output: "json"}
	v := sampleVersion()
	if err := g.emitVersion(v); err != nil {
		t.Fatal(err)
	}
	got := &mcpregv1.Version{}
	if err := protojson.Unmarshal(out.Bytes(), got); err != nil {
		t.Fatalf("output is not the API's JSON: %v\n%s", err, out.String())
	}
	if !proto.Equal(got, v) {
		t.Fatalf("round trip changed the version:\n%s", out.String())
	}
	for _, want := range []string{`"serverJson": ""`, `"toolDefinitionHash": "sha256:aaaa`, `"snapshot": null`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %s", want)
		}
	}
}

func TestJSONListKeepsNextPageToken(t *testing.T) {
	var out bytes.Buffer
	g := &globals{io: Streams{Out: &out}, output: "json"}
	resp := &mcpregv1.ListServersResponse{Servers: []*mcpregv1.Server{{Name: "io.github.acme/weather"}}}
	if err := g.emit(resp, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"nextPageToken": ""`) || !strings.Contains(out.String(), `"name": "io.github.acme/weather"`) {
		t.Fatalf("unexpected JSON:\n%s", out.String())
	}
}

func TestAuditVerifyOutcome(t *testing.T) {
	broken := &mcpregv1.VerifyAuditChainResponse{Ok: false, Events: 41, FirstBrokenSeq: 42, Problem: "hash mismatch"}
	var out bytes.Buffer
	if err := printVerify(&out, broken); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "BROKEN at event 42: hash mismatch") {
		t.Errorf("output %q", out.String())
	}
	err := chainError(broken)
	if !errors.Is(err, ErrChainBroken) || !strings.Contains(err.Error(), "at event 42") {
		t.Errorf("error = %v", err)
	}
	if err := chainError(&mcpregv1.VerifyAuditChainResponse{Ok: true, Events: 3}); err != nil {
		t.Errorf("ok chain: %v", err)
	}
}

func TestCollectPages(t *testing.T) {
	pages := map[string]struct {
		items []int
		next  string
	}{"": {[]int{1, 2}, "p2"}, "p2": {[]int{3}, "p3"}, "p3": {[]int{4}, ""}, "loop": {[]int{9}, "loop"}}
	fetch := func(token string) ([]int, string, error) {
		p, ok := pages[token]
		if !ok {
			return nil, "", fmt.Errorf("no page %q", token)
		}
		return p.items, p.next, nil
	}
	tests := []struct {
		name     string
		flags    pageFlags
		want     []int
		wantNext string
		wantErr  bool
	}{
		{"one page", pageFlags{}, []int{1, 2}, "p2", false},
		{"from a token", pageFlags{token: "p2"}, []int{3}, "p3", false},
		{"all", pageFlags{all: true}, []int{1, 2, 3, 4}, "", false},
		{"all from a token", pageFlags{all: true, token: "p2"}, []int{3, 4}, "", false},
		{"repeated token", pageFlags{all: true, token: "loop"}, nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, next, err := collect(&tt.flags, fetch)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v", err)
			}
			if !slicesEqual(got, tt.want) || next != tt.wantNext {
				t.Fatalf("got %v next %q; want %v %q", got, next, tt.want, tt.wantNext)
			}
		})
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMoreHint(t *testing.T) {
	var errOut bytes.Buffer
	g := &globals{io: Streams{Err: &errOut}, output: "table"}
	g.moreHint("abc")
	g.output = "json"
	g.moreHint("def")
	if errOut.String() != "more results: --page-token abc (or --all)\n" {
		t.Fatalf("stderr = %q", errOut.String())
	}
}
