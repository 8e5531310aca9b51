// Command replicas starts a local multi-replica mcpreg for trying it out
// (`make replicas`): it builds mcpregd, migrates the database once, starts
// N replicas on it with --migrate=false and distinct --replica names, and
// puts a round-robin proxy in front that sends requests only to replicas
// whose /readyz answers. It prints the addresses and an admin token, and
// stops everything on Ctrl-C.
//
//	go run ./scripts/replicas -n 3 -db postgres://USER:PASS@127.0.0.1:5432/DB
//
// Without -db (or MCPREG_DB) the replicas share an SQLite file in -dir,
// which works on one machine; deployments put replicas on PostgreSQL.
// It is a development tool, not part of the service.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpreg/mcpreg/internal/daemon"
)

func main() {
	n := flag.Int("n", 3, "replicas")
	db := flag.String("db", os.Getenv("MCPREG_DB"), "database (default: an SQLite file in -dir)")
	dir := flag.String("dir", "replicas-data", "folder for the binaries, the discovery key and the SQLite file")
	addr := flag.String("addr", "127.0.0.1:8080", "address of the round-robin proxy")
	first := flag.Int("port", 8081, "HTTP port of the first replica (the next ones follow)")
	flag.Parse()
	if err := run(*n, *db, *dir, *addr, *first); err != nil {
		log.Fatal(err)
	}
}

func run(n int, db, dir, addr string, first int) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if db == "" {
		db = "sqlite://" + filepath.Join(dir, "mcpreg.db")
	}
	bin, _, err := daemon.Build(dir)
	if err != nil {
		return err
	}
	env := daemon.Env(dir)
	// Migrations run once, before any replica starts.
	if out, err := daemon.Admin(ctx, bin, dir, env, "", "migrate", "up", "--db", db); err != nil {
		return fmt.Errorf("migrate up: %w\n%s", err, out)
	}
	key := filepath.Join(dir, "discovery.key")
	if _, err := os.Stat(key); os.IsNotExist(err) {
		if out, err := daemon.Admin(ctx, bin, dir, env, "", "discovery", "keygen", "--out", key); err != nil {
			return fmt.Errorf("discovery keygen: %w\n%s", err, out)
		}
	}
	admin, err := daemon.Token(ctx, bin, dir, env, db, fmt.Sprintf("replicas-admin-%d", time.Now().Unix()), "admin")
	if err != nil {
		return err
	}
	var reps []*daemon.Proc
	defer func() {
		for _, p := range reps {
			if err := p.Stop(20 * time.Second); err != nil {
				log.Printf("%s: %v", p.Name, err)
			}
		}
	}()
	var backends []*url.URL
	for i := range n {
		port := first + 2*i
		p, err := daemon.Start(bin, dir, env, fmt.Sprintf("replica-%d", i+1), "--db", db, "--migrate=false",
			"--replica", fmt.Sprintf("replica-%d", i+1), "--discovery-key", key, "--secrets-key", filepath.Join(dir, "secrets.key"),
			"--http-addr", fmt.Sprintf("127.0.0.1:%d", port), "--grpc-addr", fmt.Sprintf("127.0.0.1:%d", port+1),
			"--metrics-addr", "127.0.0.1:0")
		if err != nil {
			return err
		}
		reps = append(reps, p)
		u, _ := url.Parse(p.URL)
		backends = append(backends, u)
		fmt.Printf("%s: REST and web UI %s, gRPC %s, metrics %s\n", p.Name, p.URL, p.GRPC, p.Metrics)
	}
	srv := &http.Server{Addr: addr, Handler: roundRobin(backends), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	fmt.Printf("\nround-robin proxy: http://%s (database %s)\nadmin token (shown once): %s\n", addr, redact(db), admin)
	fmt.Printf("try: curl -H 'Authorization: Bearer %s' http://%s/v1/servers\nCtrl-C stops everything.\n", admin, addr)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// roundRobin proxies each request to the next backend whose /readyz
// answered 200 at the last check (every second).
func roundRobin(backends []*url.URL) http.Handler {
	ready := make([]atomic.Bool, len(backends))
	check := func() {
		for i, b := range backends {
			resp, err := http.Get(b.String() + "/readyz")
			ready[i].Store(err == nil && resp.StatusCode == http.StatusOK)
			if err == nil {
				resp.Body.Close()
			}
		}
	}
	check()
	go func() {
		for range time.Tick(time.Second) {
			check()
		}
	}()
	proxies := make([]*httputil.ReverseProxy, len(backends))
	for i, b := range backends {
		proxies[i] = httputil.NewSingleHostReverseProxy(b)
	}
	var next atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range backends {
			i := int(next.Add(1) % uint64(len(backends)))
			if ready[i].Load() {
				proxies[i].ServeHTTP(w, r)
				return
			}
		}
		http.Error(w, "no replica is ready", http.StatusServiceUnavailable)
	})
}

// redact hides a PostgreSQL password in what is printed.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
