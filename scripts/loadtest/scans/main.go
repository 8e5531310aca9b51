// Command scans measures scan throughput with 1 and with 3 replicas on one
// database: it serves a fleet of fixture MCP servers (Go SDK, Streamable
// HTTP, loopback), submits and approves one version per server, then for
// each replica count runs the replicas with a schedule that keeps every
// version due and counts the scheduled scans they finish in a window
// (mcpreg_scans_total summed over the replicas' metrics).
//
//	go run ./scripts/loadtest/scans -db postgres://USER:PASS@127.0.0.1:5432/EMPTYDB -servers 500
//
// The database should be empty (it is migrated and filled). It is a
// development tool, not part of the service.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpreg/mcpreg/internal/daemon"
)

func main() {
	db := flag.String("db", "", "empty database (PostgreSQL DSN, or sqlite://FILE)")
	servers := flag.Int("servers", 500, "fixture servers")
	delay := flag.Duration("delay", 0, "time each fixture server takes per request (network stand-in)")
	concurrency := flag.Int("concurrency", 16, "scans at once per replica")
	window := flag.Duration("window", 20*time.Second, "measuring window per replica count")
	counts := flag.String("replicas", "1,3", "replica counts to measure")
	flag.Parse()
	if *db == "" {
		log.Fatal("-db is required")
	}
	if err := run(*db, *servers, *delay, *concurrency, *window, *counts); err != nil {
		log.Fatal(err)
	}
}

func run(db string, servers int, delay time.Duration, concurrency int, window time.Duration, counts string) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "mcpreg-scans-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bin, _, err := daemon.Build(dir)
	if err != nil {
		return err
	}
	env := daemon.Env(dir)
	if out, err := daemon.Admin(ctx, bin, dir, env, "", "migrate", "up", "--db", db); err != nil {
		return fmt.Errorf("migrate: %w\n%s", err, out)
	}
	owner, err := daemon.Token(ctx, bin, dir, env, db, "scans-owner", "owner", "io.github.scans")
	if err != nil {
		return err
	}
	reviewer, err := daemon.Token(ctx, bin, dir, env, db, "scans-reviewer", "reviewer")
	if err != nil {
		return err
	}
	fl := httptest.NewServer(daemon.Fleet(servers, delay))
	defer fl.Close()
	common := []string{"--db", db, "--migrate=false", "--discovery-key", filepath.Join(dir, "d.key"),
		"--scan-allow-hosts", "127.0.0.1/32", "--scan-cooldown", "0"}

	seeder, err := daemon.Start(bin, dir, env, "seed", append(common, "--scan-interval", "0")...)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := seed(seeder.URL, owner, reviewer, fl.URL, servers); err != nil {
		return err
	}
	fmt.Printf("seeded %d live submissions and approvals in %s\n", servers, time.Since(start).Round(time.Millisecond))
	if err := seeder.Stop(20 * time.Second); err != nil {
		return err
	}

	for _, c := range strings.Split(counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return fmt.Errorf("-replicas %q: want counts like 1,3", counts)
		}
		if err := measure(bin, dir, env, common, n, concurrency, window); err != nil {
			return err
		}
	}
	return nil
}

// seed submits (live: the registry reads each server) and approves every
// fixture server, 8 at a time.
func seed(base, owner, reviewer, fleet string, servers int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, servers)
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < servers; i = int(next.Add(1)) - 1 {
				name := fmt.Sprintf("io.github.scans/s-%04d", i)
				if err := post(base+"/v1/versions", owner, map[string]any{"serverJson": daemon.FleetServerJSON(name, fleet, i), "live": true}); err != nil {
					errs <- err
					continue
				}
				if err := post(base+"/v1/servers/"+name+"/versions/1.0.0/approve", reviewer, map[string]any{"reason": "load test"}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	return nil
}

func post(url, token string, body any) error {
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %d %s", url, resp.StatusCode, msg)
	}
	return nil
}

// measure runs n replicas whose schedule keeps every version due (1s
// interval) and reports scheduled scans finished per second in the window,
// after a warm-up.
func measure(bin, dir string, env, common []string, n, concurrency int, window time.Duration) error {
	var reps []*daemon.Proc
	defer func() {
		for _, p := range reps {
			_ = p.Stop(30 * time.Second)
		}
	}()
	for i := range n {
		p, err := daemon.Start(bin, dir, env, fmt.Sprintf("r%d", i), append(common, "--replica", fmt.Sprintf("r%d", i),
			"--scan-interval", "1s", "--scan-concurrency", strconv.Itoa(concurrency))...)
		if err != nil {
			return err
		}
		reps = append(reps, p)
	}
	time.Sleep(5 * time.Second) // warm-up: connections, first claims
	before, err := scanned(reps)
	if err != nil {
		return err
	}
	time.Sleep(window)
	after, err := scanned(reps)
	if err != nil {
		return err
	}
	ok, failed := after[0]-before[0], after[1]-before[1]
	fmt.Printf("%d replica(s) × concurrency %d: %.1f scans/s (%d matched, %d failed in %s)\n",
		n, concurrency, float64(ok+failed)/window.Seconds(), ok, failed, window)
	return nil
}

// scanned sums the replicas' scheduled scans: matched (or drift), failed.
func scanned(reps []*daemon.Proc) ([2]int, error) {
	var out [2]int
	for _, p := range reps {
		resp, err := http.Get(p.Metrics + "/metrics")
		if err != nil {
			return out, err
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "mcpreg_scans_total{") || !strings.Contains(line, `trigger="schedule"`) {
				continue
			}
			v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			if err != nil {
				continue
			}
			if strings.Contains(line, `outcome="error"`) {
				out[1] += int(v)
			} else {
				out[0] += int(v)
			}
		}
		resp.Body.Close()
	}
	return out, nil
}
