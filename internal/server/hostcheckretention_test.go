package server_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/ent/hostcheck"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestHostCheckRetention: connect-time observations are stored with their
// bodies only within --host-check-max-bytes, at most --host-check-keep per
// host, server and version (the newest), and none older than
// --host-check-retention.
func TestHostCheckRetention(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect, func(c *config.Config) {
			c.HostCheckMaxBytes, c.HostCheckKeep, c.HostCheckRetention = 4096, 3, time.Hour
		})
		ctx := t.Context()
		laptop := in.Token(t, "laptop", registry.RoleHost)
		desk := in.Token(t, "desk", registry.RoleHost)
		old := in.Store.Client.HostCheck.Create().SetPrincipal("laptop").SetServerName("io.github.acme/other").
			SetVerdict("unknown").SetObservedDigest("sha256:00").SetTools([]byte("[]")).
			SetCreatedAt(time.Now().Add(-2 * time.Hour)).SaveX(ctx)
		check := func(tok, tools string) response {
			r := call(t, "POST", in.URL+"/v1/discovery/check", tok, map[string]any{"name": "io.github.acme/weather", "tools": tools})
			if r.Status != 200 {
				t.Fatalf("check: %d %s", r.Status, r.Body)
			}
			return r
		}
		var ids []int64
		for range 5 {
			id := check(laptop, toolsJSON).json(t)["receipt"].(map[string]any)["observationId"]
			ids = append(ids, parseID(t, id))
		}
		check(desk, toolsJSON)
		kept := in.Store.Client.HostCheck.Query().Where(hostcheck.PrincipalEQ("laptop"), hostcheck.ServerName("io.github.acme/weather")).
			Order(hostcheck.ByID()).IDsX(ctx)
		if len(kept) != 3 || int64(kept[0]) != ids[2] {
			t.Fatalf("laptop's observations kept: %v of %v, want the newest 3", kept, ids)
		}
		if n := in.Store.Client.HostCheck.Query().Where(hostcheck.PrincipalEQ("desk")).CountX(ctx); n != 1 {
			t.Fatalf("desk's observations: %d, want its 1 untouched by laptop's pruning", n)
		}
		if in.Store.Client.HostCheck.Query().Where(hostcheck.ID(old.ID)).ExistX(ctx) {
			t.Fatal("an observation older than --host-check-retention is still stored")
		}

		big := `[{"name":"get_forecast","description":"` + strings.Repeat("Forecast. ", 600) + `","inputSchema":{"type":"object"}}]`
		r := check(laptop, big)
		if msg := r.json(t)["message"].(string); !strings.Contains(msg, "--host-check-max-bytes 4096") {
			t.Fatalf("an observation over the cap: message %q, want it to say the body was not stored", msg)
		}
		hc := in.Store.Client.HostCheck.GetX(ctx, int(parseID(t, r.json(t)["receipt"].(map[string]any)["observationId"])))
		if len(hc.Tools) != 0 || hc.ObservedDigest == "" {
			t.Fatalf("stored %d bytes of tools (digest %q), want none and the digest", len(hc.Tools), hc.ObservedDigest)
		}
	})
}

func parseID(t *testing.T, v any) int64 {
	t.Helper()
	s, _ := v.(string)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("observation id %v: %v", v, err)
	}
	return n
}
