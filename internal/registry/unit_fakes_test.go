package registry_test

// The fakes and helpers of the TestUnit... tests: drift, quarantine,
// release, lease takeover and the attestation gate, on a real SQLite store,
// a settable clock, a fake live reader and a fake npm fetcher. No MCP
// server runs and nothing sleeps.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/testkit"
	"github.com/mcpreg/mcpreg/pin"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
	"github.com/mcpreg/mcpreg/scan"
	"github.com/mcpreg/mcpreg/signing"
)

// The server the unit tests approve and read, as submitted.
const (
	weather        = "io.github.acme/weather"
	weatherVersion = "1.0.0"
	weatherInfo    = `{"name":"weather","version":"1.0.0"}`
	weatherTools   = `{"tools":[` + forecastTool + ",\n " + alertsTool + "]}"
	forecastTool   = `{"name":"get_forecast","title":"Forecast","description":"Get the forecast for a city.",
  "inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`
	alertsTool = `{"name":"get_alerts","description":"List weather alerts for a state.",
  "inputSchema":{"type":"object","properties":{"state":{"type":"string"}}}}`
)

// unitStart is where every unit test's clock starts.
var unitStart = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// initializeResult is an initialize result announcing serverInfo.
func initializeResult(serverInfo string) string {
	return `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":` + serverInfo + `}`
}

// liveSnapshot is what scan.Reader returns for a server serving tools
// (a tools file) with serverInfo: Tools, ToolsFile and Pins agree, as
// pin.ParseToolsList and pin.Compute reproduce them from the file.
func liveSnapshot(t *testing.T, tools, serverInfo string) *scan.Snapshot {
	t.Helper()
	tl, err := pin.ParseToolsList([]byte(tools), pin.DefaultLimits())
	if err != nil {
		t.Fatalf("fake snapshot: %v", err)
	}
	pins, err := pin.Compute(tl)
	if err != nil {
		t.Fatalf("fake snapshot: %v", err)
	}
	return &scan.Snapshot{ProtocolVersion: "2025-11-25", ServerInfo: json.RawMessage(serverInfo),
		InitializeResult: json.RawMessage(initializeResult(serverInfo)),
		Tools:            tl, ToolsFile: json.RawMessage(tools), Pins: pins, Pages: 1, Lists: 1,
		Listings: []scan.Listing{{Tools: tl, ToolsFile: json.RawMessage(tools), Pins: pins, Pages: 1}}}
}

// fakeReader is a registry.LiveReader serving one canned snapshot at a
// time (none: the server is unreachable), and recording what it was asked
// to read.
type fakeReader struct {
	mu      sync.Mutex
	snap    *scan.Snapshot
	targets []scan.Target
}

var _ registry.LiveReader = (*fakeReader)(nil)

// serve makes the server answer snap from the next read on.
func (f *fakeReader) serve(snap *scan.Snapshot) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.snap = snap
}

func (f *fakeReader) Read(_ context.Context, t scan.Target) (*scan.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.targets = append(f.targets, t)
	if f.snap == nil {
		return &scan.Snapshot{}, errors.New("fake reader: the server serves nothing")
	}
	cp := *f.snap
	return &cp, nil
}

// reads is what the reader was asked to read so far.
func (f *fakeReader) reads() []scan.Target {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]scan.Target(nil), f.targets...)
}

// fetchCall is one call of a fakeNPM.
type fetchCall struct {
	name, version string
	want          attest.Digest
}

// fakeNPM is a registry.NPMFetcher answering with one canned package or
// error, and recording its calls.
type fakeNPM struct {
	mu    sync.Mutex
	pkg   *fetch.Package
	err   error
	calls []fetchCall
}

var _ registry.NPMFetcher = (*fakeNPM)(nil)

// answer makes the next fetches return pkg, err.
func (f *fakeNPM) answer(pkg *fetch.Package, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pkg, f.err = pkg, err
}

func (f *fakeNPM) Fetch(_ context.Context, name, version string, want attest.Digest) (*fetch.Package, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fetchCall{name, version, want})
	return f.pkg, f.err
}

func (f *fakeNPM) fetched() []fetchCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fetchCall(nil), f.calls...)
}

// unitEnv is one fresh SQLite database and the clock of the services
// (replicas) on it.
type unitEnv struct {
	st    *store.Store
	clock *testkit.Clock
}

func newUnitEnv(t *testing.T) *unitEnv {
	t.Helper()
	return &unitEnv{st: storetest.Open(t, store.DialectSQLite), clock: testkit.NewClock(unitStart)}
}

// service is a replica on the env's database and clock, reading live
// through sc (its Replica names it). On-demand scans are never merged
// (no cooldown), so every scan a test asks for reads the fake.
func (e *unitEnv) service(t *testing.T, sc registry.Scanning, opts ...registry.Option) *registry.Services {
	t.Helper()
	key, err := signing.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	lim := registry.DefaultLimits()
	lim.ScanCooldown = 0
	opts = append([]registry.Option{registry.WithClock(e.clock.Now), registry.WithLimits(lim), registry.WithScanning(sc),
		registry.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		registry.WithDiscoverySigner(&registry.DiscoverySigner{Keys: &signing.KeySet{Current: key}})}, opts...)
	svc, err := registry.New(context.Background(), e.st, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// approve submits sub as the owner, with weatherTools and weatherInfo
// unless it carries tools, and approves name@weatherVersion as a reviewer.
func approve(t *testing.T, svc *registry.Services, sub registry.Submission, name string) {
	t.Helper()
	ctx := context.Background()
	if sub.Tools == nil {
		sub.Tools, sub.InitializeResult = []byte(weatherTools), []byte(initializeResult(weatherInfo))
	}
	if _, err := svc.Review.Submit(ctx, owner, sub); err != nil {
		t.Fatalf("submit %s: %v", name, err)
	}
	if _, err := svc.Review.Transition(ctx, reviewer, registry.ActionApprove, name, weatherVersion, "reviewed"); err != nil {
		t.Fatalf("approve %s: %v", name, err)
	}
}

// scanNow scans name@weatherVersion on demand, as a reviewer.
func scanNow(t *testing.T, svc *registry.Services, name string) *mcpregv1.ScanResult {
	t.Helper()
	res, err := svc.Scans.ScanVersion(context.Background(), reviewer, name, weatherVersion, states.TriggerManual)
	if err != nil {
		t.Fatalf("scan %s: %v", name, err)
	}
	return res
}

// versionRow is the stored version name@weatherVersion.
func versionRow(t *testing.T, st *store.Store, name string) *ent.Version {
	t.Helper()
	v, err := st.Client.Version.Query().
		Where(version.HasServerWith(server.Name(name)), version.Version(weatherVersion)).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// resolvable reports whether discovery lists name (a reviewer's view).
func resolvable(t *testing.T, svc *registry.Services, name string) bool {
	t.Helper()
	res, err := svc.Discovery.Resolve(context.Background(), reviewer, registry.ResolveQuery{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Document.Servers) > 0
}
