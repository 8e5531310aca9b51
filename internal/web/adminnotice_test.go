package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/web"
)

// TestAdminNoticesOnlyForAdmins: a set-up warning (stdio scans without
// the sandbox) is shown on the admin page, and neither to reviewers nor
// before sign-in.
func TestAdminNoticesOnlyForAdmins(t *testing.T) {
	t.Parallel()
	const notice = "stdio servers under scan run without the sandbox"
	st := storetest.Open(t, store.DialectSQLite)
	svc, err := registry.New(context.Background(), st, registry.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	id := identity.New(st, svc.Audit.AuditWriter())
	h, err := web.New(svc, id, slog.New(slog.DiscardHandler), web.Options{AdminNotices: []string{notice}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	e := &env{users: map[string]bool{}, svc: svc, id: id, st: st, h: h, srv: srv}
	root := e.browser(t).signIn("root")
	r := root.get("/admin/tokens")
	if r.Status != http.StatusOK || !strings.Contains(r.Body, notice) || !strings.Contains(r.Body, `role="alert"`) {
		t.Fatalf("admin page: %d, notice shown %v", r.Status, strings.Contains(r.Body, notice))
	}
	alice := e.browser(t).signIn("alice")
	for _, path := range []string{"/admin/tokens", "/queue", "/servers", "/audit"} {
		if strings.Contains(alice.get(path).Body, notice) {
			t.Fatalf("a reviewer sees the admin notice on %s", path)
		}
	}
	for _, path := range []string{"/signin", "/healthz", "/admin/tokens"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), notice) {
			t.Fatalf("the notice is shown without sign-in on %s", path)
		}
	}
}
