package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/daemon"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/auditevent"
	"github.com/mcpreg/mcpreg/internal/ent/scan"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

var bins struct{ daemon, cli string }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpreg-daemon-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.daemon, bins.cli, err = daemon.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// fleet serves n slow MCP servers: a scan takes a few delays, so a replica
// killed at random is likely in the middle of one.
func fleet(t *testing.T, n int, delay time.Duration) string {
	ts := httptest.NewServer(daemon.Fleet(n, delay))
	t.Cleanup(ts.Close)
	return ts.URL
}

// client talks to the replicas; a request whose replica is gone (the
// connection fails) is sent to the next one, as a load balancer would.
type client struct {
	t    *testing.T
	reps []*daemon.Proc
	http *http.Client
	// redirected counts requests sent again because a replica was gone.
	redirected atomic.Int64
}

type reply struct {
	status int
	body   []byte
	from   string
}

// do sends one request to replica i and reports a transport failure as
// status 0.
func (c *client) do(i int, method, path, token string, body any, header ...string) reply {
	p := c.reps[i%len(c.reps)]
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, p.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	for k := 0; k+1 < len(header); k += 2 {
		req.Header.Set(header[k], header[k+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return reply{from: p.Name}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, body: raw, from: p.Name}
}

// retry sends the request to replica i, then to the others in turn while
// replicas are unreachable.
func (c *client) retry(i int, method, path, token string, body any, header ...string) reply {
	var r reply
	for k := range 2 * len(c.reps) {
		if r = c.do(i+k, method, path, token, body, header...); r.status != 0 {
			return r
		}
		c.redirected.Add(1)
	}
	return r
}

// TestThreeReplicasOnPostgres is issue 8's replica scenario with real
// processes: three mcpregd replicas on one PostgreSQL database (migrated
// once by `mcpregd migrate up`, served with --migrate=false) share a fleet
// of slow MCP servers under a 1s scan schedule while clients submit,
// approve (two reviewers racing on some versions), quarantine (racing
// approval on some) and resolve through all of them. One replica is killed
// with SIGKILL while it scans. Afterwards: every acknowledged write is
// there exactly once, the audit chain verifies, no version was ever scanned
// by two replicas at once, and the killed replica's scans were abandoned
// and done again by the others.
func TestThreeReplicasOnPostgres(t *testing.T) {
	if !hasPostgres(t) {
		t.Skip("PostgreSQL not configured (storetest announced it)")
	}
	ctx := t.Context()
	dsn := storetest.EmptyDSN(t, "postgres")
	dir := t.TempDir()
	env := daemon.Env(dir)
	if out, err := daemon.Admin(ctx, bins.daemon, dir, env, "", "migrate", "up", "--db", dsn); err != nil {
		t.Fatalf("migrate up: %v\n%s", err, out)
	}
	mustToken := func(name, role string, ns ...string) string {
		tok, err := daemon.Token(ctx, bins.daemon, dir, env, dsn, name, role, ns...)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	owner := mustToken("cluster-ci", "owner", "io.github.cluster")
	reviewers := []string{mustToken("alice", "reviewer"), mustToken("bob", "reviewer")}
	host := mustToken("laptop", "host")

	const servers = 30
	base := fleet(t, servers, 60*time.Millisecond)
	key := filepath.Join(dir, "discovery.key")
	if out, err := daemon.Admin(ctx, bins.daemon, dir, env, "", "discovery", "keygen", "--out", key); err != nil {
		t.Fatalf("discovery keygen: %v\n%s", err, out)
	}
	var reps []*daemon.Proc
	for i := range 3 {
		name := fmt.Sprintf("r%d", i)
		p, err := daemon.Start(bins.daemon, dir, env, name, "--db", dsn, "--migrate=false", "--replica", name,
			"--discovery-key", key, "--scan-allow-hosts", "127.0.0.1/32", "--scan-interval", "1s",
			"--scan-concurrency", "3", "--scan-lease-ttl", "2s", "--scan-cooldown", "0", "--scan-deadline", "10s")
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, p)
		t.Cleanup(func() {
			if err := p.Stop(20 * time.Second); err != nil {
				t.Errorf("%s: %v", p.Name, err)
			}
			if t.Failed() {
				t.Logf("%s log (last 6 KB):\n%s", p.Name, tail(p.Logs.String(), 6<<10))
			}
		})
	}
	c := &client{t: t, reps: reps, http: &http.Client{Timeout: 30 * time.Second}}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	db := st.Client

	// Resolvers read through every replica the whole time; only r2, once
	// it is being killed, may fail to answer.
	var killing atomic.Bool
	stopResolve := make(chan struct{})
	var resolves, resolveFailures atomic.Int64
	var resolveErr atomic.Value
	var rwg sync.WaitGroup
	for i := range 3 {
		rwg.Go(func() {
			for {
				select {
				case <-stopResolve:
					return
				default:
				}
				r := c.do(i, "GET", "/v1/discovery/servers", host, nil)
				switch {
				case r.status == 200:
					resolves.Add(1)
				case r.status == 0 && i == 2 && killing.Load():
					time.Sleep(20 * time.Millisecond) // the killed replica
				default:
					resolveFailures.Add(1)
					resolveErr.Store(fmt.Sprintf("%s: %d %s", r.from, r.status, r.body))
				}
			}
		})
	}

	// Writers: submit every server (live: each submission reads it), then
	// approve it; on every third, both reviewers approve at once through
	// different replicas; on every fifth, a quarantine races the approval.
	type outcome struct {
		submitted, approveOK, quarOK int
		quarTried                    bool
	}
	outcomes := make([]outcome, servers)
	var next atomic.Int64
	var wwg sync.WaitGroup
	for w := range 6 {
		wwg.Go(func() {
			for i := int(next.Add(1)) - 1; i < servers; i = int(next.Add(1)) - 1 {
				name := fmt.Sprintf("io.github.cluster/s-%02d", i)
				sj := daemon.FleetServerJSON(name, base, i)
				r := c.retry(w+i, "POST", "/v1/versions", owner, map[string]any{"serverJson": sj, "live": true},
					"Idempotency-Key", fmt.Sprintf("submit-%d", i))
				if r.status != 200 {
					t.Errorf("submit %s: %d %s (%s)", name, r.status, r.body, r.from)
					continue
				}
				outcomes[i].submitted++
				path := "/v1/servers/" + name + "/versions/1.0.0/"
				var dwg sync.WaitGroup
				var mu sync.Mutex
				decide := func(rep int, action, token string) {
					r := c.do(rep, "POST", path+action, token, map[string]any{"reason": "cluster test"})
					mu.Lock()
					defer mu.Unlock()
					switch {
					case r.status == 200 && action == "approve":
						outcomes[i].approveOK++
					case r.status == 200:
						outcomes[i].quarOK++
					case r.status == http.StatusConflict || r.status == 0:
						// lost the race (or the replica died: unknown)
					default:
						t.Errorf("%s %s on %s: %d %s", action, name, r.from, r.status, r.body)
					}
				}
				dwg.Go(func() { decide(i, "approve", reviewers[i%2]) })
				if i%3 == 0 {
					dwg.Go(func() { decide(i+1, "approve", reviewers[(i+1)%2]) })
				}
				if i%5 == 0 {
					outcomes[i].quarTried = true
					dwg.Go(func() { decide(i+2, "quarantine", reviewers[(i+1)%2]) })
				}
				dwg.Wait()
			}
		})
	}

	// Kill r2 while it is scanning, once writes are under way.
	deadline := time.Now().Add(30 * time.Second)
	for {
		running, err := db.Scan.Query().Where(scan.Replica("r2"), scan.Outcome(string(states.OutcomeRunning))).IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(running) > 0 && next.Load() >= 8 {
			killing.Store(true)
			reps[2].Kill()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("r2 never scanned while writes were under way")
		}
		time.Sleep(10 * time.Millisecond)
	}
	killedAt := time.Now()
	wwg.Wait()
	// The running scans of r2 as seen once it is dead (the poll above may
	// have missed one started just before the kill).
	killedScans, err := db.Scan.Query().Where(scan.Replica("r2"), scan.Or(scan.Outcome(string(states.OutcomeRunning)), scan.ErrorKind(string(states.ErrorKindAbandoned)))).IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The others take r2's scans over once its leases expire (2s).
	takeover := time.Now().Add(20 * time.Second)
	for {
		n, err := db.Scan.Query().Where(scan.Replica("r2"), scan.Outcome(string(states.OutcomeRunning))).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(takeover) {
			t.Fatalf("%d scans of the killed replica still running %s after the kill", n, time.Since(killedAt))
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, id := range killedScans {
		sc := db.Scan.GetX(ctx, id)
		later := time.Now().Add(15 * time.Second)
		for {
			n, err := db.Scan.Query().Where(scan.VersionID(sc.VersionID), scan.IDGT(id), scan.ReplicaIn("r0", "r1"),
				scan.OutcomeIn(string(states.OutcomeMatch), string(states.OutcomeDrift))).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Now().After(later) {
				t.Fatalf("scan %d of the killed replica (version %d) was not done again by another replica", id, sc.VersionID)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	close(stopResolve)
	rwg.Wait()
	t.Logf("killed r2 with %d scans running; %d resolves answered; %d submissions sent again to another replica",
		len(killedScans), resolves.Load(), c.redirected.Load())
	if n := resolveFailures.Load(); n > 0 {
		t.Errorf("%d resolves failed on live replicas, e.g. %v", n, resolveErr.Load())
	}
	// Stop the survivors: their running scans finish and hand back leases.
	for _, p := range reps[:2] {
		if err := p.Stop(20 * time.Second); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
	}

	checkWritesOnce(t, ctx, db, servers, func(i int) (submitted, approveOK, quarOK int, quarTried bool) {
		o := outcomes[i]
		return o.submitted, o.approveOK, o.quarOK, o.quarTried
	})
	for _, id := range killedScans {
		if sc := db.Scan.GetX(ctx, id); sc.Outcome != string(states.OutcomeError) || sc.ErrorKind != string(states.ErrorKindAbandoned) {
			t.Errorf("killed replica's scan %d: outcome %s/%s, want error/abandoned", id, sc.Outcome, sc.ErrorKind)
		}
	}
	checkNoOverlappingScans(t, ctx, db)
	if out, err := daemon.Admin(ctx, bins.daemon, dir, env, "", "audit", "verify", "--db", dsn); err != nil {
		t.Fatalf("audit verify: %v\n%s", err, out)
	} else {
		t.Logf("audit verify: %s", bytes.TrimSpace([]byte(out)))
	}
}

// checkWritesOnce compares the database with what the clients were told.
func checkWritesOnce(t *testing.T, ctx context.Context, db *ent.Client, servers int, told func(int) (int, int, int, bool)) {
	t.Helper()
	for i := range servers {
		name := fmt.Sprintf("io.github.cluster/s-%02d", i)
		subject := name + "@1.0.0"
		submitted, approveOK, quarOK, quarTried := told(i)
		vs, err := db.Version.Query().Where(version.HasServerWith(server.Name(name))).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if submitted == 1 && len(vs) != 1 {
			t.Errorf("%s: acknowledged once, %d versions stored", name, len(vs))
			continue
		}
		count := func(action string) int {
			return db.AuditEvent.Query().Where(auditevent.Subject(subject), auditevent.Action(action)).CountX(ctx)
		}
		if n := count("version.submit"); n != submitted {
			t.Errorf("%s: %d submit events for %d acknowledged submission", name, n, submitted)
		}
		approvals, quarantines := count("version.approve"), count("version.quarantine")
		if approveOK > 1 || approvals > 1 {
			t.Errorf("%s: approved %d times (%d events): four-eyes and states must allow one", name, approveOK, approvals)
		}
		if approveOK == 1 && approvals != 1 {
			t.Errorf("%s: acknowledged approval, %d approve events", name, approvals)
		}
		if quarOK > 0 && (approvals != 1 || quarantines != 1) {
			t.Errorf("%s: quarantine acknowledged but %d approve and %d quarantine events", name, approvals, quarantines)
		}
		if !quarTried && quarantines != 0 {
			t.Errorf("%s: quarantined without anybody asking", name)
		}
		if len(vs) == 1 {
			want := version.StatePendingReview
			if approvals == 1 {
				want = version.StateApproved
			}
			if quarantines == 1 {
				want = version.StateQuarantined
			}
			if vs[0].State != want {
				t.Errorf("%s: state %s after %d approvals and %d quarantines", name, vs[0].State, approvals, quarantines)
			}
		}
	}
}

// checkNoOverlappingScans fails when two scans of one version ran at once.
func checkNoOverlappingScans(t *testing.T, ctx context.Context, db *ent.Client) {
	t.Helper()
	scans, err := db.Scan.Query().Order(ent.Asc(scan.FieldVersionID), ent.Asc(scan.FieldStartedAt)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	replicasSeen := map[string]int{}
	for k, sc := range scans {
		replicasSeen[sc.Replica]++
		if sc.FinishedAt == nil {
			t.Errorf("scan %d (%s) never finished", sc.ID, sc.Replica)
			continue
		}
		if k > 0 && scans[k-1].VersionID == sc.VersionID && sc.StartedAt.Before(*scans[k-1].FinishedAt) {
			prev := scans[k-1]
			t.Errorf("version %d: scan %d on %s started at %s, before scan %d on %s finished at %s",
				sc.VersionID, sc.ID, sc.Replica, sc.StartedAt.Format(time.StampMicro), prev.ID, prev.Replica, prev.FinishedAt.Format(time.StampMicro))
		}
	}
	t.Logf("%d scans by replica: %v", len(scans), replicasSeen)
	if len(replicasSeen) < 3 {
		t.Errorf("scans by %v: want every replica to have scanned", replicasSeen)
	}
}

func hasPostgres(t *testing.T) bool {
	for _, d := range storetest.Dialects(t) {
		if d == "postgres" {
			return true
		}
	}
	return false
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
