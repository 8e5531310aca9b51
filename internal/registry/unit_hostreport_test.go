package registry_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/ent/scanlease"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// TestUnconfirmedHostReports: hosts report tool lists that differ from
// the pins (what a server shows real clients); the registry's own scan
// sees the approved tools, so the version stays approved and gets one
// host_report.unconfirmed_mismatch finding per reporting host, however
// many different lists that host posts.
func TestUnconfirmedHostReports(t *testing.T) {
	ctx := context.Background()
	env, live := newUnitEnv(t), &fakeReader{}
	svc := env.service(t, registry.Scanning{Reader: live})
	approve(t, svc, registry.Submission{ServerJSON: serverJSON(weather, weatherVersion)}, weather)
	live.serve(liveSnapshot(t, weatherTools, weatherInfo)) // the scanner's face: the pins

	// scans counts the version's scans and says whether one still runs.
	scans := func() (n int, running bool) {
		t.Helper()
		got, _, err := svc.Scans.ListScans(ctx, reviewer, weather, weatherVersion, registry.Page{Size: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range got {
			running = running || states.ScanOutcome(sc.GetOutcome()) == states.OutcomeRunning
		}
		return len(got), running
	}
	report := func(host, tools string) {
		t.Helper()
		before, _ := scans()
		c := &registry.Caller{Principal: host, Role: registry.RoleHost}
		out, err := svc.Scans.CheckConnection(ctx, c, registry.CheckInput{Name: weather, Tools: []byte(tools)})
		if err != nil || out.GetVerdict() != registry.VerdictDrifted || !out.GetScanRequested() {
			t.Fatalf("%s's report: %v %+v", host, err, out)
		}
		// Wait for the report's scan to end, lease handed back, not only
		// for its outcome: a report made while the last one's scan still
		// holds its lease joins that scan (scans of one version are
		// merged), and would start none of its own.
		testkit.Eventually(t, 10*time.Second, func() bool {
			n, running := scans()
			return n > before && !running && env.st.Client.ScanLease.Query().Where(scanlease.Holder("")).ExistX(ctx)
		}, "the report's scan did not run to its end")
	}
	for _, tools := range []string{forecastReworded, radarAdded, forecastReworded} {
		report("laptop", tools)
	}
	report("desk", radarAdded)

	var hosts []string
	testkit.Eventually(t, 10*time.Second, func() bool {
		v, err := svc.Review.GetVersion(ctx, reviewer, weather, weatherVersion)
		if err != nil {
			t.Fatal(err)
		}
		hosts = nil
		for _, f := range v.GetFindings() {
			if f.GetKind() == registry.KindUnconfirmedMismatch {
				hosts = append(hosts, strings.Fields(f.GetEvidence())[1])
			}
		}
		return len(hosts) >= 2
	}, "want one unconfirmed-mismatch finding per reporting host")
	if strings.Join(hosts, ",") != "laptop,desk" && strings.Join(hosts, ",") != "desk,laptop" {
		t.Errorf("findings by host %v, want laptop and desk once each", hosts)
	}
	if st := versionRow(t, env.st, weather).State; st != version.StateApproved {
		t.Errorf("after unconfirmed reports the version is %s, want approved", st)
	}
}
