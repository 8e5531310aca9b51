package registry_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/states"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
	"github.com/mcpreg/mcpreg/scan"
)

// radar is a tool the approved version does not have.
const radar = `{"name":"get_radar","description":"Get the radar image of a city.","inputSchema":{"type":"object"}}`

// Changes a live server may make to weatherTools.
var (
	forecastReworded = strings.Replace(weatherTools, "Get the forecast for a city.", "Get the 7-day forecast for a city.", 1)
	radarAdded       = withTool(weatherTools, radar)
	alertsRemoved    = `{"tools":[` + forecastTool + "]}"
	unitsAdded       = strings.Replace(weatherTools, `"city":{"type":"string"}}`, `"city":{"type":"string"},"units":{"type":"string"}}`, 1)
	titleChanged     = strings.Replace(weatherTools, `"title":"Forecast"`, `"title":"City forecast"`, 1)
	radarForAlerts   = withTool(alertsRemoved, radar)
	// The same tools in other bytes: members reordered, other spacing.
	reformatted = `{"tools":[{"description":"Get the forecast for a city.","name":"get_forecast","title":"Forecast",
  "inputSchema":{"required":["city"],"properties":{"city":{"type":"string"}},"type":"object"}},
 {"inputSchema":{"properties":{"state":{"type":"string"}},"type":"object"},"name":"get_alerts","description":"List weather alerts for a state."}]}`
)

// withTool appends a tool to a tools file ending in "]}".
func withTool(tools, tool string) string {
	return strings.TrimSuffix(tools, "]}") + ",\n " + tool + "]}"
}

// changeNames are a drift event's changes as "class(tool)".
func changeNames(ev *mcpregv1.DriftEvent) []string {
	var out []string
	for _, c := range ev.GetChanges() {
		out = append(out, c.GetClass()+"("+c.GetTool()+")")
	}
	return out
}

// TestUnitDriftClassification: a live read is compared with the approved
// pins; what changed is classified, and the default drift policy decides
// between quarantine (anything the model reads as an instruction or a
// capability) and a warning (the version stays approved and resolvable).
func TestUnitDriftClassification(t *testing.T) {
	tests := []struct {
		name, tools, serverInfo string
		want                    []string // drift changes; none: the scan matches
		action, status, state   string
	}{
		{name: "same tools", tools: weatherTools, state: "approved"},
		{name: "same tools in other bytes", tools: reformatted, state: "approved"},
		{name: "description changed", tools: forecastReworded, want: []string{"description_changed(get_forecast)"},
			action: "quarantine", status: string(states.DriftOpen), state: "quarantined"},
		{name: "tool added", tools: radarAdded, want: []string{"tool_added(get_radar)"},
			action: "quarantine", status: string(states.DriftOpen), state: "quarantined"},
		{name: "schema changed", tools: unitsAdded, want: []string{"schema_changed(get_forecast)"},
			action: "quarantine", status: string(states.DriftOpen), state: "quarantined"},
		{name: "tool removed", tools: alertsRemoved, want: []string{"tool_removed(get_alerts)"},
			action: "warn", status: string(states.DriftWarned), state: "approved"},
		{name: "title changed", tools: titleChanged, want: []string{"title_changed(get_forecast)"},
			action: "warn", status: string(states.DriftWarned), state: "approved"},
		{name: "server version bumped", tools: weatherTools, serverInfo: `{"name":"weather","version":"1.0.1"}`,
			want: []string{"server_info_changed()"}, action: "warn", status: string(states.DriftWarned), state: "approved"},
		{name: "warned and quarantining changes", tools: radarForAlerts, want: []string{"tool_removed(get_alerts)", "tool_added(get_radar)"},
			action: "quarantine", status: string(states.DriftOpen), state: "quarantined"},
	}
	// One database; each case approves and reads a server of its own.
	env := newUnitEnv(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, live := fmt.Sprintf("io.github.acme/weather-%d", i), &fakeReader{}
			svc := env.service(t, registry.Scanning{Reader: live})
			approve(t, svc, registry.Submission{ServerJSON: serverJSON(name, weatherVersion)}, name)
			info := tt.serverInfo
			if info == "" {
				info = weatherInfo
			}
			live.serve(liveSnapshot(t, tt.tools, info))
			res := scanNow(t, svc, name)
			if len(tt.want) == 0 {
				if res.GetScan().GetOutcome() != string(states.OutcomeMatch) || res.GetDriftEvent() != nil {
					t.Fatalf("outcome %q, drift %v; want a match", res.GetScan().GetOutcome(), changeNames(res.GetDriftEvent()))
				}
			} else {
				ev := res.GetDriftEvent()
				if res.GetScan().GetOutcome() != string(states.OutcomeDrift) || !slices.Equal(changeNames(ev), tt.want) {
					t.Fatalf("outcome %q, changes %v; want drift %v", res.GetScan().GetOutcome(), changeNames(ev), tt.want)
				}
				if ev.GetAction() != tt.action || ev.GetStatus() != tt.status || ev.GetScanId() != res.GetScan().GetId() {
					t.Fatalf("drift event: action %q status %q of scan %d; want %q %q of scan %d",
						ev.GetAction(), ev.GetStatus(), ev.GetScanId(), tt.action, tt.status, res.GetScan().GetId())
				}
			}
			if res.GetState() != tt.state || string(versionRow(t, env.st, name).State) != tt.state {
				t.Fatalf("state after the scan: %q (stored %q), want %q", res.GetState(), versionRow(t, env.st, name).State, tt.state)
			}
			if got, want := resolvable(t, svc, name), tt.state == "approved"; got != want {
				t.Fatalf("resolvable = %t, want %t", got, want)
			}
		})
	}
}

// TestUnitDriftQuarantine: an approved version whose server drifts is
// quarantined by the scanner at once: state, quarantine kind and the open
// drift event it names, a decision on record, and it no longer resolves.
// Scanning the same drift again adds no event.
func TestUnitDriftQuarantine(t *testing.T) {
	env, live := newUnitEnv(t), &fakeReader{}
	svc := env.service(t, registry.Scanning{Reader: live})
	approve(t, svc, registry.Submission{ServerJSON: serverJSON(weather, weatherVersion)}, weather)
	if !resolvable(t, svc, weather) {
		t.Fatal("approved version does not resolve")
	}
	env.clock.Advance(time.Hour)
	live.serve(liveSnapshot(t, forecastReworded, weatherInfo))
	res := scanNow(t, svc, weather)
	ev := res.GetDriftEvent()
	if res.GetState() != "quarantined" || ev.GetStatus() != string(states.DriftOpen) || ev.GetAction() != "quarantine" {
		t.Fatalf("after drift: state %q, event %v", res.GetState(), ev)
	}
	if targets := live.reads(); len(targets) != 1 || targets[0].(scan.HTTPTarget).URL != "https://mcp.example.com/mcp" {
		t.Fatalf("reader read %v, want the server's streamable-http remote once", targets)
	}
	v := versionRow(t, env.st, weather)
	if v.QuarantineKind != string(states.QuarantineDrift) || v.QuarantineDriftID == nil || int64(*v.QuarantineDriftID) != ev.GetId() ||
		!v.StateChangedAt.Equal(env.clock.Now()) || !strings.Contains(v.StateReason, "description_changed (get_forecast)") {
		t.Fatalf("stored version: kind %q drift %v changed %s reason %q", v.QuarantineKind, v.QuarantineDriftID, v.StateChangedAt, v.StateReason)
	}
	got, err := svc.Review.GetVersion(context.Background(), reviewer, weather, weatherVersion)
	if err != nil {
		t.Fatal(err)
	}
	last := got.GetDecisions()[len(got.GetDecisions())-1]
	if last.GetAction() != "quarantine" || last.GetActor() != "mcpreg-scanner" {
		t.Fatalf("last decision %q by %q, want quarantine by mcpreg-scanner", last.GetAction(), last.GetActor())
	}
	if resolvable(t, svc, weather) {
		t.Fatal("quarantined version still resolves")
	}
	env.clock.Advance(time.Hour)
	again := scanNow(t, svc, weather)
	if again.GetScan().GetOutcome() != string(states.OutcomeDrift) || again.GetDriftEvent().GetId() != ev.GetId() {
		t.Fatalf("the same drift again: outcome %q event %d, want drift and event %d",
			again.GetScan().GetOutcome(), again.GetDriftEvent().GetId(), ev.GetId())
	}
	if n := env.st.Client.DriftEvent.Query().CountX(context.Background()); n != 1 {
		t.Fatalf("drift events = %d, want 1", n)
	}
}
