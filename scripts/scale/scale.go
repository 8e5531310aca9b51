package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpreg/mcpreg/internal/daemon"
	"github.com/mcpreg/mcpreg/internal/ent/upstreamrecord"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/upstream/upstreamtest"
)

type config struct {
	bin, db, syncDB string
	servers         int
	approved        float64
	reps            int
	rounds          int // the operations are measured this many times; the table has each figure's median
}

// op is one operation's latencies over REST, one client.
type op struct {
	name     string
	p50, p99 time.Duration
	n        int
	// gcs is how many garbage collections the service started while the
	// operation ran (summed over the rounds in the table): at fleet scale
	// each marks the whole index, and the requests caught in one are
	// the slow ones.
	gcs int
}

type result struct {
	dialect                     string
	servers, versions, approved int
	generate, startup, warm     time.Duration
	// checkpointed is when the service had signed audit checkpoints over
	// the whole seeded chain (from the start).
	checkpointed    time.Duration
	rssMiB, peakMiB float64
	ops             []op
	rounds          int
	sync            *syncResult
}

type syncResult struct {
	versions, killedAt int
	first, resumed     time.Duration
}

// deepDepth is the depth of the deep list page (or half the list, when
// shorter).
const deepDepth = 50000

func run(c config, log io.Writer) (*result, error) {
	ctx := context.Background()
	res := &result{servers: c.servers}
	st, err := store.Open(ctx, c.db)
	if err != nil {
		return nil, err
	}
	res.dialect = st.DialectName()
	if err := st.MigrateUp(ctx); err != nil {
		_ = st.Close()
		return nil, err
	}
	svc, err := registry.New(ctx, st)
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	t0 := time.Now()
	stats, err := svc.Review.GenerateFleet(ctx, registry.FleetSpec{Servers: c.servers, ApprovedShare: c.approved, Seed: 1,
		Owner: "fleet-owner", Reviewer: "fleet-reviewer", Progress: func(n int) {
			if n%10000 == 0 {
				fmt.Fprintf(log, "seeded %d servers (%s)\n", n, time.Since(t0).Round(time.Second))
			}
		}})
	_ = st.Close()
	if err != nil {
		return nil, err
	}
	res.generate, res.versions, res.approved = time.Since(t0), stats.Versions, stats.Approved
	fmt.Fprintf(log, "seeded %d servers, %d versions (%d approved) in %s\n", stats.Servers, stats.Versions, stats.Approved, res.generate.Round(time.Millisecond))

	dir, err := os.MkdirTemp("", "mcpreg-scale-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if err := os.Chmod(dir, 0o755); err != nil { // the scan user reaches the npm folder below
		return nil, err
	}
	env := daemon.Env(dir, "MCPREG_SCAN_NPM_DIR="+filepath.Join(dir, "npm"), "MCPREG_SCAN_INTERVAL=0")
	tokens := map[string]string{}
	for _, t := range [][]string{{"scale-owner", "owner", "*"}, {"scale-reviewer", "reviewer"}, {"scale-host", "host"}} {
		if tokens[t[1]], err = daemon.Token(ctx, c.bin, dir, env, c.db, t[0], t[1], t[2:]...); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	p, err := daemon.Start(c.bin, dir, env, "scale", "--db", c.db)
	if err != nil {
		return nil, err
	}
	defer func() { _ = p.Stop(30 * time.Second) }()
	res.startup = time.Since(start)
	// The service builds its discovery index in the background after it
	// starts: the first answer that needs it says how long that takes.
	warm := client{base: p.URL, http: &http.Client{Timeout: 10 * time.Minute}}
	t1 := time.Now()
	if code, _, _, err := warm.do("GET", "/v0.1/servers?limit=1", tokens["host"], nil); err != nil {
		return nil, fmt.Errorf("first /v0.1 request: %w", err)
	} else if code != http.StatusOK {
		return nil, fmt.Errorf("first /v0.1 request: status %d", code)
	}
	res.warm = time.Since(t1) + res.startup
	// A seeded fleet has no audit checkpoints yet: the service catches up
	// in rounds after it starts, each replaying the chain since the last.
	// A registry that grew to this size signed them as it went, so the
	// operations are timed after the catch-up, which is reported.
	if err := waitCheckpoints(p.URL, int64(stats.AuditEvents)-int64(stats.AuditEvents)%registry.DefaultCheckpointEvery); err != nil {
		return nil, err
	}
	res.checkpointed = time.Since(start)
	// The deep page's token, walked to once: every round reads that page.
	deep, depth, err := deepToken(client{base: p.URL, http: &http.Client{Timeout: time.Minute}}, tokens["reviewer"], min(deepDepth, res.versions/2))
	if err != nil {
		return nil, err
	}
	var rounds [][]op
	for round := range max(c.rounds, 1) {
		ops, err := measure(p.URL, p.Metrics, tokens, c, round, deep, depth)
		if err != nil {
			return nil, err
		}
		rounds = append(rounds, ops)
	}
	res.ops, res.rounds = medianOps(rounds), len(rounds)
	res.rssMiB, res.peakMiB = memory(p.PID())
	if err := p.Stop(30 * time.Second); err != nil {
		return nil, err
	}
	if c.syncDB != "" {
		if res.sync, err = measureSync(ctx, c, dir, env, log); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// waitCheckpoints waits until the latest signed audit checkpoint covers
// length events (at most 10 minutes).
func waitCheckpoints(base string, length int64) error {
	var last string
	for end := time.Now().Add(10 * time.Minute); time.Now().Before(end); time.Sleep(time.Second) {
		resp, err := http.Get(base + "/.well-known/mcpreg/audit-checkpoint")
		if err != nil {
			return err
		}
		b, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			last = fmt.Sprintf("status %d", resp.StatusCode)
			continue
		}
		// The note's second line is the checkpoint's length.
		lines := strings.SplitN(string(b), "\n", 3)
		if len(lines) < 3 {
			return fmt.Errorf("audit checkpoint: malformed note %q", b)
		}
		n, err := strconv.ParseInt(lines[1], 10, 64)
		if err != nil {
			return fmt.Errorf("audit checkpoint: length %q: %w", lines[1], err)
		}
		if n >= length {
			return nil
		}
		last = fmt.Sprintf("at %d", n)
	}
	return fmt.Errorf("audit checkpoints did not reach %d events within 10 minutes (last: %s)", length, last)
}

// memory is the process's resident set and its peak, in MiB.
func memory(pid int) (rss, peak float64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return rss, peak
}

type client struct {
	base string
	http *http.Client
}

func (cl client) do(method, path, token string, body any, header ...string) (int, []byte, http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, cl.base+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

// timed runs f n times and keeps its latencies; a request answering other
// than want fails the run.
func timed(name string, n int, f func(i int) (int, error), want int) (op, error) {
	ds := make([]time.Duration, 0, n)
	for i := range n {
		t := time.Now()
		code, err := f(i)
		d := time.Since(t)
		if err != nil {
			return op{}, fmt.Errorf("%s: %w", name, err)
		}
		if code != want {
			return op{}, fmt.Errorf("%s: status %d, want %d", name, code, want)
		}
		ds = append(ds, d)
	}
	return percentiles(name, ds), nil
}

func percentiles(name string, ds []time.Duration) op {
	slices.Sort(ds)
	n := len(ds)
	return op{name: name, n: n, p50: ds[n/2], p99: ds[min(n-1, n*99/100)]}
}

// medianOps is each operation's median p50 and median p99 over rounds, and
// its collections in all of them (each round measures the same operations
// in the same order).
func medianOps(rounds [][]op) []op {
	out := slices.Clone(rounds[0])
	for i := range out {
		var p50s, p99s []time.Duration
		out[i].gcs = 0
		for _, r := range rounds {
			p50s, p99s, out[i].gcs = append(p50s, r[i].p50), append(p99s, r[i].p99), out[i].gcs+r[i].gcs
		}
		slices.Sort(p50s)
		slices.Sort(p99s)
		out[i].p50, out[i].p99 = p50s[len(p50s)/2], p99s[len(p99s)/2]
	}
	return out
}

// measure times every operation once (round numbers the new servers'
// names, so each round submits servers of its own; deep is the page token
// at depth in the version list).
func measure(base, metrics string, tokens map[string]string, c config, round int, deep string, depth int) ([]op, error) {
	cl := client{base: base, http: &http.Client{Timeout: time.Minute}}
	owner, reviewer, host := tokens["owner"], tokens["reviewer"], tokens["host"]
	const tools = `{"tools":[{"name":"scale_echo","description":"Echo text back for the scale run.","inputSchema":{"type":"object"}}]}`
	newName := func(i int) string { return fmt.Sprintf("io.github.scale/new-%d-%06d", round, i) }
	var ops []op
	// Each operation's collections are those counted since the previous
	// operation ended.
	gcAt, err := collections(metrics)
	if err != nil {
		return nil, err
	}
	stamp := func(o op) (op, error) {
		n, err := collections(metrics)
		o.gcs, gcAt = n-gcAt, n
		return o, err
	}
	add := func(o op, err error) error {
		if err == nil {
			o, err = stamp(o)
			ops = append(ops, o)
		}
		return err
	}
	// Submit and approve alternate, as a review queue does: each approval
	// changes what the next submission's shadowing check reads.
	subs, apps := make([]time.Duration, 0, c.reps), make([]time.Duration, 0, c.reps)
	for i := range c.reps {
		sj := strings.Replace(string(registry.FleetServerJSON(1, "1.0.0")), registry.FleetServerName(1), newName(i), 1)
		t := time.Now()
		code, body, _, err := cl.do("POST", "/v1/versions", owner, map[string]any{"serverJson": sj, "tools": tools})
		if err != nil {
			return nil, fmt.Errorf("submit: %w", err)
		} else if code != http.StatusOK {
			return nil, fmt.Errorf("submit: %d %s", code, body)
		}
		subs = append(subs, time.Since(t))
		t = time.Now()
		code, body, _, err = cl.do("POST", "/v1/servers/"+newName(i)+"/versions/1.0.0/approve", reviewer, map[string]any{"reason": "scale"})
		if err != nil {
			return nil, fmt.Errorf("approve: %w", err)
		} else if code != http.StatusOK {
			return nil, fmt.Errorf("approve: %d %s", code, body)
		}
		apps = append(apps, time.Since(t))
	}
	sub, err := stamp(percentiles("submit", subs))
	if err != nil {
		return nil, err
	}
	app := percentiles("approve", apps)
	app.gcs = sub.gcs // the same requests' window
	ops = append(ops, sub, app)
	if err := add(timed("get version", c.reps, func(i int) (int, error) {
		k := (i * 7919) % c.servers
		code, _, _, err := cl.do("GET", "/v1/servers/"+registry.FleetServerName(k)+"/versions/1.0.0", reviewer, nil)
		return code, err
	}, 200)); err != nil {
		return nil, err
	}
	if err := add(timed("list, first page", c.reps, func(int) (int, error) {
		code, _, _, err := cl.do("GET", "/v1/versions?pageSize=30", reviewer, nil)
		return code, err
	}, 200)); err != nil {
		return nil, err
	}
	if err := add(timed(fmt.Sprintf("list, page at depth %d", depth), c.reps, func(int) (int, error) {
		code, _, _, err := cl.do("GET", "/v1/versions?pageSize=30&pageToken="+url.QueryEscape(deep), reviewer, nil)
		return code, err
	}, 200)); err != nil {
		return nil, err
	}
	if err := add(timed("/v0.1/servers?limit=30", c.reps, func(int) (int, error) {
		code, _, _, err := cl.do("GET", "/v0.1/servers?limit=30", host, nil)
		return code, err
	}, 200)); err != nil {
		return nil, err
	}
	cursor := url.QueryEscape(registry.FleetServerName(c.servers/2) + ":1.0.0")
	if err := add(timed("/v0.1/servers?limit=30, deep cursor", c.reps, func(int) (int, error) {
		code, _, _, err := cl.do("GET", "/v0.1/servers?limit=30&cursor="+cursor, host, nil)
		return code, err
	}, 200)); err != nil {
		return nil, err
	}
	var etag string
	if err := add(timed("resolve, first page", c.reps, func(int) (int, error) {
		code, _, h, err := cl.do("GET", "/v1/discovery/servers?pageSize=100", host, nil)
		etag = h.Get("ETag")
		return code, err
	}, 200)); err != nil {
		return nil, err
	}
	if err := add(timed("resolve, 304", c.reps, func(int) (int, error) {
		code, _, _, err := cl.do("GET", "/v1/discovery/servers?pageSize=100", host, nil, "If-None-Match", etag)
		return code, err
	}, http.StatusNotModified)); err != nil {
		return nil, err
	}
	return ops, nil
}

// collections is how many garbage collections the service has run, from
// its metrics (go_gc_duration_seconds_count).
func collections(metrics string) (int, error) {
	resp, err := http.Get(metrics + "/metrics")
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "go_gc_duration_seconds_count "); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("%s/metrics has no go_gc_duration_seconds_count", metrics)
}

// deepToken walks the version list to depth (pages of 200) and returns
// the page token there.
func deepToken(cl client, token string, depth int) (string, int, error) {
	next, seen := "", 0
	for seen < depth {
		path := "/v1/versions?pageSize=200"
		if next != "" {
			path += "&pageToken=" + url.QueryEscape(next)
		}
		code, body, _, err := cl.do("GET", path, token, nil)
		if err != nil {
			return "", 0, fmt.Errorf("walking the list: %w", err)
		}
		if code != http.StatusOK {
			return "", 0, fmt.Errorf("walking the list: status %d", code)
		}
		var page struct {
			Versions      []json.RawMessage `json:"versions"`
			NextPageToken string            `json:"nextPageToken"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return "", 0, err
		}
		seen += len(page.Versions)
		if page.NextPageToken == "" {
			break
		}
		next = page.NextPageToken
	}
	return next, seen, nil
}

// measureSync imports the same fleet from a fake upstream into an empty
// database with mcpregd upstream sync, SIGKILLs the pass halfway and
// resumes it.
func measureSync(ctx context.Context, c config, dir string, env []string, log io.Writer) (*syncResult, error) {
	f := upstreamtest.Start()
	defer f.Close()
	total := 0
	for i := range c.servers {
		for k := range 1 + i%4 {
			ver := fmt.Sprintf("1.%d.0", k)
			f.Put(upstreamtest.Server{Name: registry.FleetServerName(i), Version: ver, JSON: registry.FleetServerJSON(i, ver)})
			total++
		}
	}
	env = append(env, "MCPREG_REPLICA=scale-sync")
	if out, err := daemon.Admin(ctx, c.bin, dir, env, "", "upstream", "add", "fleet", "--db", c.syncDB, "--url", f.URL,
		"--namespace", "*", "--allow", "127.0.0.1", "--tools", "none", "--interval", "0"); err != nil {
		return nil, fmt.Errorf("upstream add: %w\n%s", err, out)
	}
	st, err := store.Open(ctx, c.syncDB)
	if err != nil {
		return nil, err
	}
	defer func() { _ = st.Close() }()
	imported := func() int {
		n, _ := st.Client.UpstreamRecord.Query().Where(upstreamrecord.VersionIDNotNil()).Count(ctx)
		return n
	}
	res := &syncResult{versions: total}
	t0 := time.Now()
	cmd := exec.Command(c.bin, "upstream", "sync", "fleet", "--db", c.syncDB)
	cmd.Env, cmd.Dir = env, dir
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for imported() < total/2 {
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	res.first, res.killedAt = time.Since(t0), imported()
	fmt.Fprintf(log, "sync killed after %s with %d of %d versions imported\n", res.first.Round(time.Millisecond), res.killedAt, total)
	t1 := time.Now()
	if out, err := daemon.Admin(ctx, c.bin, dir, env, "", "upstream", "sync", "fleet", "--db", c.syncDB); err != nil {
		return nil, fmt.Errorf("resumed sync: %w\n%s", err, out)
	}
	res.resumed = time.Since(t1)
	if got := imported(); got != total {
		return nil, fmt.Errorf("after the resumed sync %d of %d versions are imported", got, total)
	}
	return res, nil
}

func (r *result) markdown(w io.Writer) {
	fmt.Fprintf(w, "%s, %d servers, %d versions (%d approved): seeded in %s; mcpregd start-up %s to /healthz, %s to the first /v0.1 answer (discovery index built), %s to audit checkpoints over the seeded chain; RSS %.0f MiB (peak %.0f MiB)\n\n",
		r.dialect, r.servers, r.versions, r.approved, r.generate.Round(time.Millisecond), r.startup.Round(time.Millisecond),
		r.warm.Round(time.Millisecond), r.checkpointed.Round(time.Millisecond), r.rssMiB, r.peakMiB)
	fmt.Fprintf(w, "Each figure is the median of %d rounds of n requests.\n\n", r.rounds)
	fmt.Fprintf(w, "Collections: how many garbage collections the service started while the operation ran, in all %d rounds.\n\n", r.rounds)
	fmt.Fprintln(w, "| operation | n | p50 | p99 | collections |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, o := range r.ops {
		fmt.Fprintf(w, "| %s | %d | %s | %s | %d |\n", o.name, o.n, o.p50.Round(10*time.Microsecond), o.p99.Round(10*time.Microsecond), o.gcs)
	}
	if s := r.sync; s != nil {
		fmt.Fprintf(w, "\nsync of %d versions from a fake upstream: killed (SIGKILL) after %s at %d imported, resumed pass %s; %.0f versions/s overall\n",
			s.versions, s.first.Round(time.Millisecond), s.killedAt, s.resumed.Round(time.Millisecond), float64(s.versions)/(s.first+s.resumed).Seconds())
	}
}
