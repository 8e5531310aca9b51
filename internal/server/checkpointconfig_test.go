package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// TestCheckpointFlags: bad checkpoint settings are refused before start,
// naming the flag and the value.
func TestCheckpointFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*config.Config)
		want string
	}{
		{"defaults", func(*config.Config) {}, ""},
		{"both off", func(c *config.Config) { c.AuditCheckpointEvery, c.AuditCheckpointInterval = 0, 0 }, ""},
		{"negative count", func(c *config.Config) { c.AuditCheckpointEvery = -1 }, "--audit-checkpoint-every -1"},
		{"tiny interval", func(c *config.Config) { c.AuditCheckpointInterval = time.Second }, "--audit-checkpoint-interval 1s"},
		{"negative interval", func(c *config.Config) { c.AuditCheckpointInterval = -time.Minute }, "--audit-checkpoint-interval -1m0s"},
		{"origin with space", func(c *config.Config) { c.AuditCheckpointOrigin = "my registry" }, "--audit-checkpoint-origin"},
		{"origin with plus", func(c *config.Config) { c.AuditCheckpointOrigin = "a+b" }, "--audit-checkpoint-origin"},
		{"origin", func(c *config.Config) { c.AuditCheckpointOrigin = "registry.example.com/audit" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.DefaultConfig()
			tc.set(&cfg)
			err := cfg.Verify()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Verify() = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestServeWritesCheckpoints: a running service signs checkpoints by
// itself and serves the latest without a token; before the first, the
// endpoint answers 404.
func TestServeWritesCheckpoints(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) {
		c.AuditCheckpointEvery, c.AuditCheckpointInterval = 2, 10*time.Second
	})
	get := func() (int, string) {
		resp, err := http.Get(in.URL + "/.well-known/mcpreg/audit-checkpoint")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get(); code != http.StatusNotFound || !strings.Contains(body, "no audit checkpoint") {
		t.Fatalf("before any event: %d %s", code, body)
	}
	in.Token(t, "alice", registry.RoleReviewer) // events 1 and 2
	var code int
	var body string
	testkit.Eventually(t, 20*time.Second, func() bool {
		code, body = get()
		return code == http.StatusOK
	}, "no audit checkpoint is served")
	if lines := strings.Split(body, "\n"); len(lines) < 4 || lines[1] != "2" || !strings.HasPrefix(lines[0], "mcpreg-audit/") {
		t.Fatalf("checkpoint: %s", body)
	}
}
