package registry_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/states"
)

// TestUnitDriftRelease: a version quarantined for drift is released only
// after a scan newer than the quarantine matched the approved pins. A
// match from before the quarantine does not count, nor does a scan that
// still drifts; a match does not release by itself; once released the
// version resolves again. A manual quarantine needs no scan.
func TestUnitDriftRelease(t *testing.T) {
	ctx := context.Background()
	env, live := newUnitEnv(t), &fakeReader{}
	svc := env.service(t, registry.Scanning{Reader: live})
	approve(t, svc, registry.Submission{ServerJSON: serverJSON(weather, weatherVersion)}, weather)
	scanAt := func(tools, outcome, state string) {
		t.Helper()
		env.clock.Advance(time.Minute)
		live.serve(liveSnapshot(t, tools, weatherInfo))
		if res := scanNow(t, svc, weather); res.GetScan().GetOutcome() != outcome || res.GetState() != state {
			t.Fatalf("scan: outcome %q state %q, want %q %q", res.GetScan().GetOutcome(), res.GetState(), outcome, state)
		}
	}
	release := func() error {
		_, err := svc.Review.Transition(ctx, reviewer, registry.ActionRelease, weather, weatherVersion, "the server is fixed")
		return err
	}
	refused := func(when string) {
		t.Helper()
		err := release()
		if !errors.Is(err, registry.ErrFailedPrecondition) ||
			!strings.Contains(err.Error(), "releasing it needs a fresh scan whose pins match the approved ones") {
			t.Fatalf("release %s: %v, want the fresh-scan precondition", when, err)
		}
		if v := versionRow(t, env.st, weather); v.State != "quarantined" || v.QuarantineKind != string(states.QuarantineDrift) {
			t.Fatalf("release %s: stored %s (%s), want it still quarantined for drift", when, v.State, v.QuarantineKind)
		}
	}

	scanAt(weatherTools, "match", "approved")
	scanAt(forecastReworded, "drift", "quarantined")
	refused("with only a match older than the quarantine")
	scanAt(forecastReworded, "drift", "quarantined")
	refused("after a scan that still drifts")
	scanAt(weatherTools, "match", "quarantined")
	if resolvable(t, svc, weather) {
		t.Fatal("a matching scan released the version by itself")
	}
	if err := release(); err != nil {
		t.Fatalf("release after a newer matching scan: %v", err)
	}
	if v := versionRow(t, env.st, weather); v.State != "approved" || v.QuarantineKind != "" || v.QuarantineDriftID != nil {
		t.Fatalf("released: stored %s kind %q drift %v", v.State, v.QuarantineKind, v.QuarantineDriftID)
	}
	if !resolvable(t, svc, weather) {
		t.Fatal("released version does not resolve")
	}

	if _, err := svc.Review.Transition(ctx, reviewer, registry.ActionQuarantine, weather, weatherVersion, "incident"); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatalf("release of a manual quarantine: %v", err)
	}
}
