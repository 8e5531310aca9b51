package server_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/daemon"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// submitFleet submits fleet server i live as io.github.acme/store-i 1.0.0.
func submitFleet(t *testing.T, in *servertest.Instance, owner, base string, i int) string {
	t.Helper()
	name := "io.github.acme/store-" + strconv.Itoa(i)
	r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": daemon.FleetServerJSON(name, base, i), "live": true})
	if r.Status != 200 {
		t.Fatalf("live submit of %s: %d %s", name, r.Status, r.Body)
	}
	return in.URL + "/v1/servers/" + name + "/versions/1.0.0/scan"
}

// wantRetry checks a 429 with a positive Retry-After and a message naming
// the limit.
func wantRetry(t *testing.T, r response, limit string) {
	t.Helper()
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if r.Status != http.StatusTooManyRequests || err != nil || secs < 1 || !strings.Contains(r.message(t), limit) {
		t.Fatalf("got %d Retry-After %q %s, want 429 with Retry-After and a message naming %s", r.Status, r.Header.Get("Retry-After"), r.Body, limit)
	}
}

// TestScanRatePerPrincipal: --scan-rate counts a principal's on-demand
// scans over all its tokens, over REST and gRPC alike; over it the answer
// is 429 with Retry-After (ResourceExhausted with RetryInfo and a
// retry-after header over gRPC); other principals are not affected.
func TestScanRatePerPrincipal(t *testing.T) {
	fleet := httptest.NewServer(daemon.Fleet(1, 0))
	defer fleet.Close()
	in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) { c.ScanRate = "2/1m" })
	ci1 := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	ci2 := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	alice := in.Token(t, "alice", registry.RoleReviewer)
	url := submitFleet(t, in, ci1, fleet.URL, 0)

	for i, tok := range []string{ci1, ci2} {
		if r := call(t, "POST", url, tok, map[string]any{}); r.Status != 200 {
			t.Fatalf("scan %d of the principal's 2: %d %s", i+1, r.Status, r.Body)
		}
	}
	wantRetry(t, call(t, "POST", url, ci1, map[string]any{}), "--scan-rate")
	wantRetry(t, call(t, "POST", url, ci2, map[string]any{}), "--scan-rate")
	if r := call(t, "POST", url, alice, map[string]any{}); r.Status != 200 {
		t.Fatalf("another principal's scan: %d %s", r.Status, r.Body)
	}

	conn, err := grpc.NewClient(in.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+ci2)
	var header metadata.MD
	_, err = mcpregv1.NewRegistryServiceClient(conn).ScanVersion(ctx,
		&mcpregv1.ScanVersionRequest{Name: "io.github.acme/store-0", Version: "1.0.0"}, grpc.Header(&header))
	st := status.Convert(err)
	var delay time.Duration
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			delay = ri.GetRetryDelay().AsDuration()
		}
	}
	if st.Code() != codes.ResourceExhausted || delay <= 0 || len(header.Get("retry-after")) != 1 {
		t.Fatalf("over gRPC: %v (retry delay %s, retry-after %v), want ResourceExhausted with RetryInfo and retry-after", err, delay, header.Get("retry-after"))
	}
}

// TestScanOnDemandCap: with --scan-ondemand-concurrency 1, a scan asked
// for while another runs on the replica is refused with 429 and
// Retry-After; once the first is done, it goes through.
func TestScanOnDemandCap(t *testing.T) {
	fleet := httptest.NewServer(daemon.Fleet(2, 200*time.Millisecond))
	defer fleet.Close()
	in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) { c.ScanOnDemandConcurrency = 1 })
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	alice := in.Token(t, "alice", registry.RoleReviewer)
	first, second := submitFleet(t, in, owner, fleet.URL, 0), submitFleet(t, in, owner, fleet.URL, 1)

	done := make(chan response, 1)
	go func() { done <- call(t, "POST", first, alice, map[string]any{}) }()
	time.Sleep(150 * time.Millisecond) // the first scan is waiting on its slow server
	wantRetry(t, call(t, "POST", second, owner, map[string]any{}), "--scan-ondemand-concurrency")
	if r := <-done; r.Status != 200 {
		t.Fatalf("the scan holding the slot: %d %s", r.Status, r.Body)
	}
	if r := call(t, "POST", second, owner, map[string]any{}); r.Status != 200 {
		t.Fatalf("after the slot was free again: %d %s", r.Status, r.Body)
	}
}

// TestScanMergedAndFresh: a request within the cooldown is answered with
// the earlier scan and says so (its id and age); a reviewer or admin may
// ask for a fresh scan, an owner or a host may not.
func TestScanMergedAndFresh(t *testing.T) {
	fleet := httptest.NewServer(daemon.Fleet(1, 0))
	defer fleet.Close()
	in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) { c.ScanCooldown = time.Minute })
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	alice := in.Token(t, "alice", registry.RoleReviewer)
	admin := in.Token(t, "root", registry.RoleAdmin)
	host := in.Token(t, "edge-host", registry.RoleHost)
	url := submitFleet(t, in, owner, fleet.URL, 0)
	scanID := func(r response) any { return r.json(t)["scan"].(map[string]any)["id"] }

	r := call(t, "POST", url, owner, map[string]any{})
	if r.Status != 200 || r.json(t)["merged"] != nil {
		t.Fatalf("the first scan: %d %s, want a new scan, not merged", r.Status, r.Body)
	}
	first := scanID(r)
	time.Sleep(20 * time.Millisecond)
	r = call(t, "POST", url, alice, map[string]any{})
	merged, _ := r.json(t)["merged"].(map[string]any)
	if r.Status != 200 || merged == nil || merged["scanId"] != first || scanID(r) != first || merged["ageSeconds"].(float64) < 0.02 ||
		!strings.Contains(merged["message"].(string), "cooldown") {
		t.Fatalf("a scan within the cooldown: %d %s, want scan %v marked merged with its id and age", r.Status, r.Body, first)
	}
	for _, tok := range []string{alice, admin} {
		r = call(t, "POST", url, tok, map[string]any{"fresh": true})
		if r.Status != 200 || r.json(t)["merged"] != nil || scanID(r) == first {
			t.Fatalf("a fresh scan: %d %s, want a new scan, not merged", r.Status, r.Body)
		}
	}
	for role, tok := range map[string]string{"owner": owner, "host": host} {
		r = call(t, "POST", url, tok, map[string]any{"fresh": true})
		if r.Status != http.StatusForbidden || !strings.Contains(r.message(t), "fresh") {
			t.Fatalf("a fresh scan by the %s: %d %s, want 403", role, r.Status, r.Body)
		}
	}
}
