package scan

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/pin"
)

func TestStdioSDKServer(t *testing.T) {
	snap := mustRead(t, Limits{}, stdioFixture(t, "sdk", sdkConfig{Instructions: "Use tool0 for weather."}, nil))
	checkPins(t, snap)
	if snap.ProtocolVersion != legacyVersion || !bytes.Contains(snap.ServerInfo, []byte(`"name":"fixture"`)) {
		t.Fatalf("initialize facts %q %s", snap.ProtocolVersion, snap.ServerInfo)
	}
	if snap.Instructions == nil || *snap.Instructions != "Use tool0 for weather." || !snap.InstructionsPresent {
		t.Fatalf("instructions %v present %v", snap.Instructions, snap.InstructionsPresent)
	}
	if got := toolNames(snap.Tools); !slices.Equal(got, []string{"tool0", "tool1", "tool2"}) {
		t.Fatalf("tools %v", got)
	}
	raw := string(snap.Tools.Tools[0].Raw)
	for _, want := range []string{`"icons":[{"src":"https://example.com/icon.png"`, `"_meta":{"io.example/owner":"fixtures"}`} {
		if !strings.Contains(raw, want) {
			t.Fatalf("raw tool %s lacks %s", raw, want)
		}
	}
	if snap.Lists != 2 || len(snap.Listings) != 2 || len(snap.Findings) != 0 || snap.Pages != 1 {
		t.Fatalf("lists %d listings %d findings %v pages %d", snap.Lists, len(snap.Listings), snap.Findings, snap.Pages)
	}
}

// The raw fixture sends members the SDK's mcp.Tool drops or never sends;
// the snapshot keeps every byte and pins exactly what pin.Compute pins for
// the same bytes.
func TestStdioRawBytesPreserved(t *testing.T) {
	result := testPage(t, "tools_raw.json")
	snap := mustRead(t, Limits{}, stdioFixture(t, "raw", onePage(result), nil))
	checkRawPreserved(t, snap, result)
}

func checkRawPreserved(t *testing.T, snap *Snapshot, result []byte) {
	t.Helper()
	want, err := pin.ParseToolsList(result, pin.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for i, tool := range snap.Tools.Tools {
		if !bytes.Equal(tool.Raw, want.Tools[i].Raw) {
			t.Fatalf("tool %d raw\n%s\nwant\n%s", i, tool.Raw, want.Tools[i].Raw)
		}
	}
	wantPins, err := pin.Compute(want)
	if err != nil {
		t.Fatal(err)
	}
	if !equalPins(snap.Pins, wantPins) || len(snap.Tools.Tools) != 2 {
		t.Fatalf("pins %+v\nwant %+v", snap.Pins, wantPins)
	}
	if raw := string(snap.Tools.Tools[0].Raw); !strings.Contains(raw, `"execution":{"taskSupport":"optional"}`) || strings.Contains(raw, "idempotentHint") {
		t.Fatalf("raw tool changed: %s", raw)
	}
}

func TestStdioPagination(t *testing.T) {
	snap := mustRead(t, Limits{}, stdioFixture(t, "sdk", sdkConfig{Tools: 5, PageSize: 2}, nil))
	checkPins(t, snap)
	if snap.Pages != 3 || snap.Listings[1].Pages != 3 {
		t.Fatalf("pages %d, %d; want 3", snap.Pages, snap.Listings[1].Pages)
	}
	if got := toolNames(snap.Tools); !slices.Equal(got, []string{"tool0", "tool1", "tool2", "tool3", "tool4"}) {
		t.Fatalf("tools %v", got)
	}
}

func TestStdioBaitAndSwitch(t *testing.T) {
	snap := mustRead(t, Limits{Lists: 3}, stdioFixture(t, "sdk", sdkConfig{Bait: true}, nil))
	if len(snap.Listings) != 3 || snap.Listings[0].Pins.ToolDefinitionHash == snap.Listings[1].Pins.ToolDefinitionHash {
		t.Fatalf("listings %+v", snap.Listings)
	}
	if snap.Listings[0].Pins.SchemaHash != snap.Listings[1].Pins.SchemaHash {
		t.Fatal("a description change moved the schema hash")
	}
	// The SDK fixture speaks both protocol versions, and each reading
	// starts it anew: two differing listings in each reading, and no
	// variance between the readings (both first listings are the bait).
	if len(snap.Readings) != 2 || len(snap.Findings) != 4 || slices.ContainsFunc(snap.Findings, func(f finding.Finding) bool { return f.Kind == KindProtocolVariance }) {
		t.Fatalf("findings %+v; want one per differing listing of each reading", snap.Findings)
	}
	f := snap.Findings[0]
	if f.Kind != KindListInconsistent || f.Severity != finding.High || f.Tool != "tool0" || !strings.Contains(f.Evidence, `changed: ["tool0"]`) {
		t.Fatalf("finding %+v", f)
	}
	if !strings.Contains(string(snap.Listings[1].ToolsFile), "<IMPORTANT>") || strings.Contains(string(snap.ToolsFile), "<IMPORTANT>") {
		t.Fatal("listings do not show both snapshots")
	}
}

func TestStdioInstructions(t *testing.T) {
	text := "Be brief."
	tests := []struct {
		name    string
		member  string // the instructions member of the initialize result
		want    *string
		present bool
	}{
		{"absent", ``, nil, false},
		{"empty string", `,"instructions":""`, new(""), true},
		{"text", `,"instructions":"Be brief."`, &text, true},
		{"null", `,"instructions":null`, nil, true},
	}
	hashes := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := onePage([]byte(`{"tools":[]}`))
			cfg.Init = []byte(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"raw","version":"0"}` + tt.member + `}`)
			snap := mustRead(t, Limits{}, stdioFixture(t, "raw", cfg, nil))
			if (snap.Instructions == nil) != (tt.want == nil) || (tt.want != nil && *snap.Instructions != *tt.want) || snap.InstructionsPresent != tt.present {
				t.Fatalf("instructions %v present %v", snap.Instructions, snap.InstructionsPresent)
			}
			if want := pin.InstructionsHash(tt.want); snap.Pins.InstructionsHash != want {
				t.Fatalf("instructions hash %s; want %s", snap.Pins.InstructionsHash, want)
			}
			checkPins(t, snap)
			hashes[tt.name] = snap.Pins.InstructionsHash
		})
	}
	if hashes["absent"] == hashes["empty string"] || hashes["absent"] != hashes["null"] {
		t.Fatalf("absent, \"\" and null hashes: %v", hashes)
	}
}

func TestStdioNeverAnswers(t *testing.T) {
	snap, err := read(t, Limits{Deadline: 500 * time.Millisecond}, stdioFixture(t, "raw", rawConfig{Silent: true}, nil))
	wantErr(t, err, ErrTimeout, "initialize", "500ms") // server/discover unanswered, then initialize
	if snap == nil || snap.Tools != nil {
		t.Fatalf("snapshot on error: %+v", snap)
	}
}
