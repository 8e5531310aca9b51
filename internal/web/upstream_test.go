package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/upstream/upstreamtest"
)

// TestReviewShowsUpstreamProvenance: a version imported from an upstream
// shows where it came from, the upstream's status and its _meta (escaped:
// it is text another registry wrote), and says it has no tool snapshot
// when its tools were not read, and that scanning it reads them.
func TestReviewShowsUpstreamProvenance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := upstreamtest.New(t)
	published := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	f.Put(upstreamtest.Server{Name: weather, Version: "1.0.0", PublishedAt: published, UpdatedAt: published,
		JSON: json.RawMessage(upstreamtest.ServerJSON(weather, "1.0.0", "Weather <b>bold</b>", ""))})
	ctx := context.Background()
	_, err := e.svc.Upstreams.AddUpstream(ctx, bootstrap, registry.UpstreamInput{Name: "pub", URL: f.URL,
		Namespaces: []string{"io.github.acme"}, Allow: []string{"127.0.0.1"}, Tools: registry.UpstreamToolsNone})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := e.svc.Upstreams.SyncUpstream(ctx, bootstrap, "pub"); err != nil || res.Counts["imported"] != 1 {
		t.Fatalf("sync: %+v %v", res, err)
	}
	alice := e.browser(t).signIn("alice")
	page := alice.get("/review/" + weather + "/1.0.0").Body
	mustContain(t, page, "Imported from", "upstream pub", f.URL, "No tool snapshot", "provenance only",
		"io.modelcontextprotocol.registry/official", `datetime="2026-11-03T10:00:00Z"`,
		"the first reading of the live server becomes its snapshot and pins")
	if strings.Contains(page, "<b>bold</b>") {
		t.Error("the upstream's text reached the page unescaped")
	}
	r := alice.decide(weather, "1.0.0", "approve", "looks fine")
	mustContain(t, r.Body, "no tool snapshot")
	if got := e.weatherState(t); got != "pending_review" {
		t.Errorf("state %s after approving a version without a tool snapshot", got)
	}
}

// TestReviewShowsDeprecation: a version its owner deprecated says so on
// the review page, with the message (escaped) and since when.
func TestReviewShowsDeprecation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.submit(t, owner, weather, "1.0.0", tools)
	if _, err := e.svc.Review.SetStatus(context.Background(), owner, weather, "1.0.0", "deprecated", "use <b>forecast</b> instead"); err != nil {
		t.Fatal(err)
	}
	page := e.browser(t).signIn("alice").get("/review/" + weather + "/1.0.0").Body
	mustContain(t, page, "deprecated", "use &lt;b&gt;forecast&lt;/b&gt; instead", "hosts see the message")
}
