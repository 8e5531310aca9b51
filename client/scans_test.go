package client

import (
	"context"
	"errors"
	"net/http"
	"testing"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func TestScanAndDriftRequests(t *testing.T) {
	ctx := context.Background()
	const name, version = "io.github.acme/weather", "1.0.0-rc.1+build"
	const base = "/v1/servers/io.github.acme/weather/versions/1.0.0-rc.1+build"
	tests := []struct {
		name                      string
		call                      func(c *Client) error
		method, path, query, body string
	}{
		{"scan", func(c *Client) error { _, err := c.ScanVersion(ctx, name, version); return err },
			"POST", base + "/scan", "", `{}`},
		{"list scans", func(c *Client) error { _, err := c.ListScans(ctx, name, version, 0, ""); return err },
			"GET", base + "/scans", "", ""},
		{"list scans paged", func(c *Client) error { _, err := c.ListScans(ctx, name, version, 5, "t/1="); return err },
			"GET", base + "/scans", "pageSize=5&pageToken=t%2F1%3D", ""},
		{"list all drift events", func(c *Client) error {
			_, err := c.ListDriftEvents(ctx, &mcpregv1.ListDriftEventsRequest{})
			return err
		}, "GET", "/v1/drift-events", "", ""},
		{"list drift events filtered", func(c *Client) error {
			_, err := c.ListDriftEvents(ctx, &mcpregv1.ListDriftEventsRequest{Name: name, Version: version, Status: "open", PageSize: 2})
			return err
		}, "GET", "/v1/drift-events", "name=io.github.acme%2Fweather&pageSize=2&status=open&version=1.0.0-rc.1%2Bbuild", ""},
		{"accept drift", func(c *Client) error { _, err := c.AcceptDrift(ctx, 42, "new wording reviewed"); return err },
			"POST", "/v1/drift-events/42/accept", "", `{"reason":"new wording reviewed"}`},
		{"decline drift", func(c *Client) error { _, err := c.DeclineDrift(ctx, 7, "rug pull"); return err },
			"POST", "/v1/drift-events/7/decline", "", `{"reason":"rug pull"}`},
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

func TestScanAndDriftArgumentsRejectedBeforeSending(t *testing.T) {
	c := noNetwork(t)
	ctx := context.Background()
	calls := map[string]func() error{
		"scan without namespace": func() error { _, err := c.ScanVersion(ctx, "weather", "1.0.0"); return err },
		"scan empty version":     func() error { _, err := c.ScanVersion(ctx, "io.github.acme/weather", ""); return err },
		"scans bad name":         func() error { _, err := c.ListScans(ctx, "a/b/c", "1", 0, ""); return err },
		"drift version without name": func() error {
			_, err := c.ListDriftEvents(ctx, &mcpregv1.ListDriftEventsRequest{Version: "1.0.0"})
			return err
		},
		"accept empty reason": func() error { _, err := c.AcceptDrift(ctx, 1, ""); return err },
		"decline zero id":     func() error { _, err := c.DeclineDrift(ctx, 0, "why"); return err },
		"accept negative id":  func() error { _, err := c.AcceptDrift(ctx, -3, "why"); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, ErrInvalid) {
				t.Fatalf("error = %v, want ErrInvalid", err)
			}
		})
	}
}

// The result decodes the way the gateway writes it: int64 ids as strings.
func TestScanResultDecodes(t *testing.T) {
	rec := &recorder{status: http.StatusOK, body: `{"scan":{"id":"12","outcome":"drift","driftEventId":"3"},
		"driftEvent":{"id":"3","action":"quarantine","status":"open","changes":[{"class":"description_changed",
		"words":[{"op":"equal","text":"Get"},{"op":"insert","text":" now"}]}]},"state":"quarantined"}`}
	res, err := newTestClient(t, rec, "").ScanVersion(context.Background(), "io.github.acme/weather", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if res.GetScan().GetId() != 12 || res.GetDriftEvent().GetId() != 3 || res.GetState() != "quarantined" ||
		len(res.GetDriftEvent().GetChanges()[0].GetWords()) != 2 {
		t.Fatalf("decoded %v", res)
	}
}
