package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// seen is what a test server saw of one request.
type seen struct {
	method, path, query, body string
	header                    http.Header
}

// recorder answers every request with status and body and remembers it.
type recorder struct {
	mu     sync.Mutex
	last   seen
	status int
	body   string
	header map[string]string
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.last = seen{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, string(body), r.Header.Clone()}
	for k, v := range rec.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rec.status)
	_, _ = io.WriteString(w, rec.body)
}

func (rec *recorder) request() seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.last
}

func newTestClient(t *testing.T, rec *recorder, prefix string, opts ...Option) *Client {
	t.Helper()
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+prefix, testToken, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRequests(t *testing.T) {
	ctx := context.Background()
	const name, version = "io.github.acme/weather", "1.0.0-rc.1+build"
	tests := []struct {
		name                      string
		call                      func(c *Client) error
		method, path, query, body string
	}{
		{"get version", func(c *Client) error { _, err := c.GetVersion(ctx, name, version); return err },
			"GET", "/v1/servers/io.github.acme/weather/versions/1.0.0-rc.1+build", "", ""},
		{"get server", func(c *Client) error { _, err := c.GetServer(ctx, "com.example/my_srv.v2"); return err },
			"GET", "/v1/servers/com.example/my_srv.v2", "", ""},
		{"quarantine", func(c *Client) error {
			_, err := c.Transition(ctx, ActionQuarantine, name, version, "drift seen")
			return err
		}, "POST", "/v1/servers/io.github.acme/weather/versions/1.0.0-rc.1+build/quarantine", "", `{"reason":"drift seen"}`},
		{"list all versions", func(c *Client) error {
			_, err := c.ListVersions(ctx, &mcpregv1.ListVersionsRequest{State: "approved"})
			return err
		}, "GET", "/v1/versions", "state=approved", ""},
		{"list versions of a server", func(c *Client) error {
			_, err := c.ListVersions(ctx, &mcpregv1.ListVersionsRequest{Name: name, PageSize: 5, PageToken: "t/1="})
			return err
		}, "GET", "/v1/servers/io.github.acme/weather/versions", "pageSize=5&pageToken=t%2F1%3D", ""},
		{"list servers", func(c *Client) error {
			_, err := c.ListServers(ctx, &mcpregv1.ListServersRequest{Owner: "team a", Namespace: "io.github.acme", Query: "rain&snow"})
			return err
		}, "GET", "/v1/servers", "namespace=io.github.acme&owner=team+a&query=rain%26snow", ""},
		{"list audit", func(c *Client) error {
			_, err := c.ListAuditEvents(ctx, &mcpregv1.ListAuditEventsRequest{Subject: name + "@1.0.0", Actor: "rev", Action: "version.approve"})
			return err
		}, "GET", "/v1/audit/events", "action=version.approve&actor=rev&subject=io.github.acme%2Fweather%401.0.0", ""},
		{"verify audit", func(c *Client) error { _, err := c.VerifyAuditChain(ctx); return err }, "GET", "/v1/audit/verify", "", ""},
		{"whoami", func(c *Client) error { _, err := c.WhoAmI(ctx); return err }, "GET", "/v1/whoami", "", ""},
		{"create token", func(c *Client) error {
			_, err := c.CreateToken(ctx, &mcpregv1.CreateTokenRequest{Principal: "host1", Role: "host", EnvLabels: []string{"prod"}, TtlSeconds: 3600})
			return err
		}, "POST", "/v1/tokens", "", `{"principal":"host1","role":"host","envLabels":["prod"],"ttlSeconds":"3600"}`},
		{"list tokens", func(c *Client) error {
			_, err := c.ListTokens(ctx, &mcpregv1.ListTokensRequest{Principal: "host1"})
			return err
		}, "GET", "/v1/tokens", "principal=host1", ""},
		{"revoke token", func(c *Client) error { _, err := c.RevokeToken(ctx, "tok_Ab-9", "leaked"); return err },
			"POST", "/v1/tokens/tok_Ab-9/revoke", "", `{"reason":"leaked"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{status: http.StatusOK, body: "{}"}
			if err := tt.call(newTestClient(t, rec, "")); err != nil {
				t.Fatal(err)
			}
			got := rec.request()
			if got.method != tt.method || got.path != tt.path || got.query != tt.query {
				t.Errorf("request = %s %s?%s, want %s %s?%s", got.method, got.path, got.query, tt.method, tt.path, tt.query)
			}
			assertJSONEqual(t, got.body, tt.body)
			assertHeaders(t, got, tt.body != "")
		})
	}
}

func assertJSONEqual(t *testing.T, got, want string) {
	t.Helper()
	if want == "" {
		if got != "" {
			t.Errorf("body = %s, want none", got)
		}
		return
	}
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("body %q: %v", got, err)
	}
	_ = json.Unmarshal([]byte(want), &w)
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("body = %s, want %s", gb, wb)
	}
}

func assertHeaders(t *testing.T, got seen, hasBody bool) {
	t.Helper()
	if a := got.header.Get("Authorization"); a != "Bearer "+testToken {
		t.Errorf("Authorization = %q", a)
	}
	if ua := got.header.Get("User-Agent"); ua != DefaultUserAgent {
		t.Errorf("User-Agent = %q", ua)
	}
	if ct := got.header.Get("Content-Type"); hasBody != (ct == "application/json") {
		t.Errorf("Content-Type = %q with body %v", ct, hasBody)
	}
}

// The documents travel as JSON strings, byte for byte: the client never
// parses them, so the service's strict reader sees exactly what was given.
func TestSubmitSendsDocumentsVerbatim(t *testing.T) {
	req := &mcpregv1.SubmitVersionRequest{
		ServerJson:       "{\"name\": \"io.github.acme/weather\",\n \"name\": \"dup\"}",
		Tools:            `{"tools":[{"name":"a","x":1e400}]}` + "\n",
		InitializeResult: `{"instructions":"\ud800"}`,
		IdempotencyKey:   "k-1",
	}
	rec := &recorder{status: http.StatusOK, body: `{"name":"io.github.acme/weather","version":"1.0.0","state":"pending_review"}`}
	v, err := newTestClient(t, rec, "/prefix/").SubmitVersion(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if v.GetState() != "pending_review" {
		t.Errorf("state = %q", v.GetState())
	}
	got := rec.request()
	if got.method != "POST" || got.path != "/prefix/v1/versions" {
		t.Errorf("request = %s %s", got.method, got.path)
	}
	var body map[string]string
	if err := json.Unmarshal([]byte(got.body), &body); err != nil {
		t.Fatalf("body %s: %v", got.body, err)
	}
	want := map[string]string{"serverJson": req.ServerJson, "tools": req.Tools,
		"initializeResult": req.InitializeResult, "idempotencyKey": "k-1"}
	for k, w := range want {
		if body[k] != w {
			t.Errorf("%s = %q, want %q", k, body[k], w)
		}
	}
}

func TestErrorResponse(t *testing.T) {
	rec := &recorder{status: http.StatusConflict, header: map[string]string{"Content-Type": "application/json", "X-Request-Id": "abc"},
		body: `{"code":9,"message":"cannot approve io.github.acme/weather@1.0.0: its current state is approved","details":[]}`}
	_, err := newTestClient(t, rec, "").Transition(context.Background(), ActionApprove, "io.github.acme/weather", "1.0.0", "ok")
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error = %v, want *APIError", err)
	}
	want := "409 Conflict: cannot approve io.github.acme/weather@1.0.0: its current state is approved (request id abc)"
	if err.Error() != want {
		t.Errorf("Error() = %q\nwant      %q", err.Error(), want)
	}
	if !errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
		t.Errorf("errors.Is does not follow the status: %v", err)
	}
	if strings.Contains(err.Error(), testToken) {
		t.Errorf("error shows the token")
	}
}

func TestResponseBodyCapped(t *testing.T) {
	rec := &recorder{status: http.StatusOK, body: `{"name":"` + strings.Repeat("a", 1000) + `"}`}
	_, err := newTestClient(t, rec, "", WithMaxResponseBytes(512)).WhoAmI(context.Background())
	if !errors.Is(err, ErrResponseTooLarge) {
		t.Fatalf("error = %v, want ErrResponseTooLarge", err)
	}
	rec.body = `{"name":"` + strings.Repeat("a", 100) + `"}`
	if _, err := newTestClient(t, rec, "", WithMaxResponseBytes(512)).WhoAmI(context.Background()); err != nil {
		t.Fatalf("small body: %v", err)
	}
}

// A newer service may add fields; an older client must keep working.
func TestUnknownFieldsIgnored(t *testing.T) {
	rec := &recorder{status: http.StatusOK,
		body: `{"name":"rev","role":"reviewer","addedLater":{"x":[1,2]},"namespaces":["io.github.acme"]}`}
	p, err := newTestClient(t, rec, "").WhoAmI(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.GetName() != "rev" || p.GetRole() != "reviewer" || len(p.GetNamespaces()) != 1 {
		t.Fatalf("decoded %v", p)
	}
}

func TestNonJSONSuccessBody(t *testing.T) {
	rec := &recorder{status: http.StatusOK, header: map[string]string{"Content-Type": "text/html"}, body: "<html>login</html>"}
	_, err := newTestClient(t, rec, "").WhoAmI(context.Background())
	if err == nil || !strings.Contains(err.Error(), "decoding response") || !strings.Contains(err.Error(), "text/html") {
		t.Fatalf("error = %v, want a decoding error naming the content type", err)
	}
}

func TestUserAgentOption(t *testing.T) {
	rec := &recorder{status: http.StatusOK, body: "{}"}
	if _, err := newTestClient(t, rec, "", WithUserAgent("host/1.2")).WhoAmI(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ua := rec.request().header.Get("User-Agent"); ua != "host/1.2" {
		t.Fatalf("User-Agent = %q", ua)
	}
}

// A redirect is reported, not followed: following would turn a POST into a
// GET whose answer decodes into an empty message.
func TestRedirectNotFollowed(t *testing.T) {
	rec := &recorder{status: http.StatusMovedPermanently, header: map[string]string{"Location": "https://registry.example/v1/versions"}}
	_, err := newTestClient(t, rec, "").SubmitVersion(context.Background(), &mcpregv1.SubmitVersionRequest{Tools: "[]"})
	want := "301 Moved Permanently: redirected to https://registry.example/v1/versions; use that address as the server URL"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant      %s", err, want)
	}
}

func TestEmptySuccessBody(t *testing.T) {
	rec := &recorder{status: http.StatusOK}
	if _, err := newTestClient(t, rec, "").VerifyAuditChain(context.Background()); err != nil {
		t.Fatalf("empty body: %v", err)
	}
}
