package server_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestLiveSubmitOutsideNamespaceReadsNothing: an owner's live submission
// in a namespace it does not own is refused before the registry dials or
// launches anything on its behalf.
func TestLiveSubmitOutsideNamespaceReadsNothing(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		var hits atomic.Int32
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			hits.Add(1)
			http.Error(w, "nothing here", http.StatusNotFound)
		}))
		t.Cleanup(ts.Close)
		in := servertest.Start(t, dialect)
		owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
		r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{
			"serverJson": liveServerJSON("io.github.evil/probe", ts.URL+"/mcp"), "live": true})
		if r.Status != http.StatusForbidden || !strings.Contains(r.message(t), `namespace "io.github.evil"`) {
			t.Fatalf("live submit outside the namespace: %d %s", r.Status, r.Body)
		}
		if n := hits.Load(); n != 0 {
			t.Fatalf("the registry sent %d requests to a server the owner may not submit", n)
		}
	})
}

// TestLaunchArgumentInjection: a package identifier that a launch tool
// would read as an option (npx --call runs a shell command) is refused
// before anything is launched, on live submission and on plain submission.
func TestLaunchArgumentInjection(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		dir := servertest.ScanUserDir(t)
		marker := filepath.Join(dir, "launched")
		launcher := filepath.Join(dir, "launcher.sh")
		script := "#!/bin/sh\necho \"$@\" > " + marker + "\nexit 1\n"
		if err := os.WriteFile(launcher, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		in := servertest.Start(t, dialect, func(c *config.Config) {
			c.ScanLaunchTemplates = []string{"pypi=" + launcher + " {identifier}=={version}"}
		})
		owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
		for _, pkg := range []struct{ id, ver, want string }{
			{"--call=id > /tmp/x; echo", "1.0.0", `identifier "--call=id > /tmp/x; echo"`},
			{"weather", "-c", `version "-c"`},
			{"weather[extra]", "1.0.0", "PEP 508"},
		} {
			sj := `{"$schema":"` + schemaURL + `","name":"io.github.acme/inject","description":"x","version":"1.0.0",
 "packages":[{"registryType":"pypi","identifier":` + jsonString(pkg.id) + `,"version":` + jsonString(pkg.ver) + `,"transport":{"type":"stdio"}}]}`
			for _, live := range []bool{true, false} {
				body := map[string]any{"serverJson": sj, "live": live}
				if !live {
					body["tools"] = toolsJSON
				}
				r := call(t, "POST", in.URL+"/v1/versions", owner, body)
				if r.Status != http.StatusBadRequest || !strings.Contains(r.message(t), pkg.want) {
					t.Fatalf("identifier %q version %q (live %t): %d %s", pkg.id, pkg.ver, live, r.Status, r.Body)
				}
			}
		}
		if got, err := os.ReadFile(marker); err == nil {
			t.Fatalf("the launch template ran with %q", got)
		}
	})
}

// TestHostScansOnlyWhatItResolves: a host token may scan only versions it
// may resolve; pending, rejected and environment-restricted versions (and
// their scan output) are not a host's business.
func TestHostScansOnlyWhatItResolves(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		fx := newFixture(t)
		in := servertest.Start(t, dialect)
		owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
		alice := in.Token(t, "alice", registry.RoleReviewer)
		host := in.HostToken(t, "laptop", "dev")
		submitLive := func(name string, contract string) string {
			body := map[string]any{"serverJson": liveServerJSON(name, fx.url), "live": true}
			if contract != "" {
				body["contract"] = contract
			}
			if r := call(t, "POST", in.URL+"/v1/versions", owner, body); r.Status != 200 {
				t.Fatalf("submit %s: %d %s", name, r.Status, r.Body)
			}
			return in.URL + "/v1/servers/" + name + "/versions/1.0.0"
		}
		pending := submitLive("io.github.acme/pending", "")
		rejected := submitLive("io.github.acme/rejected", "")
		restricted := submitLive("io.github.acme/prodonly", prodOnlyContract)
		approved := submitLive("io.github.acme/approved", "")
		if r := call(t, "POST", rejected+"/reject", alice, map[string]any{"reason": "no"}); r.Status != 200 {
			t.Fatalf("reject: %d %s", r.Status, r.Body)
		}
		for _, base := range []string{restricted, approved} {
			if r := call(t, "POST", base+"/approve", alice, map[string]any{"reason": "ok"}); r.Status != 200 {
				t.Fatalf("approve: %d %s", r.Status, r.Body)
			}
		}
		for _, base := range []string{pending, rejected, restricted} {
			r := call(t, "POST", base+"/scan", host, map[string]any{})
			if r.Status != http.StatusForbidden || !strings.Contains(r.message(t), "may scan only versions it may resolve") {
				t.Fatalf("host scanned %s: %d %s", base, r.Status, r.Body)
			}
		}
		if r := call(t, "POST", approved+"/scan", host, map[string]any{}); r.Status != 200 {
			t.Fatalf("host scan of a version it resolves: %d %s", r.Status, r.Body)
		}
	})
}

// TestNamespaceMatchIsExact: namespace patterns match byte for byte on
// both dialects, and a server name that differs from an existing one only
// in case is refused.
func TestNamespaceMatchIsExact(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect)
		admin := in.Token(t, "root", registry.RoleAdmin)
		owner := in.Token(t, "acme-ci", registry.RoleOwner, "com.acme.*")
		for _, name := range []string{"COM.ACME.secret/internal", "com.acme.web/site"} {
			if r := call(t, "POST", in.URL+"/v1/versions", admin, submitBody(name, "1.0.0", toolsJSON)); r.Status != 200 {
				t.Fatalf("submit %s: %d %s", name, r.Status, r.Body)
			}
		}
		list := call(t, "GET", in.URL+"/v1/servers", owner, nil)
		if list.Status != 200 || strings.Contains(string(list.Body), "secret") || !strings.Contains(string(list.Body), "com.acme.web/site") {
			t.Fatalf("owner of com.acme.* lists: %d %s", list.Status, list.Body)
		}
		for _, path := range []string{"/v1/versions", "/v1/servers/COM.ACME.secret/internal"} {
			if r := call(t, "GET", in.URL+path, owner, nil); strings.Contains(string(r.Body), "secret/internal") {
				t.Fatalf("GET %s shows the other namespace: %d %s", path, r.Status, r.Body)
			}
		}
		r := call(t, "POST", in.URL+"/v1/versions", admin, submitBody("com.acme.web/Site", "1.0.0", toolsJSON))
		if r.Status != http.StatusConflict || !strings.Contains(r.message(t), "com.acme.web/site") {
			t.Fatalf("case variant of an existing name: %d %s", r.Status, r.Body)
		}
	})
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
