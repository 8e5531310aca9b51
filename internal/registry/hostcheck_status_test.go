package registry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestUnknownCheckSaysWhy: a host's check of a server it may not use says
// why (quarantined with kind and since, revoked, not approved) for the
// versions its environment labels could resolve, and nothing about
// versions restricted to other environments; never the reviewer's reason.
func TestUnknownCheckSaysWhy(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, storetest.Open(t, store.DialectSQLite))
	prodOnly := `{"contractVersion":"mcpreg.contract/v1","owner":"acme","auth":{"mode":"none"},"isolation":"container","hostEnvironments":["prod"]}`
	submitC := func(name, ver, contract string) {
		t.Helper()
		if _, err := svc.Review.Submit(ctx, owner, registry.Submission{ServerJSON: serverJSON(name, ver), Tools: []byte(tools),
			Contract: []byte(contract)}); err != nil {
			t.Fatalf("submit %s@%s: %v", name, ver, err)
		}
	}
	move := func(a registry.Action, name, ver string) {
		t.Helper()
		if _, err := svc.Review.Transition(ctx, reviewer, a, name, ver, "secret reviewer notes"); err != nil {
			t.Fatalf("%s %s@%s: %v", a, name, ver, err)
		}
	}
	dev := &registry.Caller{Principal: "laptop", Role: registry.RoleHost, EnvLabels: []string{"dev"}}
	prod := &registry.Caller{Principal: "server", Role: registry.RoleHost, EnvLabels: []string{"prod"}}
	check := func(c *registry.Caller, name, ver string) (status, kind, version, msg string, since bool) {
		t.Helper()
		out, err := svc.Scans.CheckConnection(ctx, c, registry.CheckInput{Name: name, Version: ver, Tools: []byte(tools)})
		if err != nil {
			t.Fatal(err)
		}
		if out.GetVerdict() != registry.VerdictUnknown || strings.Contains(out.GetMessage(), "secret reviewer notes") {
			t.Fatalf("check %s@%s: verdict %q message %q", name, ver, out.GetVerdict(), out.GetMessage())
		}
		return out.GetStatus(), out.GetQuarantineKind(), out.GetVersion(), out.GetMessage(), out.GetStatusSince() != nil
	}

	const w = "io.github.acme/weather"
	submitC(w, "1.0.0", "")
	move(registry.ActionApprove, w, "1.0.0")
	move(registry.ActionQuarantine, w, "1.0.0")
	submitC(w, "2.0.0", "")
	if st, kind, ver, msg, since := check(dev, w, ""); st != registry.CheckStatusQuarantined || kind != "manual" || ver != "1.0.0" || !since ||
		!strings.Contains(msg, "1.0.0 is quarantined (manual) since ") {
		t.Fatalf("latest: %q %q %q %q since=%v", st, kind, ver, msg, since)
	}
	if st, _, ver, msg, _ := check(dev, w, "2.0.0"); st != registry.CheckStatusNotApproved || ver != "2.0.0" || !strings.Contains(msg, "2.0.0 is not approved") {
		t.Fatalf("2.0.0: %q %q %q", st, ver, msg)
	}
	move(registry.ActionRevoke, w, "1.0.0")
	if st, _, _, _, since := check(dev, w, "1.0.0"); st != registry.CheckStatusRevoked || !since {
		t.Fatalf("revoked: %q", st)
	}
	if st, _, _, _, _ := check(dev, "io.github.acme/none", ""); st != "" {
		t.Fatalf("unknown server: %q", st)
	}

	const p = "io.github.acme/payments"
	submitC(p, "1.0.0", prodOnly)
	move(registry.ActionApprove, p, "1.0.0")
	move(registry.ActionQuarantine, p, "1.0.0")
	if st, _, ver, msg, _ := check(dev, p, ""); st != "" || strings.Contains(msg, "quarantined") || ver == "1.0.0" {
		t.Fatalf("a dev host learns of a prod-only version: %q %q %q", st, ver, msg)
	}
	if st, _, _, _, _ := check(prod, p, ""); st != registry.CheckStatusQuarantined {
		t.Fatalf("the prod host: %q", st)
	}
}
