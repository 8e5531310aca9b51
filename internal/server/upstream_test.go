package server_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/upstream/upstreamtest"
)

// TestRegistryImportsFromAnotherRegistry: registry A registers registry B
// (serving /v0.1 behind a host token) as an upstream through the API and
// syncs the namespace io.github.acme: B's approved versions arrive in A
// pending review, submitted by upstream:b, their tools read live from
// the servers themselves, their provenance shown; a reviewer of A
// approves one (four-eyes holds: upstream:b submitted it); the next pass
// imports only what B approved since. Tokens and roles: only A's admin
// manages upstreams, the token never comes back.
func TestRegistryImportsFromAnotherRegistry(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		b := servertest.Start(t, dialect)
		bOwner := b.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme", "io.github.other")
		bReviewer := b.Token(t, "bob", registry.RoleReviewer)
		publish := func(name, version string) {
			t.Helper()
			doc := strings.Replace(liveServerJSON(name, twoFacedServer(t, false)), `"version":"1.0.0"`, `"version":"`+version+`"`, 1)
			if r := call(t, "POST", b.URL+"/v1/versions", bOwner, map[string]any{"serverJson": doc, "live": true}); r.Status != http.StatusOK {
				t.Fatalf("B: submit %s: %d %s", name, r.Status, r.Body)
			}
			if r := call(t, "POST", b.URL+"/v1/servers/"+name+"/versions/"+version+"/approve", bReviewer, map[string]any{"reason": "ok"}); r.Status != http.StatusOK {
				t.Fatalf("B: approve %s: %d %s", name, r.Status, r.Body)
			}
		}
		publish("io.github.acme/weather", "1.0.0")
		publish("io.github.acme/alerts", "1.0.0")
		publish("io.github.other/notes", "1.0.0")
		hostOfB := b.HostToken(t, "registry-a")

		a := servertest.Start(t, dialect)
		aAdmin := a.Token(t, "root", registry.RoleAdmin)
		aReviewer := a.Token(t, "alice", registry.RoleReviewer)
		aOwner := a.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
		add := map[string]any{"name": "b", "url": b.URL, "namespaces": []string{"io.github.acme"}, "token": hostOfB,
			"allow": []string{"127.0.0.1"}, "intervalSeconds": 0}
		for _, tok := range []string{aReviewer, aOwner} {
			if r := call(t, "POST", a.URL+"/v1/upstreams", tok, add); r.Status != http.StatusForbidden {
				t.Errorf("non-admin registering an upstream: %d %s", r.Status, r.Body)
			}
		}
		r := call(t, "POST", a.URL+"/v1/upstreams", aAdmin, add)
		if r.Status != http.StatusOK || strings.Contains(string(r.Body), hostOfB) {
			t.Fatalf("register upstream: %d %s", r.Status, r.Body)
		}
		if r := call(t, "POST", a.URL+"/v1/upstreams/b/sync", aReviewer, map[string]any{}); r.Status != http.StatusForbidden {
			t.Errorf("reviewer syncing: %d %s", r.Status, r.Body)
		}
		r = call(t, "POST", a.URL+"/v1/upstreams/b/sync", aAdmin, map[string]any{"wait": true})
		if r.Status != http.StatusOK {
			t.Fatalf("sync: %d %s", r.Status, r.Body)
		}
		res := r.json(t)
		counts, _ := res["counts"].(map[string]any)
		if e, _ := res["error"].(string); e != "" || counts["imported"] != "2" || counts["skipped"] != "1" {
			t.Fatalf("first pass: %s", r.Body)
		}

		base := a.URL + "/v1/servers/io.github.acme/weather/versions/1.0.0"
		v := call(t, "GET", base, aReviewer, nil).json(t)
		if v["state"] != "pending_review" || v["submittedBy"] != "upstream:b" {
			t.Fatalf("imported version: %v", v)
		}
		snap, _ := v["snapshot"].(map[string]any)
		tools, _ := snap["tools"].([]any)
		if len(tools) != 1 || tools[0].(map[string]any)["name"] != "get_forecast" {
			t.Errorf("the imported version's tools were not read live: %v", snap)
		}
		prov, _ := v["upstream"].(map[string]any)
		if prov["upstream"] != "b" || prov["url"] != b.URL || prov["publishedAt"] == nil || !strings.Contains(prov["meta"].(string), "io.mcpreg/registry") {
			t.Errorf("provenance: %v", prov)
		}
		if r := call(t, "POST", base+"/approve", aReviewer, map[string]any{"reason": "reviewed in A"}); r.Status != http.StatusOK {
			t.Fatalf("A: approve the imported version: %d %s", r.Status, r.Body)
		}

		alerts := a.URL + "/v1/servers/io.github.acme/alerts/versions/1.0.0"
		if r := call(t, "POST", alerts+"/approve", aReviewer, map[string]any{"reason": "reviewed in A"}); r.Status != http.StatusOK {
			t.Fatalf("A: approve alerts: %d %s", r.Status, r.Body)
		}

		// B deprecates weather 1.0.0 and revokes alerts 1.0.0, and
		// publishes weather 1.1.0: A's next pass imports the new version,
		// warns on the first and quarantines the second.
		publish("io.github.acme/weather", "1.1.0")
		if r := call(t, "POST", b.URL+"/v1/servers/io.github.acme/weather/versions/1.0.0/status", bOwner,
			map[string]any{"status": "deprecated", "message": "use 1.1.0"}); r.Status != http.StatusOK {
			t.Fatalf("B: deprecate: %d %s", r.Status, r.Body)
		}
		if r := call(t, "POST", b.URL+"/v1/servers/io.github.acme/alerts/versions/1.0.0/revoke", bReviewer,
			map[string]any{"reason": "leaks tokens"}); r.Status != http.StatusOK {
			t.Fatalf("B: revoke: %d %s", r.Status, r.Body)
		}
		r = call(t, "POST", a.URL+"/v1/upstreams/b/sync", aAdmin, map[string]any{"wait": true})
		counts, _ = r.json(t)["counts"].(map[string]any)
		if r.Status != http.StatusOK || counts["imported"] != "1" || counts["status_changes"] != "2" {
			t.Errorf("second pass: %d %s", r.Status, r.Body)
		}
		w := call(t, "GET", base, aReviewer, nil).json(t)
		if w["state"] != "approved" || !findingKinds(w)[registry.KindUpstreamDeprecated] {
			t.Errorf("A: weather after B deprecated it: %v %v", w["state"], w["findings"])
		}
		al := call(t, "GET", alerts, aReviewer, nil).json(t)
		if al["state"] != "quarantined" || al["quarantineKind"] != string(states.QuarantineUpstream) {
			t.Errorf("A: alerts after B revoked it: %v %v %v", al["state"], al["quarantineKind"], al["stateReason"])
		}
		list := call(t, "GET", a.URL+"/v1/upstreams", aReviewer, nil)
		if list.Status != http.StatusOK || !strings.Contains(string(list.Body), `"hasToken":true`) || strings.Contains(string(list.Body), hostOfB) {
			t.Errorf("list upstreams: %d %s", list.Status, list.Body)
		}
		if strings.Contains(a.Logs.String(), hostOfB) {
			t.Error("A logged the upstream token")
		}
		if r := call(t, "DELETE", a.URL+"/v1/upstreams/b", aAdmin, nil); r.Status != http.StatusOK {
			t.Errorf("remove: %d %s", r.Status, r.Body)
		}
		if v := call(t, "GET", base, aReviewer, nil).json(t); v["state"] != "approved" || v["upstream"] == nil {
			t.Errorf("after removing the upstream its imports stay with their provenance: %v", v)
		}
	})
}

// TestUpstreamPrincipalNeverSignsIn: the system principal an upstream
// submits as holds no token and cannot sign in to the web UI.
func TestUpstreamPrincipalNeverSignsIn(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	admin := in.Token(t, "root", registry.RoleAdmin)
	r := call(t, "POST", in.URL+"/v1/upstreams", admin, map[string]any{"name": "pub", "url": "https://registry.example.com",
		"namespaces": []string{"*"}, "intervalSeconds": 0})
	if r.Status != http.StatusOK {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	r = call(t, "POST", in.URL+"/v1/tokens", admin, map[string]any{"principal": "upstream:pub"})
	if r.Status == http.StatusOK {
		t.Errorf("a token was issued to the upstream principal: %s", r.Body)
	}
	if _, err := in.Identity.SignInExternal(t.Context(), "upstream:pub", "oidc", "127.0.0.1"); err == nil {
		t.Error("the upstream principal signed in through single sign-on")
	}
}

// TestUpstreamStatusFlowsDown: what an upstream says of a version after
// it was imported reaches review. Deprecated: a warn finding and a
// banner, the version stays approved. Deleted: the approved version is
// quarantined (kind upstream, the upstream's message as the reason,
// audited), a pending one gets a high finding and cannot be approved.
// An upstream that reinstates a version releases nothing; a reviewer may
// then release it, not before.
func TestUpstreamStatusFlowsDown(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	admin := in.Token(t, "root", registry.RoleAdmin)
	alice := in.Token(t, "alice", registry.RoleReviewer)
	f := upstreamtest.New(t)
	mcpURL := twoFacedServer(t, false)
	for _, n := range []string{"io.github.acme/dep", "io.github.acme/del", "io.github.acme/pend"} {
		f.Put(upstreamtest.Server{Name: n, Version: "1.0.0", Remote: mcpURL})
	}
	f.Put(upstreamtest.Server{Name: "io.github.acme/old", Version: "1.0.0", Remote: mcpURL, Status: "deprecated", StatusMessage: "use io.github.acme/new"})
	r := call(t, "POST", in.URL+"/v1/upstreams", admin, map[string]any{"name": "pub", "url": f.URL,
		"namespaces": []string{"io.github.acme"}, "allow": []string{"127.0.0.1"}, "intervalSeconds": 0})
	if r.Status != http.StatusOK {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	sync := func() map[string]any {
		t.Helper()
		r := call(t, "POST", in.URL+"/v1/upstreams/pub/sync", admin, map[string]any{"wait": true})
		if r.Status != http.StatusOK {
			t.Fatalf("sync: %d %s", r.Status, r.Body)
		}
		return r.json(t)
	}
	sync()
	base := func(name string) string { return in.URL + "/v1/servers/io.github.acme/" + name + "/versions/1.0.0" }
	for _, n := range []string{"dep", "del"} {
		if r := call(t, "POST", base(n)+"/approve", alice, map[string]any{"reason": "reviewed"}); r.Status != http.StatusOK {
			t.Fatalf("approve %s: %d %s", n, r.Status, r.Body)
		}
	}
	old := call(t, "GET", base("old"), alice, nil).json(t)
	if !findingKinds(old)[registry.KindUpstreamDeprecated] {
		t.Errorf("a version imported as deprecated has no deprecation finding: %v", old["findings"])
	}

	f.SetStatus("io.github.acme/dep", "1.0.0", "deprecated", "superseded by 2.0")
	f.SetStatus("io.github.acme/del", "1.0.0", "deleted", "malicious release")
	f.SetStatus("io.github.acme/pend", "1.0.0", "deleted", "")
	counts, _ := sync()["counts"].(map[string]any)
	if counts["status_changes"] != "3" {
		t.Errorf("status changes: %v", counts)
	}
	dep := call(t, "GET", base("dep"), alice, nil).json(t)
	if dep["state"] != "approved" || !findingKinds(dep)[registry.KindUpstreamDeprecated] || dep["upstream"].(map[string]any)["status"] != "deprecated" {
		t.Errorf("deprecated upstream: %v %v %v", dep["state"], dep["findings"], dep["upstream"])
	}
	del := call(t, "GET", base("del"), alice, nil).json(t)
	if del["state"] != "quarantined" || del["quarantineKind"] != string(states.QuarantineUpstream) || !strings.Contains(del["stateReason"].(string), "malicious release") ||
		!findingKinds(del)[registry.KindUpstreamDeleted] {
		t.Errorf("deleted upstream, approved here: %v %v %v %v", del["state"], del["quarantineKind"], del["stateReason"], del["findings"])
	}
	pend := call(t, "GET", base("pend"), alice, nil).json(t)
	if pend["state"] != "pending_review" || !findingKinds(pend)[registry.KindUpstreamDeleted] {
		t.Errorf("deleted upstream, pending here: %v %v", pend["state"], pend["findings"])
	}
	if r := call(t, "POST", base("pend")+"/approve", alice, map[string]any{"reason": "ok"}); r.Status != http.StatusConflict && r.Status != http.StatusBadRequest && r.Status != http.StatusPreconditionFailed {
		t.Errorf("approving a version its upstream deleted: %d %s", r.Status, r.Body)
	} else if !strings.Contains(string(r.Body), "deleted it") {
		t.Errorf("the refusal does not say why: %s", r.Body)
	}
	if r := call(t, "POST", base("del")+"/release", alice, map[string]any{"reason": "looks fine"}); r.Status == http.StatusOK {
		t.Errorf("released a version its upstream still lists as deleted")
	}
	ev := call(t, "GET", in.URL+"/v1/audit/events?subject=io.github.acme/del@1.0.0", alice, nil)
	if !strings.Contains(string(ev.Body), `"version.quarantine"`) || !strings.Contains(string(ev.Body), `"upstream:pub"`) {
		t.Errorf("the quarantine is not audited as the upstream's: %s", ev.Body)
	}

	// Reinstated upstream: nothing is released by itself.
	f.SetStatus("io.github.acme/del", "1.0.0", "active", "")
	sync()
	if del := call(t, "GET", base("del"), alice, nil).json(t); del["state"] != "quarantined" {
		t.Errorf("a reinstated upstream released the version: %v", del["state"])
	}
	if r := call(t, "POST", base("del")+"/release", alice, map[string]any{"reason": "upstream reinstated it, reviewed"}); r.Status != http.StatusOK {
		t.Errorf("release after reinstatement: %d %s", r.Status, r.Body)
	}
}

func findingKinds(v map[string]any) map[string]bool {
	out := map[string]bool{}
	fs, _ := v["findings"].([]any)
	for _, f := range fs {
		if k, ok := f.(map[string]any)["kind"].(string); ok {
			out[k] = true
		}
	}
	return out
}

// TestUpstreamSyncRunsInTheBackground: asked through the API, a pass runs
// in the background and the answer comes at once, showing the pass under
// way; while it runs, no second pass starts (however it is asked) and
// the upstream cannot be removed; when it ends, the upstream shows its
// counts and the audit log the pass, by the admin who asked.
func TestUpstreamSyncRunsInTheBackground(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	admin := in.Token(t, "root", registry.RoleAdmin)
	f := upstreamtest.New(t)
	for _, n := range []string{"io.github.acme/a", "io.github.acme/b", "io.github.acme/c"} {
		f.Put(upstreamtest.Server{Name: n, Version: "1.0.0"})
	}
	release, held := make(chan struct{}), make(chan struct{}, 1)
	f.Intercept = func(_ http.ResponseWriter, _ *http.Request, page int) bool {
		if page == 1 {
			held <- struct{}{}
			select {
			case <-release:
			case <-time.After(time.Minute):
			}
		}
		return false
	}
	r := call(t, "POST", in.URL+"/v1/upstreams", admin, map[string]any{"name": "pub", "url": f.URL,
		"namespaces": []string{"io.github.acme"}, "allow": []string{"127.0.0.1"}, "tools": "none", "intervalSeconds": 0})
	if r.Status != http.StatusOK {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	r = call(t, "POST", in.URL+"/v1/upstreams/pub/sync", admin, map[string]any{})
	started := r.json(t)
	up, _ := started["upstream"].(map[string]any)
	if counts, _ := started["counts"].(map[string]any); r.Status != http.StatusOK || started["running"] != true || up["syncingOn"] == "" || len(counts) != 0 {
		t.Fatalf("starting a pass: %d %s", r.Status, r.Body)
	}
	select {
	case <-held: // the pass reads its first page: it is under way
	case <-time.After(30 * time.Second):
		t.Fatal("the pass started in the background never read a page")
	}
	for _, body := range []map[string]any{{}, {"wait": true}} {
		if r := call(t, "POST", in.URL+"/v1/upstreams/pub/sync", admin, body); r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "under way") {
			t.Errorf("a second pass asked (%v) while one runs: %d %s", body, r.Status, r.Body)
		}
	}
	if r := call(t, "DELETE", in.URL+"/v1/upstreams/pub", admin, nil); r.Status != http.StatusConflict {
		t.Errorf("removing an upstream while its pass runs: %d %s", r.Status, r.Body)
	}
	if ups, _ := call(t, "GET", in.URL+"/v1/upstreams", admin, nil).json(t)["upstreams"].([]any); len(ups) != 1 ||
		ups[0].(map[string]any)["syncingOn"] != up["syncingOn"] {
		t.Errorf("the list does not show the pass under way: %v", ups)
	}
	close(release)
	var last map[string]any
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		ups, _ := call(t, "GET", in.URL+"/v1/upstreams", admin, nil).json(t)["upstreams"].([]any)
		if len(ups) == 1 {
			if last = ups[0].(map[string]any); last["syncingOn"] == "" && last["lastPassAt"] != nil {
				break
			}
		}
	}
	counts, _ := last["lastCounts"].(map[string]any)
	if last["syncingOn"] != "" || counts["imported"] != "3" || last["lastError"] != "" {
		t.Fatalf("after the background pass: %v", last)
	}
	if f.Pages() != 1 {
		t.Errorf("%d pages read: one pass, one page, and no second pass", f.Pages())
	}
	if !audited(t, in.URL, admin, "root", "upstream.sync", "upstream/pub") {
		t.Error("the background pass is not audited as the admin's")
	}
	if r := call(t, "POST", in.URL+"/v1/upstreams/pub/sync", admin, map[string]any{"wait": true}); r.Status != http.StatusOK || r.json(t)["running"] != false {
		t.Errorf("a pass after it, waited for: %d %s", r.Status, r.Body)
	}
}

// TestFirstReadOfAnImportWithoutTools: a version imported with no tool
// snapshot cannot be approved; a scan while it is pending is its first
// reading: the tools the server shows become its snapshot and pins (pin
// revision 2), its contract is normalised over them, the no-snapshot
// finding is resolved (kept as history) and the detectors' findings over
// the tools are recorded; it stays pending, is approved four-eyes and
// resolves with those pins. A host may not trigger the reading, nor an
// owner outside the namespace; a second scan compares as usual.
func TestFirstReadOfAnImportWithoutTools(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	admin := in.Token(t, "root", registry.RoleAdmin)
	alice := in.Token(t, "alice", registry.RoleReviewer)
	stranger := in.Token(t, "other-ci", registry.RoleOwner, "io.github.other")
	host := in.HostToken(t, "laptop")
	f := upstreamtest.New(t)
	f.Put(upstreamtest.Server{Name: "io.github.acme/weather", Version: "1.0.0", Remote: twoFacedServer(t, false)})
	r := call(t, "POST", in.URL+"/v1/upstreams", admin, map[string]any{"name": "pub", "url": f.URL,
		"namespaces": []string{"io.github.acme"}, "allow": []string{"127.0.0.1"}, "tools": "none", "intervalSeconds": 0})
	if r.Status != http.StatusOK {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	if r := call(t, "POST", in.URL+"/v1/upstreams/pub/sync", admin, map[string]any{"wait": true}); r.Status != http.StatusOK {
		t.Fatalf("sync: %d %s", r.Status, r.Body)
	}
	base := in.URL + "/v1/servers/io.github.acme/weather/versions/1.0.0"
	v := call(t, "GET", base, alice, nil).json(t)
	if snap, _ := v["snapshot"].(map[string]any); snap["source"] != registry.SnapshotSourceNone || !findingKinds(v)[registry.KindUpstreamNoSnapshot] {
		t.Fatalf("imported with tools=none: snapshot %v, findings %v", v["snapshot"], v["findings"])
	}
	if r := call(t, "POST", base+"/approve", alice, map[string]any{"reason": "ok"}); r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "no tool snapshot") {
		t.Fatalf("approving a version with no tool snapshot: %d %s", r.Status, r.Body)
	}
	for who, tok := range map[string]string{"host": host, "owner of another namespace": stranger} {
		if r := call(t, "POST", base+"/scan", tok, map[string]any{}); r.Status != http.StatusForbidden {
			t.Errorf("%s triggering the first reading: %d %s", who, r.Status, r.Body)
		}
	}

	res := call(t, "POST", base+"/scan", alice, map[string]any{}).json(t)
	if sc, _ := res["scan"].(map[string]any); sc["outcome"] != string(states.OutcomeMatch) {
		t.Fatalf("first reading: %v", res)
	}
	v = call(t, "GET", base, alice, nil).json(t)
	snap, _ := v["snapshot"].(map[string]any)
	tools, _ := snap["tools"].([]any)
	pins, _ := v["pins"].(map[string]any)
	if v["state"] != "pending_review" || snap["source"] != "scan" || len(tools) != 1 || tools[0].(map[string]any)["name"] != "get_forecast" ||
		pins["revision"] != float64(2) {
		t.Fatalf("after the first reading: state %v, snapshot %v, pins %v", v["state"], snap, pins)
	}
	if !strings.Contains(v["contract"].(string), `"get_forecast"`) {
		t.Errorf("the contract was not normalised over the tools read: %s", v["contract"])
	}
	for _, fi := range v["findings"].([]any) {
		if fm := fi.(map[string]any); fm["kind"] == registry.KindUpstreamNoSnapshot && fm["resolvedAt"] == nil {
			t.Errorf("the no-snapshot finding is still current: %v", fm)
		}
	}
	if !audited(t, in.URL, admin, "alice", "version.first_read", "io.github.acme/weather@1.0.0") {
		t.Error("the first reading is not audited as alice's")
	}
	if res := call(t, "POST", base+"/scan", alice, map[string]any{"fresh": true}).json(t); res["scan"].(map[string]any)["outcome"] != string(states.OutcomeMatch) {
		t.Errorf("a scan after the first reading: %v", res)
	}
	if v := call(t, "GET", base, alice, nil).json(t); v["pins"].(map[string]any)["revision"] != float64(2) {
		t.Errorf("a second scan moved the pins: %v", v["pins"])
	}
	if r := call(t, "POST", base+"/approve", alice, map[string]any{"reason": "reviewed the tools read"}); r.Status != http.StatusOK {
		t.Fatalf("approving after the first reading: %d %s", r.Status, r.Body)
	}
	doc := call(t, "GET", in.URL+"/v1/discovery/servers?name=io.github.acme/weather", host, nil)
	payload, err := base64.StdEncoding.DecodeString(doc.json(t)["payload"].(string))
	if doc.Status != http.StatusOK || err != nil || !strings.Contains(string(payload), `"tools":[{"name":"get_forecast"`) {
		t.Errorf("resolving the approved import: %d %s", doc.Status, payload)
	}
}

// audited reports whether the audit log holds an event of actor doing
// action on subject (read as JSON: protojson varies its spacing).
func audited(t *testing.T, base, admin, actor, action, subject string) bool {
	t.Helper()
	for _, e := range call(t, "GET", base+"/v1/audit/events?pageSize=500", admin, nil).json(t)["events"].([]any) {
		if em := e.(map[string]any); em["actor"] == actor && em["action"] == action && em["subject"] == subject {
			return true
		}
	}
	return false
}
