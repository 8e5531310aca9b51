package scan

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/pin"
)

// read scans t with lim and no allow-list entries but loopback.
func read(tb testing.TB, lim Limits, t Target) (*Snapshot, error) {
	tb.Helper()
	allow, err := ParseAllowList("127.0.0.0/8,::1")
	if err != nil {
		tb.Fatal(err)
	}
	r, err := NewReader(lim, allow)
	if err != nil {
		tb.Fatal(err)
	}
	return r.Read(context.Background(), t)
}

// mustRead scans t and fails the test on error.
func mustRead(tb testing.TB, lim Limits, t Target) *Snapshot {
	tb.Helper()
	snap, err := read(tb, lim, t)
	if err != nil {
		tb.Fatalf("scan: %v\nstderr: %s", err, snap.Stderr)
	}
	return snap
}

// wantErr checks that err matches target and mentions every fragment.
func wantErr(tb testing.TB, err, target error, fragments ...string) {
	tb.Helper()
	tb.Logf("error: %v", err)
	if !errors.Is(err, target) {
		tb.Fatalf("error %v; want %v", err, target)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			tb.Fatalf("error %q does not mention %q", err, f)
		}
	}
}

// checkPins verifies the snapshot's pins against pin.Compute of its tools
// file, and of want when given (a tools file of the same raw tools).
func checkPins(tb testing.TB, snap *Snapshot) {
	tb.Helper()
	list, err := pin.ParseToolsList(snap.ToolsFile, pin.DefaultLimits())
	if err != nil {
		tb.Fatal(err)
	}
	want, err := pin.Compute(list)
	if err != nil {
		tb.Fatal(err)
	}
	if !equalPins(snap.Pins, want) {
		tb.Fatalf("pins %+v\nwant %+v", snap.Pins, want)
	}
	if len(snap.Tools.Tools) != len(list.Tools) {
		tb.Fatalf("%d tools, tools file has %d", len(snap.Tools.Tools), len(list.Tools))
	}
}

func equalPins(a, b pin.Pins) bool {
	if a.ToolDefinitionHash != b.ToolDefinitionHash || a.SchemaHash != b.SchemaHash ||
		a.InstructionsHash != b.InstructionsHash || len(a.Tools) != len(b.Tools) {
		return false
	}
	for i := range a.Tools {
		if a.Tools[i] != b.Tools[i] {
			return false
		}
	}
	return true
}

func toolNames(l *pin.ToolsList) []string {
	var names []string
	for _, t := range l.Tools {
		names = append(names, t.Name)
	}
	return names
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
