package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/daemon"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/scan"
	"github.com/mcpreg/mcpreg/internal/ent/scanlease"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// slowFixture serves one MCP server whose every POST takes delay, so a
// scan lasts a few delays: long enough for replicas to collide.
func slowFixture(t *testing.T, delay time.Duration) string {
	ts := httptest.NewServer(daemon.Fleet(1, delay))
	t.Cleanup(ts.Close)
	return ts.URL + "/s/0"
}

// replicas starts n services named r0, r1, ... on one database.
func replicas(t *testing.T, dialect string, n int, mutate func(*config.Config)) []*servertest.Instance {
	dsn := storetest.DSN(t, dialect)
	var out []*servertest.Instance
	for i := range n {
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		out = append(out, servertest.StartOn(t, st, func(c *config.Config) {
			c.Replica, c.ScanLeaseTTL = fmt.Sprintf("r%d", i), time.Second
			if mutate != nil {
				mutate(c)
			}
		}))
	}
	return out
}

// TestScanLeasesAcrossReplicas: on-demand scans of one version asked of
// two replicas at once read the server once (the second replica waits for
// the first one's scan and answers with it), and a lease left by a replica
// that died is taken over: its scan is marked abandoned and scanned again.
func TestScanLeasesAcrossReplicas(t *testing.T) {
	for _, dialect := range storetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			// Each scan takes 500 ms, so the four requests of a round land
			// while the first one's scan runs even on a loaded machine
			// (at 150 ms a loaded CI spread them past it now and then).
			url := slowFixture(t, 500*time.Millisecond)
			rs := replicas(t, dialect, 2, nil)
			owner := rs[0].Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
			alice := rs[1].Token(t, "alice", registry.RoleReviewer)
			if r := call(t, "POST", rs[0].URL+"/v1/versions", owner, map[string]any{"serverJson": liveServerJSON("io.github.acme/slow", url), "live": true}); r.Status != 200 {
				t.Fatalf("live submit: %d %s", r.Status, r.Body)
			}
			path := "/v1/servers/io.github.acme/slow/versions/1.0.0"
			if r := call(t, "POST", rs[1].URL+path+"/approve", alice, map[string]any{"reason": "ok"}); r.Status != 200 {
				t.Fatalf("approve: %d %s", r.Status, r.Body)
			}
			ctx := t.Context()
			st := rs[0].Store.Client

			for round := range 3 {
				ids := make([]any, 4)
				var wg sync.WaitGroup
				for i := range ids {
					wg.Go(func() {
						r := call(t, "POST", rs[i%2].URL+path+"/scan", alice, map[string]any{})
						if r.Status != 200 {
							t.Errorf("scan on r%d: %d %s", i%2, r.Status, r.Body)
							return
						}
						ids[i] = r.json(t)["scan"].(map[string]any)["id"]
					})
				}
				wg.Wait()
				for i := range ids {
					if ids[i] != ids[0] {
						t.Fatalf("round %d: four requests at once got scans %v, want one scan for all", round, ids)
					}
				}
			}
			if n := st.Scan.Query().Where(scan.Trigger(string(states.TriggerManual))).CountX(ctx); n != 3 {
				t.Fatalf("%d manual scans recorded for 3 rounds of simultaneous requests, want 3", n)
			}

			// A replica "gone" scanned the version and died: its lease
			// expired a moment ago.
			v := st.Scan.Query().FirstX(ctx).VersionID
			dead := st.Scan.Create().SetVersionID(v).SetTrigger(string(states.TriggerSchedule)).SetReplica("gone").
				SetStartedAt(time.Now().Add(-time.Minute)).SaveX(ctx)
			st.ScanLease.Update().Where(scanlease.VersionID(v)).SetHolder("gone#1").
				SetExpiresAt(time.Now().Add(-time.Millisecond)).SetScanID(dead.ID).ExecX(ctx)
			r := call(t, "POST", rs[1].URL+path+"/scan", alice, map[string]any{})
			if r.Status != 200 {
				t.Fatalf("scan after the holder died: %d %s", r.Status, r.Body)
			}
			got := r.json(t)["scan"].(map[string]any)
			if got["replica"] != "r1" || got["outcome"] != string(states.OutcomeMatch) {
				t.Fatalf("takeover scan: %v", got)
			}
			was := st.Scan.GetX(ctx, dead.ID)
			if was.Outcome != string(states.OutcomeError) || was.ErrorKind != string(states.ErrorKindAbandoned) || !strings.Contains(was.Error, "replica gone stopped renewing") || was.FinishedAt == nil {
				t.Fatalf("the dead replica's scan: outcome %q kind %q error %q", was.Outcome, was.ErrorKind, was.Error)
			}
			l := st.ScanLease.Query().Where(scanlease.VersionID(v)).OnlyX(ctx)
			if l.Holder != "" || l.ScanID != nil {
				t.Fatalf("lease not handed back after the scan: %+v", l)
			}
			m := call(t, "GET", rs[1].Metrics+"/metrics", "", nil)
			if !strings.Contains(string(m.Body), "mcpreg_scan_lease_takeovers_total 1") {
				t.Fatalf("takeover not counted:\n%s", m.Body)
			}
		})
	}
}

// TestScheduleSharedByReplicas: two replicas with a schedule each scan a
// fleet between them; no version is ever scanned by both at once, and each
// one is scanned about once per interval rather than once per replica.
func TestScheduleSharedByReplicas(t *testing.T) {
	for _, dialect := range storetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			url := slowFixture(t, 40*time.Millisecond)
			const n, interval = 8, 600 * time.Millisecond
			rs := replicas(t, dialect, 2, func(c *config.Config) { c.ScanInterval, c.ScanConcurrency = interval, 2 })
			owner := rs[0].Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
			alice := rs[1].Token(t, "alice", registry.RoleReviewer)
			for i := range n {
				name := fmt.Sprintf("io.github.acme/fleet-%d", i)
				if r := call(t, "POST", rs[i%2].URL+"/v1/versions", owner, map[string]any{"serverJson": liveServerJSON(name, url), "live": true}); r.Status != 200 {
					t.Fatalf("live submit: %d %s", r.Status, r.Body)
				}
				if r := call(t, "POST", rs[(i+1)%2].URL+"/v1/servers/"+name+"/versions/1.0.0/approve", alice, map[string]any{"reason": "ok"}); r.Status != 200 {
					t.Fatalf("approve: %d %s", r.Status, r.Body)
				}
			}
			start := time.Now()
			ctx := t.Context()
			st := rs[0].Store.Client
			deadline := start.Add(20 * time.Second)
			for {
				var per []struct {
					VersionID int `json:"version_id"`
					Count     int `json:"count"`
				}
				st.Scan.Query().Where(scan.Trigger(string(states.TriggerSchedule)), scan.OutcomeNEQ(string(states.OutcomeRunning))).
					GroupBy(scan.FieldVersionID).Aggregate(ent.Count()).ScanX(ctx, &per)
				done := len(per) == n
				for _, p := range per {
					done = done && p.Count >= 3
				}
				if done {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after %s, scheduled scans per version: %v (want 3 each for %d versions)", time.Since(start), per, n)
				}
				time.Sleep(100 * time.Millisecond)
			}
			scans := st.Scan.Query().Where(scan.Trigger(string(states.TriggerSchedule))).Order(ent.Asc(scan.FieldStartedAt)).AllX(ctx)
			byVersion := map[int][]*ent.Scan{}
			for _, sc := range scans {
				byVersion[sc.VersionID] = append(byVersion[sc.VersionID], sc)
			}
			for v, list := range byVersion {
				for i := 1; i < len(list); i++ {
					prev, cur := list[i-1], list[i]
					if prev.FinishedAt == nil || cur.StartedAt.Before(*prev.FinishedAt) {
						t.Fatalf("version %d: scan %d (%s) started before scan %d (%s) finished", v, cur.ID, cur.Replica, prev.ID, prev.Replica)
					}
				}
				// One replica's schedule gives at most span/interval+1 scans
				// between a version's first and last scheduled scan; two
				// unshared schedules twice that. (The span is the version's
				// own: measuring from when this loop started would miss the
				// scans of versions approved early while a loaded machine
				// was still approving the rest.)
				span := list[len(list)-1].StartedAt.Sub(list[0].StartedAt)
				if most := int(span/interval) + 2; len(list) > most {
					t.Fatalf("version %d scanned %d times in %s (interval %s): replicas did not share the schedule", v, len(list), span, interval)
				}
			}
		})
	}
}
