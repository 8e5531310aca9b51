package registry_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/ent"
	entscan "github.com/mcpreg/mcpreg/internal/ent/scan"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/states"
)

// TestUnitLeaseTakeover: two replicas on one database. Replica a starts a
// scan and stops renewing its lease (it died). Until the lease expires,
// replica b leaves the version to a, on its schedule and on demand alike;
// after, b takes the lease over, marks a's scan abandoned, scans again and
// hands the lease back.
func TestUnitLeaseTakeover(t *testing.T) {
	for _, trigger := range []states.ScanTrigger{states.TriggerSchedule, states.TriggerManual} {
		t.Run(string(trigger), func(t *testing.T) {
			ctx := context.Background()
			env, liveB := newUnitEnv(t), &fakeReader{}
			a := env.service(t, registry.Scanning{Reader: &fakeReader{}, Replica: "replica-a"})
			b := env.service(t, registry.Scanning{Reader: liveB, Replica: "replica-b", Interval: time.Hour})
			approve(t, a, registry.Submission{ServerJSON: serverJSON(weather, weatherVersion)}, weather)
			liveB.serve(liveSnapshot(t, weatherTools, weatherInfo))
			stalled, err := a.Scans.StallScan(ctx, weather, weatherVersion)
			if err != nil {
				t.Fatal(err)
			}

			env.clock.Advance(registry.DefaultLeaseTTL - time.Second)
			if trigger == states.TriggerSchedule {
				if err := b.Scans.ScheduleRound(ctx); err != nil {
					t.Fatal(err)
				}
			} else if holder, err := b.Scans.LeaseHolder(ctx, weather, weatherVersion); err != nil || holder != "replica-a" {
				t.Fatalf("before expiry the lease holder is %q (%v), want replica-a", holder, err)
			}
			if n := len(liveB.reads()); n != 0 {
				t.Fatalf("before expiry replica b read the server %d times", n)
			}
			if sc := env.st.Client.Scan.GetX(ctx, stalled); sc.Outcome != string(states.OutcomeRunning) {
				t.Fatalf("before expiry a's scan is %q, want running", sc.Outcome)
			}

			env.clock.Advance(2 * time.Second)
			if trigger == states.TriggerSchedule {
				if err := b.Scans.ScheduleRound(ctx); err != nil {
					t.Fatal(err)
				}
			} else {
				scanNow(t, b, weather)
			}
			if n := len(liveB.reads()); n != 1 {
				t.Fatalf("after expiry replica b read the server %d times, want once", n)
			}
			old := env.st.Client.Scan.GetX(ctx, stalled)
			if old.Outcome != string(states.OutcomeError) || old.ErrorKind != string(states.ErrorKindAbandoned) || old.FinishedAt == nil || !old.FinishedAt.Equal(env.clock.Now()) ||
				!strings.Contains(old.Error, "replica replica-a stopped renewing") || !strings.Contains(old.Error, "replica replica-b scans the version again") {
				t.Fatalf("a's scan after the takeover: %s/%s at %v: %s", old.Outcome, old.ErrorKind, old.FinishedAt, old.Error)
			}
			last := env.st.Client.Scan.Query().Order(ent.Desc(entscan.FieldID)).FirstX(ctx)
			if last.ID == stalled || last.Replica != "replica-b" || last.Trigger != string(trigger) || last.Outcome != string(states.OutcomeMatch) {
				t.Fatalf("scan after the takeover: %d by %s (%s): %s", last.ID, last.Replica, last.Trigger, last.Outcome)
			}
			if l := env.st.Client.ScanLease.Query().OnlyX(ctx); l.Holder != "" || l.ScanID != nil {
				t.Fatalf("lease after b's scan: held by %q for scan %v, want handed back", l.Holder, l.ScanID)
			}
		})
	}
}
