package scan

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkHTTP serves an SDK fixture over Streamable HTTP on loopback.
func sdkHTTP(t *testing.T, cfg sdkConfig, jsonResponse bool) *httptest.Server {
	t.Helper()
	s := newSDKServer(cfg)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
	return serve(t, h)
}

func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// responseModes are the two ways a Streamable HTTP server may answer.
var responseModes = []struct {
	name string
	json bool
}{{"event-stream", false}, {"json", true}}

func TestHTTPSDKServer(t *testing.T) {
	for _, mode := range responseModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := sdkHTTP(t, sdkConfig{Tools: 5, PageSize: 2}, mode.json)
			snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.URL})
			checkPins(t, snap)
			if got := toolNames(snap.Tools); !slices.Equal(got, []string{"tool0", "tool1", "tool2", "tool3", "tool4"}) || snap.Pages != 3 {
				t.Fatalf("tools %v pages %d", got, snap.Pages)
			}
			if snap.InstructionsPresent || snap.Stderr != "" || len(snap.Findings) != 0 {
				t.Fatalf("snapshot %+v", snap)
			}
		})
	}
}

func TestHTTPRawBytesPreserved(t *testing.T) {
	result := testPage(t, "tools_raw.json")
	for _, mode := range responseModes {
		t.Run(mode.name, func(t *testing.T) {
			cfg := onePage(result)
			cfg.SSE = !mode.json
			snap := mustRead(t, Limits{}, HTTPTarget{URL: serve(t, cfg).URL})
			checkRawPreserved(t, snap, result)
		})
	}
}

func TestHTTPBaitAndSwitch(t *testing.T) {
	srv := sdkHTTP(t, sdkConfig{Bait: true}, false)
	snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.URL})
	if len(snap.Findings) != 1 || snap.Findings[0].Kind != KindListInconsistent {
		t.Fatalf("findings %+v", snap.Findings)
	}
}

func TestHTTPHostile(t *testing.T) {
	big := sdkConfig{DescBytes: 200 << 10}
	tests := []struct {
		name      string
		lim       Limits
		handler   http.Handler
		target    error
		fragments []string
	}{
		{"never answers", Limits{Deadline: 500 * time.Millisecond}, rawConfig{Silent: true}, ErrTimeout, []string{"initialize"}},
		{"large event", Limits{MaxResponseBytes: 64 << 10}, newHandler(big, false), ErrLimit, []string{"MaxResponseBytes 65536", "event"}},
		{"large JSON body", Limits{MaxResponseBytes: 64 << 10}, newHandler(big, true), ErrLimit, []string{"MaxResponseBytes 65536", "JSON"}},
		{"total bytes", Limits{MaxTotalBytes: 300 << 10}, newHandler(big, false), ErrLimit, []string{"MaxTotalBytes 307200"}},
		{"duplicate member", Limits{}, rawConfig{SSE: true, Pages: map[string][]byte{"": testPage(t, "dup_member.json")}}, ErrInvalid, []string{"duplicate", "city"}},
		{"not found", Limits{}, http.NotFoundHandler(), ErrProtocol, []string{"initialize", "Not Found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(t, tt.lim, HTTPTarget{URL: serve(t, tt.handler).URL})
			wantErr(t, err, tt.target, tt.fragments...)
		})
	}
}

func newHandler(cfg sdkConfig, jsonResponse bool) http.Handler {
	s := newSDKServer(cfg)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
}

func TestHTTPHeaders(t *testing.T) {
	inner := newHandler(sdkConfig{}, false)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	mustRead(t, Limits{}, HTTPTarget{URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}})
	_, err := read(t, Limits{}, HTTPTarget{URL: srv.URL})
	wantErr(t, err, ErrProtocol, "Unauthorized")
}

func TestHTTPBadURL(t *testing.T) {
	for _, u := range []string{"ftp://example.com/mcp", "/mcp", "http://"} {
		_, err := read(t, Limits{}, HTTPTarget{URL: u})
		if err == nil || !strings.Contains(err.Error(), "want an absolute http or https URL") {
			t.Fatalf("%s: error %v", u, err)
		}
	}
}
