package wiring_test

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/wiring"
)

// TestServiceOptionsVerifies: the one builder of the registry service
// refuses what Verify refuses, with Verify's words, before it builds
// anything (no discovery key file appears).
func TestServiceOptionsVerifies(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name string
		set  func(*config.Config)
	}{
		{"contract token ttl", func(c *config.Config) { c.ContractMaxTokenTTL = 0 }},
		{"scan rate", func(c *config.Config) { c.ScanRate = "fast" }},
		{"replica name", func(c *config.Config) { c.Replica = "a#b" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.DefaultConfig()
			cfg.DiscoveryKey = filepath.Join(t.TempDir(), "discovery.key")
			tc.set(&cfg)
			want := cfg.Verify()
			if want == nil {
				t.Fatal("the case is valid: it proves nothing")
			}
			opts, err := wiring.ServiceOptions(cfg, log)
			if err == nil || err.Error() != want.Error() || opts != nil {
				t.Fatalf("ServiceOptions = %d options, %v; want Verify's error %q", len(opts), err, want)
			}
			if m, _ := filepath.Glob(cfg.DiscoveryKey); len(m) != 0 {
				t.Fatalf("a refused configuration created %s", cfg.DiscoveryKey)
			}
		})
	}
}
