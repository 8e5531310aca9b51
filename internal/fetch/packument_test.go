package fetch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/fetch"
)

const integrity = "sha512-dhdv+jOAi1RgLHw13lxumk3rlgZtumUz9QrCNPTx9MazUnUV3BfAb74oYAMPQQ7uaeogB5vTosbz3POzKbEHUQ=="

// TestPackumentCancelled: a cancelled lookup is an ErrFetch that still
// says it was cancelled (the cause is wrapped, not formatted away).
func TestPackumentCancelled(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := fetch.Packuments{Registry: srv.URL + "/"}.Integrity(ctx, "weather", "1.0.0")
	if !errors.Is(err, fetch.ErrFetch) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled lookup: %v, want ErrFetch and context.Canceled", err)
	}
}

func TestPackumentIntegrity(t *testing.T) {
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		switch r.URL.EscapedPath() {
		case "/@acme%2Fweather":
			_, _ = w.Write([]byte(`{"versions":{"1.0.0":{"dist":{"integrity":"sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA= ` + integrity + `"}},
				"0.9.0":{"dist":{"shasum":"abc","integrity":"sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA="}}}}`))
		case "/huge":
			_, _ = w.Write([]byte(`{"versions":{"1.0.0":{"dist":{"integrity":"` + strings.Repeat("x", 2048) + `"}}}}`))
		case "/broken":
			_, _ = w.Write([]byte(`<html>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	p := fetch.Packuments{Registry: srv.URL + "/", MaxBytes: 1024}
	ctx := context.Background()
	d, err := p.Integrity(ctx, "@acme/weather", "1.0.0")
	if err != nil || d.Algorithm != "sha512" || !strings.HasPrefix(d.Hex, "76176ffa") {
		t.Fatalf("integrity = %v, %v", d, err)
	}
	if paths[0] != "/@acme%2Fweather" {
		t.Errorf("requested %q", paths[0])
	}
	for _, c := range []struct{ name, version, want string }{
		{"@acme/weather", "2.0.0", "has no version 2.0.0 of @acme/weather"},
		{"@acme/weather", "0.9.0", "no sha256, sha384 or sha512"},
		{"@acme/other", "1.0.0", "has no package @acme/other"},
		{"huge", "1.0.0", "larger than 1024 bytes"},
		{"broken", "1.0.0", "not JSON"},
		{"../admin", "1.0.0", "not an npm package name"},
		{"weather", "^1.0.0", "exact version"},
	} {
		_, err := p.Integrity(ctx, c.name, c.version)
		if !errors.Is(err, fetch.ErrFetch) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s@%s: %v, want ErrFetch mentioning %q", c.name, c.version, err, c.want)
		}
	}
}
