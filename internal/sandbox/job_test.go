package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestJobProxy: a job with Network reaches the one allowed host:port
// through the proxy (CONNECT and plain HTTP), is refused 403 for any
// other destination, and cannot connect directly.
func TestJobProxy(t *testing.T) {
	sb := newTestSandbox(t, Config{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = fmt.Fprint(w, "registry says hi") }))
	defer up.Close()
	var otherHits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { otherHits.Add(1) }))
	defer other.Close()
	allow := up.Listener.Addr().String()
	var dialed atomic.Int32
	r := &Runner{Sandbox: sb, Allow: allow, Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	var out syncBuilder
	job := Job{Argv: []string{"sh", "-c", fmt.Sprintf(`
curl -sS -p http://%[1]s/ && echo " connect-ok"
curl -sS http://%[1]s/ && echo " forward-ok"
curl -sS -o /dev/null -w "other %%{http_code}\n" http://%[2]s/
curl -sS -p -o /dev/null -w "other-connect %%{http_code}\n" http://%[2]s/ 2>&1 | tail -1
curl -sS --noproxy '*' --max-time 2 http://%[1]s/ >/dev/null 2>&1 || echo direct-failed
true`, allow, other.Listener.Addr())}, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + Home}, Network: true}
	if err := r.Run(context.Background(), job, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"registry says hi connect-ok", "registry says hi forward-ok", "other 403", "other-connect", "direct-failed"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("job output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "other-connect 200") || otherHits.Load() != 0 {
		t.Fatalf("the proxy let a job reach another destination:\n%s", out.String())
	}
	if dialed.Load() != 2 {
		t.Fatalf("the proxy dialed %d times through the runner's dialer, want 2", dialed.Load())
	}
	// Without Network there is no proxy at all.
	out = syncBuilder{}
	job.Network = false
	job.Argv = []string{"sh", "-c", "curl -sS --max-time 2 -x http://" + ProxyAddr + " http://" + allow + "/ >/dev/null 2>&1 || echo no-proxy"}
	if err := r.Run(context.Background(), job, &out); err != nil || !strings.Contains(out.String(), "no-proxy") {
		t.Fatalf("job without network: %v %q", err, out.String())
	}
}

// TestJobBinds: a job writes only its Writable folders, which belong to
// their owner again afterwards; it reads a ReadOnly file private to this
// process; everything else of the host stays invisible.
func TestJobBinds(t *testing.T) {
	sb := newTestSandbox(t, Config{})
	base := t.TempDir()
	work := filepath.Join(base, "work")
	npmrc := filepath.Join(base, "npmrc")
	secret := filepath.Join(base, "secret")
	for _, err := range []error{
		os.Chmod(filepath.Dir(base), 0o755),
		os.Chmod(base, 0o755),
		os.Mkdir(work, 0o700),
		os.WriteFile(npmrc, []byte("registry=https://example.test/\n"), 0o600),
		os.WriteFile(secret, []byte("hunter2"), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	var out syncBuilder
	r := &Runner{Sandbox: sb}
	err := r.Run(context.Background(), Job{Argv: []string{"sh", "-c", "mkdir -p node_modules/x && echo hi > node_modules/x/f && cat " + npmrc + " && (cat " + secret + " 2>/dev/null || echo no-secret) && (echo x > " + npmrc + " 2>/dev/null || echo npmrc-ro) && pwd"},
		Dir: work, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + work}, ReadOnly: []string{npmrc}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"registry=https://example.test/", "no-secret", "npmrc-ro", work} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("job output lacks %q:\n%s", want, out.String())
		}
	}
	for _, p := range []string{work, filepath.Join(work, "node_modules", "x", "f")} {
		info, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st := info.Sys().(*syscall.Stat_t); st.Uid != uint32(os.Geteuid()) {
			t.Fatalf("%s belongs to uid %d after the job, want %d", p, st.Uid, os.Geteuid())
		}
	}
	// A failing job's error carries its stderr.
	err = r.Run(context.Background(), Job{Argv: []string{"sh", "-c", "echo broken >&2; exit 3"}, Env: []string{"PATH=/usr/bin:/bin"}}, &out)
	if err == nil || !strings.Contains(err.Error(), "broken") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("failing job: %v", err)
	}
}

func TestRegistryHostPort(t *testing.T) {
	for in, want := range map[string]string{"https://registry.npmjs.org/": "registry.npmjs.org:443", "http://127.0.0.1:4873": "127.0.0.1:4873",
		"https://npm.acme.test:8443/repo/": "npm.acme.test:8443", "http://[::1]/": "[::1]:80"} {
		if got, err := RegistryHostPort(in); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"registry.npmjs.org", "ftp://x/", "https://user@x/", "https:///"} {
		if _, err := RegistryHostPort(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
