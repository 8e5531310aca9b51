package server_test

import (
	"sync"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestScanRequestsAreMerged: a burst of scan requests from hosts and owners
// reads the server once; later requests within the cooldown get that scan.
func TestScanRequestsAreMerged(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		fx := newFixture(t)
		in := servertest.Start(t, dialect, func(c *config.Config) { c.ScanCooldown = time.Minute })
		owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
		host := in.Token(t, "edge-host", registry.RoleHost)
		if r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": liveServerJSON("io.github.acme/weather", fx.url), "live": true}); r.Status != 200 {
			t.Fatalf("live submit: %d %s", r.Status, r.Body)
		}
		url := in.URL + "/v1/servers/io.github.acme/weather/versions/1.0.0/scan"
		var wg sync.WaitGroup
		ids := make(chan any, 20)
		for i := range 20 {
			tok := owner
			if i%2 == 0 {
				tok = host
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := call(t, "POST", url, tok, map[string]any{})
				if r.Status == 200 {
					ids <- r.json(t)["scan"].(map[string]any)["id"]
				}
			}()
		}
		wg.Wait()
		close(ids)
		seen := map[any]bool{}
		for id := range ids {
			seen[id] = true
		}
		if n := in.Store.Client.Scan.Query().CountX(t.Context()); n != 1 || len(seen) != 1 {
			t.Fatalf("20 requests made %d scans (%d distinct answers), want 1", n, len(seen))
		}
	})
}
