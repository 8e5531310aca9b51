package registry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/ent/principal"
	entupstream "github.com/mcpreg/mcpreg/internal/ent/upstream"
	"github.com/mcpreg/mcpreg/internal/ent/upstreamrecord"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/secrets"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/upstream"
	"github.com/mcpreg/mcpreg/internal/upstream/upstreamtest"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// upstreamLimits are small caps, so the hostile cases trip them fast.
func upstreamLimits() upstream.Limits {
	l := upstream.DefaultLimits()
	l.PageSize, l.MaxPages, l.RequestTimeout, l.MaxPageBytes = 2, 20, 2*time.Second, 1<<20
	return l
}

func newUpstreamService(t *testing.T, st *store.Store) *registry.Services {
	t.Helper()
	raw := bytes.Repeat([]byte{7}, secrets.KeySize)
	key, err := secrets.New(raw)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.New(context.Background(), st, registry.WithUpstreamLimits(upstreamLimits()),
		registry.WithScanning(registry.Scanning{SecretsKey: key}))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// addFake registers the fake as upstream "fake" over io.github.acme,
// imported without reading tools.
func addFake(t *testing.T, svc *registry.Services, f *upstreamtest.Fake, token string) {
	t.Helper()
	_, err := svc.Upstreams.AddUpstream(context.Background(), admin, registry.UpstreamInput{Name: "fake", URL: f.URL,
		Namespaces: []string{"io.github.acme"}, Allow: []string{"127.0.0.1"}, Tools: registry.UpstreamToolsNone, Token: token})
	if err != nil {
		t.Fatal(err)
	}
}

func syncFake(t *testing.T, svc *registry.Services) *registry.SyncResult {
	t.Helper()
	res, err := svc.Upstreams.SyncUpstream(context.Background(), admin, "fake")
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return res
}

// importedVersions are the versions upstream:fake submitted, as name@version.
func importedVersions(t *testing.T, st *store.Store) []string {
	t.Helper()
	vs, err := st.Client.Version.Query().Where(version.SubmittedBy("upstream:fake")).WithServer().All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range vs {
		out = append(out, v.Edges.Server.Name+"@"+v.Version)
	}
	slices.Sort(out)
	return out
}

// TestUpstreamSyncImportsIntoReview: a pass imports the versions in the
// upstream's namespaces into pending_review, submitted by the upstream's
// system principal with their provenance, skips the others, and sends
// the sealed token to the upstream; the next pass imports nothing twice
// and a new upstream version is imported then. An imported version
// without a tool snapshot cannot be approved.
func TestUpstreamSyncImportsIntoReview(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		svc := newUpstreamService(t, st)
		f := upstreamtest.New(t)
		f.Token = "upstream-secret-token-1234"
		for _, n := range []string{"io.github.acme/a", "io.github.acme/b", "io.github.acme/c", "io.github.other/x"} {
			f.Put(upstreamtest.Server{Name: n, Version: "1.0.0"})
		}
		addFake(t, svc, f, f.Token)
		res := syncFake(t, svc)
		if res.Stopped != "" || res.Counts["imported"] != 3 || res.Counts["skipped"] != 1 || res.Counts["pages"] != 2 {
			t.Fatalf("first pass: %+v", res)
		}
		want := []string{"io.github.acme/a@1.0.0", "io.github.acme/b@1.0.0", "io.github.acme/c@1.0.0"}
		if got := importedVersions(t, st); !slices.Equal(got, want) {
			t.Fatalf("imported %v, want %v", got, want)
		}
		for _, a := range f.Authorizations() {
			if a != "Bearer "+f.Token {
				t.Errorf("the upstream got Authorization %q", a)
			}
		}
		up, err := st.Client.Upstream.Query().Where(entupstream.Name("fake")).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(up.TokenSealed, []byte(f.Token)) || len(up.TokenSealed) == 0 {
			t.Errorf("the token is not sealed at rest")
		}
		if up.Since == nil || up.PassStartedAt != nil || up.Cursor != "" {
			t.Errorf("after a complete pass: since %v, pass started %v, cursor %q", up.Since, up.PassStartedAt, up.Cursor)
		}
		p, err := st.Client.Principal.Query().Where(principal.Name("upstream:fake")).Only(ctx)
		if err != nil || p.Kind != principal.KindUpstream || p.PasswordHash != "" {
			t.Fatalf("system principal: %+v %v", p, err)
		}

		v, err := svc.Review.GetVersion(ctx, reviewer, "io.github.acme/a", "1.0.0")
		if err != nil {
			t.Fatal(err)
		}
		if v.GetState() != "pending_review" || v.GetSubmittedBy() != "upstream:fake" || v.GetOwner() != "upstream:fake" {
			t.Errorf("imported version: state %s, submitted by %s, owner %s", v.GetState(), v.GetSubmittedBy(), v.GetOwner())
		}
		prov := v.GetUpstream()
		if prov.GetUpstream() != "fake" || prov.GetUrl() != f.URL || prov.GetPublishedAt() == nil ||
			!strings.Contains(prov.GetMeta(), upstream.OfficialMetaKey) || !strings.HasPrefix(prov.GetContentHash(), "sha256:") {
			t.Errorf("provenance: %+v", prov)
		}
		if v.GetSnapshot().GetSource() != registry.SnapshotSourceNone || !hasFinding(v.GetFindings(), registry.KindUpstreamNoSnapshot) {
			t.Errorf("a version imported without tools: snapshot %q, findings %v", v.GetSnapshot().GetSource(), v.GetFindings())
		}
		_, err = svc.Review.Transition(ctx, reviewer, registry.ActionApprove, "io.github.acme/a", "1.0.0", "looks fine")
		if !errors.Is(err, registry.ErrFailedPrecondition) || !strings.Contains(err.Error(), "no tool snapshot") {
			t.Errorf("approving a version without a tool snapshot: %v", err)
		}

		res = syncFake(t, svc)
		if res.Counts["imported"] != 0 || res.Counts["unchanged"] != 3 {
			t.Errorf("second pass over the same upstream: %+v", res.Counts)
		}
		f.Put(upstreamtest.Server{Name: "io.github.acme/a", Version: "1.1.0"})
		res = syncFake(t, svc)
		if res.Counts["imported"] != 1 {
			t.Errorf("pass after a new version: %+v", res.Counts)
		}
		if n := len(importedVersions(t, st)); n != 4 {
			t.Errorf("%d versions imported, want 4 (each once)", n)
		}
		// The second and third passes asked only for what changed since
		// the pass before, minus the skew.
		if got := f.Cursors(); len(got) < 4 {
			t.Errorf("cursors asked for: %v", got)
		}
	})
}

func hasFinding[F interface{ GetKind() string }](fs []F, kind string) bool {
	return slices.ContainsFunc(fs, func(f F) bool { return f.GetKind() == kind })
}

// TestUpstreamSyncHostile: what an upstream can do wrong stops the pass
// with a clear error, or is recorded per entry while the pass goes on;
// nothing local is overwritten and a pass cut short resumes from its last
// good cursor, importing every version exactly once.
func TestUpstreamSyncHostile(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		svc := newUpstreamService(t, st)
		f := upstreamtest.New(t)
		for i := range 6 {
			f.Put(upstreamtest.Server{Name: fmt.Sprintf("io.github.acme/s%d", i), Version: "1.0.0"})
		}
		// An entry whose server.json the submission rules refuse, and one
		// that is not an object.
		f.Put(upstreamtest.Server{Name: "io.github.acme/s2b", Version: "1.0.0",
			JSON: json.RawMessage(`{"$schema":"` + upstreamtest.SchemaURL + `","name":"io.github.acme/s2b","version":"1.0.0"}`)})
		// A name with terminal escapes and a bidirectional override, and
		// an entry whose _meta is too large to keep.
		f.Put(upstreamtest.Server{Name: "io.github.acme/s2c\x1b[2J\u202e", Version: "1.0.0"})
		f.Put(upstreamtest.Server{Name: "io.github.acme/s3", Version: "1.0.0",
			JSON: upstreamtest.ServerJSON("io.github.acme/s3", "1.0.0", "Test server", ""), StatusMessage: strings.Repeat("m", 70<<10)})
		// A local server of another owner under a name the upstream also
		// lists.
		submit(t, svc, owner, "io.github.acme/s4", "1.0.0")
		addFake(t, svc, f, "")

		// The upstream fails on the third page: the pass stops, what the
		// first two pages listed is imported, the cursor is kept.
		f.Intercept = func(w http.ResponseWriter, _ *http.Request, page int) bool {
			if page == 3 {
				http.Error(w, "upstream overloaded\x1b[31m", http.StatusServiceUnavailable)
				return true
			}
			return false
		}
		res := syncFake(t, svc)
		if res.Stopped == "" || !strings.Contains(res.Stopped, "503") || strings.ContainsRune(res.Stopped, 0x1b) {
			t.Fatalf("a 503 on page 3: stopped %q", res.Stopped)
		}
		if res.Counts["invalid"] != 1 || !slices.ContainsFunc(res.Errors, func(e string) bool { return strings.Contains(e, "io.github.acme/s2b") }) {
			t.Errorf("the refused server.json: %+v %v", res.Counts, res.Errors)
		}
		up, _ := st.Client.Upstream.Query().Where(entupstream.Name("fake")).Only(ctx)
		if up.Cursor == "" || up.PassStartedAt == nil || up.Since != nil || !strings.Contains(up.LastError, "503") {
			t.Fatalf("after the failed pass: cursor %q, started %v, since %v, error %q", up.Cursor, up.PassStartedAt, up.Since, up.LastError)
		}
		resumeAt := up.Cursor

		// Fixed: the next pass resumes at that cursor and finishes.
		f.Intercept = nil
		before := len(f.Cursors())
		res = syncFake(t, svc)
		if res.Stopped != "" {
			t.Fatalf("resumed pass: %s", res.Stopped)
		}
		if got := f.Cursors()[before]; got != resumeAt {
			t.Errorf("the resumed pass asked first for cursor %q, want %q", got, resumeAt)
		}
		if !slices.ContainsFunc(res.Errors, func(e string) bool { return strings.Contains(e, "io.github.acme/s2c") }) {
			t.Errorf("the name with control characters was not refused: %v", res.Errors)
		}
		for _, e := range res.Errors {
			if strings.ContainsAny(e, "\x1b\u202e") {
				t.Errorf("an entry error carries the upstream's control characters: %q", e)
			}
		}
		want := []string{"io.github.acme/s0@1.0.0", "io.github.acme/s1@1.0.0", "io.github.acme/s2@1.0.0", "io.github.acme/s3@1.0.0", "io.github.acme/s5@1.0.0"}
		if got := importedVersions(t, st); !slices.Equal(got, want) {
			t.Errorf("imported %v, want %v", got, want)
		}
		big, err := st.Client.UpstreamRecord.Query().Where(upstreamrecord.ServerName("io.github.acme/s3")).Only(ctx)
		if err != nil || len(big.Meta) > 1024 || !strings.Contains(string(big.Meta), "not kept") {
			t.Errorf("an oversized _meta was kept: %d bytes, %v", len(big.Meta), err)
		}
		// The local server under the same name was not merged: a conflict
		// finding on it, its owner and its version unchanged.
		local, err := svc.Review.GetVersion(ctx, reviewer, "io.github.acme/s4", "1.0.0")
		if err != nil {
			t.Fatal(err)
		}
		if local.GetOwner() != owner.Principal || local.GetSubmittedBy() != owner.Principal || !hasFinding(local.GetFindings(), registry.KindUpstreamConflict) {
			t.Errorf("the local server: owner %s, submitted by %s, findings %v", local.GetOwner(), local.GetSubmittedBy(), local.GetFindings())
		}
		rec, err := st.Client.UpstreamRecord.Query().Where(upstreamrecord.ServerName("io.github.acme/s4")).Only(ctx)
		if err != nil || rec.VersionID != nil || rec.Detail == "" {
			t.Errorf("the conflict's record: %+v %v", rec, err)
		}

		// The upstream changes an imported version: a finding, the
		// imported copy stays.
		imported, _ := svc.Review.GetVersion(ctx, reviewer, "io.github.acme/s0", "1.0.0")
		f.Put(upstreamtest.Server{Name: "io.github.acme/s0", Version: "1.0.0",
			JSON: upstreamtest.ServerJSON("io.github.acme/s0", "1.0.0", "Now it does something else", "")})
		res = syncFake(t, svc)
		after, _ := svc.Review.GetVersion(ctx, reviewer, "io.github.acme/s0", "1.0.0")
		if res.Counts["conflicts"] != 1 || after.GetServerJson() != imported.GetServerJson() || !hasFinding(after.GetFindings(), registry.KindUpstreamConflict) {
			t.Errorf("a changed upstream copy: %+v, server.json kept %v, findings %v", res.Counts, after.GetServerJson() == imported.GetServerJson(), after.GetFindings())
		}
	})
}

// TestUpstreamSyncStopsMisbehavingUpstreams: an upstream that pages on
// for ever, repeats a cursor, answers too much, hangs, redirects away or
// sits at an address not allowed stops the pass with an error naming
// what it did; the service goes on.
func TestUpstreamSyncStopsMisbehavingUpstreams(t *testing.T) {
	st := storetest.Open(t, store.DialectSQLite)
	svc := newUpstreamService(t, st)
	ctx := context.Background()
	entries := func(cursor string) string {
		return `{"servers":[{"server":` + string(upstreamtest.ServerJSON("io.github.acme/loop", "1.0.0", "Loop", "")) +
			`}],"metadata":{"nextCursor":"` + cursor + `","count":1}}`
	}
	cases := []struct {
		name      string
		intercept func(w http.ResponseWriter, r *http.Request, page int) bool
		allow     []string
		want      string
	}{
		{"pages for ever", func(w http.ResponseWriter, _ *http.Request, page int) bool {
			_, _ = fmt.Fprint(w, entries(fmt.Sprintf("c%d", page)))
			return true
		}, []string{"127.0.0.1"}, "more than 20 pages"},
		{"repeats a cursor", func(w http.ResponseWriter, _ *http.Request, page int) bool {
			_, _ = fmt.Fprint(w, entries(fmt.Sprintf("c%d", page%3)))
			return true
		}, []string{"127.0.0.1"}, "repeated the cursor"},
		{"answers too much", func(w http.ResponseWriter, _ *http.Request, _ int) bool {
			_, _ = w.Write(bytes.Repeat([]byte(" "), 1<<20+1))
			return true
		}, []string{"127.0.0.1"}, "larger than 1048576 bytes"},
		{"is not a server list", func(w http.ResponseWriter, _ *http.Request, _ int) bool {
			_, _ = fmt.Fprint(w, `<html>hello</html>`)
			return true
		}, []string{"127.0.0.1"}, "not a server list"},
		{"hangs", func(_ http.ResponseWriter, r *http.Request, _ int) bool {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return true
		}, []string{"127.0.0.1"}, "timeout"},
		{"redirects to another origin", func(w http.ResponseWriter, r *http.Request, _ int) bool {
			http.Redirect(w, r, "http://localhost:1/v0.1/servers", http.StatusFound)
			return true
		}, []string{"127.0.0.1"}, "another origin"},
		{"is at an address not allowed", nil, nil, "loopback"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := upstreamtest.New(t)
			f.Intercept = c.intercept
			name := fmt.Sprintf("bad%d", i)
			_, err := svc.Upstreams.AddUpstream(ctx, admin, registry.UpstreamInput{Name: name, URL: f.URL,
				Namespaces: []string{"io.github.acme"}, Allow: c.allow, Tools: registry.UpstreamToolsNone})
			if err != nil {
				t.Fatal(err)
			}
			res, err := svc.Upstreams.SyncUpstream(ctx, admin, name)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Stopped, c.want) {
				t.Errorf("stopped %q, want it to say %q", res.Stopped, c.want)
			}
			if res.Upstream.GetLastError() == "" || res.Upstream.GetLastSuccessAt() != nil {
				t.Errorf("upstream after the failed pass: %+v", res.Upstream)
			}
		})
	}
	// The loop's version was imported once, whatever the upstream did.
	n, err := st.Client.Version.Query().Count(ctx)
	if err != nil || n != 1 {
		t.Errorf("%d versions stored (%v), want the one the looping upstreams listed", n, err)
	}
}

// TestUpstreamAdminInput: registering checks everything it is given and
// is for admins only; the upstream principal cannot be taken over.
func TestUpstreamAdminInput(t *testing.T) {
	st := storetest.Open(t, store.DialectSQLite)
	svc := newUpstreamService(t, st)
	ctx := context.Background()
	ok := registry.UpstreamInput{Name: "up", URL: "https://registry.example.com", Namespaces: []string{"*"}}
	for _, c := range []struct {
		name string
		edit func(*registry.UpstreamInput)
		want string
	}{
		{"bad name", func(in *registry.UpstreamInput) { in.Name = "Up/../x" }, "upstream name"},
		{"no namespace", func(in *registry.UpstreamInput) { in.Namespaces = nil }, "namespace pattern"},
		{"bad namespace", func(in *registry.UpstreamInput) { in.Namespaces = []string{"io.github.*.x"} }, "namespace pattern"},
		{"ftp url", func(in *registry.UpstreamInput) { in.URL = "ftp://registry.example.com" }, "http or https"},
		{"credentials in url", func(in *registry.UpstreamInput) { in.URL = "https://u:p@registry.example.com" }, "token"},
		{"query in url", func(in *registry.UpstreamInput) { in.URL = "https://registry.example.com/?x=1" }, "no query"},
		{"token with newline", func(in *registry.UpstreamInput) { in.Token = "a\r\nX-Evil: 1" }, "line breaks"},
		{"bad allow", func(in *registry.UpstreamInput) { in.Allow = []string{"not a host!"} }, "allow"},
		{"bad tools", func(in *registry.UpstreamInput) { in.Tools = "some" }, "live or none"},
		{"tiny interval", func(in *registry.UpstreamInput) { d := time.Second; in.Interval = &d }, "interval"},
	} {
		in := ok
		c.edit(&in)
		_, err := svc.Upstreams.AddUpstream(ctx, admin, in)
		if !errors.Is(err, registry.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an invalid-argument error naming %q", c.name, err, c.want)
		}
	}
	for _, c := range []*registry.Caller{reviewer, owner} {
		if _, err := svc.Upstreams.AddUpstream(ctx, c, ok); !errors.Is(err, registry.ErrPermissionDenied) {
			t.Errorf("%s registering an upstream: %v", c.Principal, err)
		}
		if _, err := svc.Upstreams.SyncUpstream(ctx, c, "up"); !errors.Is(err, registry.ErrPermissionDenied) {
			t.Errorf("%s syncing an upstream: %v", c.Principal, err)
		}
		if _, err := svc.Upstreams.StartSync(ctx, c, "up"); !errors.Is(err, registry.ErrPermissionDenied) {
			t.Errorf("%s starting a pass: %v", c.Principal, err)
		}
	}
	if _, err := svc.Upstreams.AddUpstream(ctx, admin, ok); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Upstreams.AddUpstream(ctx, admin, ok); !errors.Is(err, registry.ErrAlreadyExists) {
		t.Errorf("registering twice: %v", err)
	}
	if _, err := svc.Upstreams.SyncUpstream(ctx, admin, "nope"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("syncing an unknown upstream: %v", err)
	}
	if _, err := svc.Upstreams.RemoveUpstream(ctx, admin, "up"); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Client.Upstream.Query().Count(ctx); n != 0 {
		t.Errorf("%d upstreams after removal", n)
	}
	// Re-registering reuses the system principal.
	if _, err := svc.Upstreams.AddUpstream(ctx, admin, ok); err != nil {
		t.Fatal(err)
	}
	events, err := st.Client.AuditEvent.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range events {
		if strings.HasPrefix(e.Action, "upstream.") {
			actions = append(actions, e.Action)
		}
	}
	if !slices.Equal(actions, []string{"upstream.add", "upstream.remove", "upstream.add"}) {
		t.Errorf("audited %v", actions)
	}
}

// TestUpstreamStartSyncNeedsTheSchedule: a pass started in the background
// runs under the upstream schedule of this process; without one it is
// refused and leaves the upstream free (no lease, no mark); with one it
// runs and, once it ends, the upstream is free again.
func TestUpstreamStartSyncNeedsTheSchedule(t *testing.T) {
	st := storetest.Open(t, store.DialectSQLite)
	svc := newUpstreamService(t, st)
	f := upstreamtest.New(t)
	f.Put(upstreamtest.Server{Name: "io.github.acme/a", Version: "1.0.0"})
	addFake(t, svc, f, "")
	ctx := context.Background()
	if _, err := svc.Upstreams.StartSync(ctx, admin, "fake"); !errors.Is(err, registry.ErrFailedPrecondition) || !strings.Contains(err.Error(), "background") {
		t.Fatalf("starting a pass with no schedule running: %v", err)
	}
	if res := syncFake(t, svc); res.Counts["imported"] != 1 {
		t.Fatalf("a pass after the refused start: %+v", res)
	}
	f.Put(upstreamtest.Server{Name: "io.github.acme/b", Version: "1.0.0"})
	schedCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- svc.Upstreams.RunUpstreamSchedule(schedCtx, time.Hour) }()
	var up *mcpregv1.Upstream
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var err error
		if up, err = svc.Upstreams.StartSync(ctx, admin, "fake"); err == nil || time.Now().After(end) {
			if err != nil {
				t.Fatalf("starting a pass with the schedule running: %v", err)
			}
			break
		}
	}
	if up.GetSyncingOn() == "" {
		t.Errorf("the started pass is not shown under way: %v", up)
	}
	var ups []*mcpregv1.Upstream
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		var err error
		if ups, err = svc.Upstreams.ListUpstreams(ctx, admin); err != nil {
			t.Fatal(err)
		}
		if ups[0].GetSyncingOn() == "" {
			break
		}
	}
	if got := importedVersions(t, st); ups[0].GetSyncingOn() != "" || len(got) != 2 {
		t.Errorf("after the background pass: %v, imported %v", ups, got)
	}
	if res := syncFake(t, svc); res.Counts["imported"] != 0 {
		t.Errorf("a pass after the background one: %+v", res)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
