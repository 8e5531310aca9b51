package server_test

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/mcpreg/mcpreg/internal/server"
)

// TestServiceOptionsVerifies: the one builder of the registry service
// refuses what Verify refuses, with Verify's words, before it builds
// anything (no discovery key file appears).
func TestServiceOptionsVerifies(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name string
		set  func(*server.Config)
	}{
		{"contract token ttl", func(c *server.Config) { c.ContractMaxTokenTTL = 0 }},
		{"scan rate", func(c *server.Config) { c.ScanRate = "fast" }},
		{"replica name", func(c *server.Config) { c.Replica = "a#b" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := server.DefaultConfig()
			cfg.DiscoveryKey = filepath.Join(t.TempDir(), "discovery.key")
			tc.set(&cfg)
			want := cfg.Verify()
			if want == nil {
				t.Fatal("the case is valid: it proves nothing")
			}
			opts, err := server.ServiceOptions(cfg, log)
			if err == nil || err.Error() != want.Error() || opts != nil {
				t.Fatalf("ServiceOptions = %d options, %v; want Verify's error %q", len(opts), err, want)
			}
			if m, _ := filepath.Glob(cfg.DiscoveryKey); len(m) != 0 {
				t.Fatalf("a refused configuration created %s", cfg.DiscoveryKey)
			}
		})
	}
}
