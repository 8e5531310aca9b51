package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/daemon"
)

// Bounds of the crash test.
const (
	crashSubmissions = 120 // submissions in the burst
	crashWorkers     = 8   // concurrent submitters
	crashAfterAcks   = 30  // SIGKILL once this many are acknowledged
	crashStart       = 30 * time.Second
)

// TestSQLiteCrashKeepsAcknowledgedSubmissions SIGKILLs `mcpregd serve` on
// an SQLite file in the middle of a burst of REST submissions, each with its
// own idempotency key, and restarts it on the same file. Every acknowledged
// (200) submission is there exactly once with the answer it was given;
// retrying every submission with its key yields one version each (the
// unacknowledged ones that did commit return their original); the audit
// chain verifies, before and after the restart, with exactly one event per
// version.
func TestSQLiteCrashKeepsAcknowledgedSubmissions(t *testing.T) {
	bin := buildDaemon(t)
	start := time.Now()
	defer func() { t.Logf("crash, restart and checks took %s", time.Since(start).Round(time.Millisecond)) }()
	dir := t.TempDir()
	env := daemon.Env(dir)
	db := "sqlite://" + filepath.Join(dir, "reg.db")
	token, err := daemon.Token(t.Context(), bin, dir, env, db, "o", "owner", "io.github.crash")
	if err != nil {
		t.Fatal(err)
	}
	baseline := auditVerify(t, bin, dir, env, db)

	d := serve(t, bin, dir, env, db)
	subs := make([]*crashSubmission, crashSubmissions)
	for i := range subs {
		subs[i] = newCrashSubmission(i)
	}
	inFlight := burstUntilKilled(t, d, token, subs)
	acked := 0
	for _, s := range subs {
		if s.ackedAt != "" {
			acked++
		}
	}
	t.Logf("killed with %d of %d submissions acknowledged and %d in flight", acked, len(subs), inFlight)
	if got := auditVerify(t, bin, dir, env, db); got < baseline+int64(acked) || got > baseline+crashSubmissions {
		t.Fatalf("after the crash: %d audit events, want %d before serving plus %d acknowledged up to plus %d sent",
			got, baseline, acked, crashSubmissions)
	}

	d = serve(t, bin, dir, env, db)
	for _, s := range subs {
		if s.ackedAt != "" {
			if got := getVersion(t, d.URL, token, s); got != s.ackedAt {
				t.Errorf("acknowledged %s@%s: after restart submitted at %q, acknowledged %q", s.name, s.version, got, s.ackedAt)
			}
		}
	}
	t.Logf("%d versions stored after the restart (%d acknowledged)", len(listVersions(t, d.URL, token)), acked)
	for _, s := range subs {
		code, v, err := s.post(d.URL, token)
		if err != nil || code != http.StatusOK {
			t.Fatalf("retry of %s@%s (key %s): %d %v", s.name, s.version, s.key, code, err)
		}
		if s.ackedAt != "" && v.SubmittedAt != s.ackedAt {
			t.Errorf("retry of acknowledged %s@%s: submitted at %s, acknowledged %s", s.name, s.version, v.SubmittedAt, s.ackedAt)
		}
	}
	checkEachVersionOnce(t, d.URL, token, subs)
	if err := d.Stop(crashStart); err != nil {
		t.Errorf("mcpregd exit after SIGTERM: %v\n%s", err, d.Logs)
	}
	if got := auditVerify(t, bin, dir, env, db); got != baseline+crashSubmissions {
		t.Errorf("audit events: %d, want %d before serving plus one per submission (%d)", got, baseline, crashSubmissions)
	}
}

// crashSubmission is one submission of the burst and what became of it.
type crashSubmission struct {
	key, name, version string
	body               []byte
	ackedAt            string // submittedAt of the 200 answer; empty when unacknowledged
}

func newCrashSubmission(i int) *crashSubmission {
	s := &crashSubmission{key: fmt.Sprintf("crash-%03d", i), name: fmt.Sprintf("io.github.crash/srv-%d", i%8), version: fmt.Sprintf("1.0.%d", i)}
	sj := fmt.Sprintf(`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
 "name":%q,"description":"Crash test server","version":%q,"remotes":[{"type":"streamable-http","url":"https://mcp.example.com/mcp"}]}`, s.name, s.version)
	tools := fmt.Sprintf(`{"tools":[{"name":"echo_%d","description":"Echo text back.","inputSchema":{"type":"object"}}]}`, i)
	s.body, _ = json.Marshal(map[string]string{"serverJson": sj, "tools": tools})
	return s
}

// restVersion is the part of a REST Version the test reads.
type restVersion struct {
	Name, Version, SubmittedAt string
}

var crashClient = &http.Client{Timeout: 10 * time.Second}

// post submits s with its idempotency key. err is a transport failure (no
// answer); otherwise code is the status and v the decoded 200 answer.
func (s *crashSubmission) post(base, token string) (int, *restVersion, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/v1/versions", bytes.NewReader(s.body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", s.key)
	resp, err := crashClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err // the answer was cut off: not acknowledged
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil, fmt.Errorf("answer %s", body)
	}
	var v restVersion
	if err := json.Unmarshal(body, &v); err != nil {
		return 0, nil, fmt.Errorf("decode %s: %w", body, err)
	}
	if v.Name != s.name || v.Version != s.version || v.SubmittedAt == "" {
		return 0, nil, fmt.Errorf("answer %s is not %s@%s", body, s.name, s.version)
	}
	return resp.StatusCode, &v, nil
}

// burstUntilKilled sends subs from crashWorkers goroutines and SIGKILLs the
// daemon once crashAfterAcks are acknowledged. Before the kill every answer
// must be a 200. It returns how many requests were in flight at the kill.
func burstUntilKilled(t *testing.T, d *daemon.Proc, token string, subs []*crashSubmission) int64 {
	t.Helper()
	var (
		next, acks, inFlight atomic.Int64
		killed               atomic.Bool
		enough               = make(chan struct{})
		once                 sync.Once
		wg                   sync.WaitGroup
	)
	failures := make(chan string, len(subs))
	for range crashWorkers {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(subs)); i = next.Add(1) - 1 {
				s := subs[i]
				inFlight.Add(1)
				code, v, err := s.post(d.URL, token)
				inFlight.Add(-1)
				switch {
				case code == http.StatusOK:
					s.ackedAt = v.SubmittedAt
					if acks.Add(1) >= crashAfterAcks {
						once.Do(func() { close(enough) })
					}
				case !killed.Load():
					failures <- fmt.Sprintf("%s@%s before the kill: %d %v", s.name, s.version, code, err)
				}
			}
		})
	}
	var atKill int64
	select {
	case <-enough:
		killed.Store(true)
		atKill = inFlight.Load()
		if !d.Running() {
			t.Fatalf("mcpregd exited before the kill: %s", d.Logs)
		}
		d.Kill()
	case <-time.After(crashStart):
		t.Fatalf("fewer than %d submissions acknowledged within %s", crashAfterAcks, crashStart)
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	if t.Failed() {
		t.FailNow()
	}
	return atKill
}

func getVersion(t *testing.T, base, token string, s *crashSubmission) string {
	t.Helper()
	var v restVersion
	getJSON(t, base+"/v1/servers/"+s.name+"/versions/"+s.version, token, &v)
	return v.SubmittedAt
}

// checkEachVersionOnce lists every version: each submission exactly once,
// nothing else.
func checkEachVersionOnce(t *testing.T, base, token string, subs []*crashSubmission) {
	t.Helper()
	seen := listVersions(t, base, token)
	for _, s := range subs {
		if n := seen[s.name+"@"+s.version]; n != 1 {
			t.Errorf("%s@%s listed %d times, want once", s.name, s.version, n)
		}
	}
	if len(seen) != len(subs) {
		t.Errorf("%d versions listed, want %d", len(seen), len(subs))
	}
}

// listVersions counts the listed versions by name@version, all pages.
func listVersions(t *testing.T, base, token string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	for page := ""; ; {
		var list struct {
			Versions      []restVersion
			NextPageToken string
		}
		getJSON(t, base+"/v1/versions?pageSize=50&pageToken="+url.QueryEscape(page), token, &list)
		for _, v := range list.Versions {
			seen[v.Name+"@"+v.Version]++
		}
		if page = list.NextPageToken; page == "" {
			return seen
		}
	}
}

func getJSON(t *testing.T, u, token string, v any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := crashClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

// serve starts `mcpregd serve` on db (port 0, addresses from its JSON log,
// /healthz answering). The test's end kills it if the test did not stop it.
func serve(t *testing.T, bin, dir string, env []string, db string) *daemon.Proc {
	t.Helper()
	p, err := daemon.Start(bin, dir, env, "crash", "--db", db,
		"--discovery-key", filepath.Join(dir, "discovery.key"), "--scan-interval", "0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p
}

var auditOK = regexp.MustCompile(`audit chain ok: (\d+) events`)

// auditVerify runs `mcpregd audit verify` (which must exit 0) and returns
// the number of events it verified.
func auditVerify(t *testing.T, bin, dir string, env []string, db string) int64 {
	t.Helper()
	out, err := daemon.Admin(t.Context(), bin, dir, env, "", "audit", "verify", "--db", db)
	if err != nil {
		t.Fatalf("mcpregd audit verify: %v\n%s", err, out)
	}
	m := auditOK.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("audit verify says:\n%s", out)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}
