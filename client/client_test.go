package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

const testToken = "mcpreg_s3cr3tT0k3n"

func TestNewValidatesURL(t *testing.T) {
	tests := []struct {
		raw, want, wantErr string
	}{
		{raw: "http://127.0.0.1:8080", want: "http://127.0.0.1:8080"},
		{raw: "https://registry.example/", want: "https://registry.example"},
		{raw: "https://tools.example/mcpreg/", want: "https://tools.example/mcpreg"},
		{raw: "", wantErr: "empty"},
		{raw: "127.0.0.1:8080", wantErr: "no scheme: want an http:// or https:// URL, e.g. http://127.0.0.1:8080"},
		{raw: "admin:hunter2@registry.example", wantErr: "must not carry credentials"},
		{raw: "registry.example", wantErr: "http:// or https://"},
		{raw: "ftp://registry.example", wantErr: "http:// or https://"},
		{raw: "http://", wantErr: "no host"},
		{raw: "http://registry.example?x=1", wantErr: "query or fragment"},
		{raw: "http://registry.example#top", wantErr: "query or fragment"},
		{raw: "http://admin:hunter2@registry.example", wantErr: "credentials"},
		{raw: "http://registry.example/%zz", wantErr: "invalid URL escape"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			c, err := New(tt.raw, testToken)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New(%q) error = %v, want one mentioning %q", tt.raw, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), testToken) {
					t.Fatalf("error leaks a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%q): %v", tt.raw, err)
			}
			if got := c.BaseURL(); got != tt.want {
				t.Fatalf("BaseURL() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewValidatesToken(t *testing.T) {
	for _, tok := range []string{"mcpreg_a b", "mcpreg_a\r\nX-Evil: 1", "mcpreg_\x00"} {
		if _, err := New("http://127.0.0.1:8080", tok); err == nil {
			t.Errorf("New accepted token %q", tok)
		} else if strings.Contains(err.Error(), "mcpreg_") {
			t.Errorf("error shows the token: %v", err)
		}
	}
	if _, err := New("http://127.0.0.1:8080", "  "+testToken+"\n"); err != nil {
		t.Errorf("surrounding whitespace should be trimmed: %v", err)
	}
}

// roundTripFunc lets a test see requests without a network.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// noNetwork is a client whose transport fails the test when used.
func noNetwork(t *testing.T) *Client {
	t.Helper()
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		return nil, errors.New("no network in this test")
	})}
	c, err := New("http://127.0.0.1:8080", testToken, WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestArgumentsRejectedBeforeSending(t *testing.T) {
	c := noNetwork(t)
	ctx := context.Background()
	calls := map[string]func() error{
		"unknown action": func() error {
			_, err := c.Transition(ctx, "delete", "io.github.acme/weather", "1.0.0", "why")
			return err
		},
		"empty reason": func() error {
			_, err := c.Transition(ctx, ActionApprove, "io.github.acme/weather", "1.0.0", "")
			return err
		},
		"name without namespace": func() error { _, err := c.GetServer(ctx, "weather"); return err },
		"empty version":          func() error { _, err := c.GetVersion(ctx, "io.github.acme/weather", ""); return err },
		"bad list name": func() error {
			_, err := c.ListVersions(ctx, &mcpregv1.ListVersionsRequest{Name: "a/b/c"})
			return err
		},
		"token id with slash": func() error { _, err := c.RevokeToken(ctx, "../x", ""); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, ErrInvalid) {
				t.Fatalf("error = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestTransportErrorHidesToken(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c, err := New(base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.WhoAmI(context.Background())
	if err == nil {
		t.Fatal("call to a closed server succeeded")
	}
	if strings.Contains(err.Error(), testToken) {
		t.Fatalf("error shows the token: %v", err)
	}
}

// TestConnectionRefusedSaysWhatToCheck: nothing listening at the server
// URL gets a message asking whether mcpregd runs there, the cause kept.
func TestConnectionRefusedSaysWhatToCheck(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := New("http://"+addr, testToken)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.WhoAmI(context.Background())
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "is mcpregd serve running at http://"+addr+"?") ||
		strings.Contains(err.Error(), testToken) {
		t.Fatalf("refused connection: %v", err)
	}
}
