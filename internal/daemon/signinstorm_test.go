package daemon_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/daemon"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// stormRSSLimit is the peak resident size the registry may reach during
// the storm (each argon2id hash holds 64 MiB).
const stormRSSLimit = 1 << 30

// TestSignInStorm: 500 sign-ins with distinct names from 500 client
// addresses (a trusted proxy names them in X-Forwarded-For, so the
// per-address throttle does not hide the cost) arrive at once at a real
// mcpregd. Its peak RSS stays under 1 GiB, never more than NumCPU
// password hashes run at once (the gauge, read from /metrics during the
// storm), the overflow is answered 429 with Retry-After, and an API call
// made during the storm succeeds.
func TestSignInStorm(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	env := daemon.Env(dir)
	db := storetest.EmptyDSN(t, "sqlite3")
	p, err := daemon.Start(bins.daemon, dir, env, "storm", "--db", db, "--discovery-key", filepath.Join(dir, "d.key"),
		"--scan-interval", "0", "--trusted-proxies", "127.0.0.1/32")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Stop(10 * time.Second) }()
	tok, err := daemon.Token(ctx, bins.daemon, dir, env, db, "watcher", "reviewer")
	if err != nil {
		t.Fatal(err)
	}

	watch := watchStorm(ctx, t, p, tok)
	statuses, retryAfter := signInStorm(p.URL, 500)
	whoami := <-watch.whoami
	peak, gauge := watch.stop()

	t.Logf("peak VmHWM %d MiB, most hashes at once %d (NumCPU %d), statuses %v, whoami %s",
		peak>>20, gauge, runtime.NumCPU(), statuses, whoami)
	if peak >= stormRSSLimit {
		t.Fatalf("peak RSS (VmHWM) of mcpregd reached %d MiB, want under %d MiB", peak>>20, stormRSSLimit>>20)
	}
	if gauge < 1 || gauge > runtime.NumCPU() {
		t.Fatalf("mcpreg_signin_hashes_in_progress peaked at %d during the storm, want 1..%d (NumCPU)", gauge, runtime.NumCPU())
	}
	if statuses[http.StatusTooManyRequests] == 0 {
		t.Fatalf("no sign-in was answered 429 (statuses %v)", statuses)
	}
	if !retryAfter {
		t.Fatal("a 429 came without Retry-After")
	}
	for code, n := range statuses {
		if code != http.StatusUnauthorized && code != http.StatusTooManyRequests {
			t.Fatalf("%d sign-ins answered %d, want only 401 (wrong password) and 429 (statuses %v)", n, code, statuses)
		}
	}
	if whoami != "200" {
		t.Fatalf("/v1/whoami during the storm: %s, want 200", whoami)
	}
}

// stormWatch samples the process's peak RSS and the hash gauge while the
// storm runs; past the RSS limit it kills the process, so that an old
// build fails the test rather than the machine.
type stormWatch struct {
	peak, gauge atomic.Int64
	whoami      chan string
	done        chan struct{}
	wg          sync.WaitGroup
}

func watchStorm(ctx context.Context, t *testing.T, p *daemon.Proc, tok string) *stormWatch {
	w := &stormWatch{whoami: make(chan string, 1), done: make(chan struct{})}
	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		for {
			if hwm := vmHWM(p.PID()); hwm > w.peak.Load() {
				w.peak.Store(hwm)
				if hwm >= stormRSSLimit {
					t.Logf("VmHWM %d MiB: killing mcpregd", hwm>>20)
					p.Kill()
					return
				}
			}
			select {
			case <-w.done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	go func() {
		defer w.wg.Done()
		for {
			if g := hashGauge(p.Metrics); g > w.gauge.Load() {
				w.gauge.Store(g)
			}
			select {
			case <-w.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	go func() {
		time.Sleep(300 * time.Millisecond) // the storm is on
		w.whoami <- whoamiStatus(ctx, p.URL, tok)
	}()
	return w
}

func (w *stormWatch) stop() (peak int64, gauge int) {
	close(w.done)
	w.wg.Wait()
	return w.peak.Load(), int(w.gauge.Load())
}

// signInStorm posts n failing sign-ins at once, each with its own name and
// client address, and counts the answers by status.
func signInStorm(base string, n int) (map[int]int, bool) {
	client := &http.Client{Timeout: 90 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	var (
		mu         sync.Mutex
		statuses   = map[int]int{}
		retryAfter = true
		start      = make(chan struct{})
		wg         sync.WaitGroup
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			form := url.Values{"name": {fmt.Sprintf("storm-user-%03d", i)}, "password": {"not-the-password-" + strconv.Itoa(i)},
				"csrf": {"storm-csrf-token"}, "next": {"/queue"}}
			req, _ := http.NewRequest(http.MethodPost, base+"/signin", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Cookie", "mcpreg_signin=storm-csrf-token")
			req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.%d.%d", i/250, i%250+1))
			<-start
			code := 0
			resp, err := client.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				code = resp.StatusCode
			}
			mu.Lock()
			defer mu.Unlock()
			statuses[code]++
			if code == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
				retryAfter = false
			}
		}()
	}
	close(start)
	wg.Wait()
	return statuses, retryAfter
}

func whoamiStatus(ctx context.Context, base, tok string) string {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	return strconv.Itoa(resp.StatusCode)
}

// vmHWM is a process's peak resident set size in bytes (0 once it is gone).
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// hashGauge reads mcpreg_signin_hashes_in_progress from /metrics (-1 when
// it is not there).
func hashGauge(metricsURL string) int64 {
	resp, err := http.Get(metricsURL + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "mcpreg_signin_hashes_in_progress "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return int64(f)
		}
	}
	return -1
}
