package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/store"
)

// Canary credentials: they must never be stored in the clear, logged or
// shown.
const (
	readerCanary = "reader-canary-7f3a91d2"
	adminCanary  = "admin-canary-c04e22b8"
)

// tokenFixture is a Streamable HTTP MCP server whose tool list depends on
// the bearer token: a reader sees get_forecast, an admin also
// delete_alerts; anyone else gets 401.
type tokenFixture struct {
	mu sync.Mutex
	// leak makes the reader's server echo its token in a description.
	leak bool
	// as is the authorization server its OAuth metadata names (a path
	// on the fixture); metadataTo, when set, redirects the metadata
	// request there.
	as, metadataTo string
	scopes         []string
	url            string
	// flip shows the reader an extra tool in every other session (a
	// session starts with server/discover); sessions counts them.
	flip     bool
	sessions int
}

func newTokenFixture(t *testing.T) *tokenFixture {
	f := &tokenFixture{}
	tool := func(s *mcp.Server, name, desc string) {
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(`{"type":"object"}`)}, noResult)
	}
	mcpHandler := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		f.mu.Lock()
		defer f.mu.Unlock()
		s := mcp.NewServer(&mcp.Implementation{Name: "alerts", Version: "1.0.0"}, nil)
		desc := "Get the forecast for a city."
		if f.leak {
			desc += " Session: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		tool(s, "get_forecast", desc)
		if f.flip && f.sessions%2 == 1 {
			tool(s, "get_history", "Past forecasts.")
		}
		if r.Header.Get("Authorization") == "Bearer "+adminCanary {
			tool(s, "delete_alerts", "Delete the alerts of a state.")
		}
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: true})
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		as, to, scopes := f.as, f.metadataTo, f.scopes
		f.mu.Unlock()
		switch {
		case r.URL.Path == "/.well-known/oauth-protected-resource/mcp" && to != "":
			http.Redirect(w, r, to, http.StatusFound)
			return
		case r.URL.Path == "/.well-known/oauth-protected-resource/mcp" && as != "":
			writeJSONDoc(w, map[string]any{"resource": f.url, "authorization_servers": []string{ts.URL + "/" + as}, "scopes_supported": scopes})
			return
		case strings.HasPrefix(r.URL.Path, "/.well-known/oauth-authorization-server/"):
			writeJSONDoc(w, map[string]any{"issuer": ts.URL + "/" + strings.TrimPrefix(r.URL.Path, "/.well-known/oauth-authorization-server/"),
				"token_endpoint": ts.URL + "/token"})
			return
		case strings.HasPrefix(r.URL.Path, "/.well-known/"):
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "" && r.URL.Path != "/mcp" {
			t.Errorf("a credential was sent to %s", r.URL.Path)
		}
		if r.Header.Get("Mcp-Method") == "server/discover" {
			f.mu.Lock()
			f.sessions++
			f.mu.Unlock()
		}
		if a := r.Header.Get("Authorization"); a != "Bearer "+readerCanary && a != "Bearer "+adminCanary {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+"http://"+r.Host+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	f.url = ts.URL + "/mcp"
	return f
}

// TestScanCredentials: issue 17's token-dependent fixture. An admin gives
// the scanner two credential sets; the registry pins the union of what
// each was shown, each tool with the scopes its sets share, and a host
// with the narrower token that sees fewer tools is not drifted. The
// canary values appear in no API answer, no database row and no log line;
// a server that echoes one gets its answer refused, nothing stored.
func TestScanCredentials(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	admin := in.Token(t, "root", registry.RoleAdmin)
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	alice := in.Token(t, "alice", registry.RoleReviewer)
	host := in.Token(t, "laptop", registry.RoleHost)
	fx := newTokenFixture(t)
	const name = "io.github.acme/alerts"
	creds := in.URL + "/v1/servers/" + name + "/scan-credentials/"
	origin := strings.TrimSuffix(fx.url, "/mcp")
	set := func(token, label, secret string, scopes ...string) response {
		return call(t, "PUT", creds+label, token, map[string]any{"headers": map[string]string{"Authorization": "Bearer " + secret},
			"scopes": scopes, "origin": origin})
	}
	var answers []string
	for _, tt := range []struct {
		token, label, secret string
		scopes               []string
		status               int
		msg                  string
	}{
		{owner, "reader", readerCanary, nil, http.StatusForbidden, "role owner"},
		{alice, "reader", readerCanary, nil, http.StatusForbidden, "role reviewer"},
		{admin, "Reader!", readerCanary, nil, http.StatusBadRequest, "label"},
		{admin, "reader", readerCanary, []string{"bad scope"}, http.StatusBadRequest, "scope"},
		{admin, "reader", readerCanary, []string{"weather:read"}, http.StatusOK, ""},
		{admin, "admin", adminCanary, []string{"weather:read", "weather:admin"}, http.StatusOK, ""},
	} {
		r := set(tt.token, tt.label, tt.secret, tt.scopes...)
		answers = append(answers, string(r.Body))
		if r.Status != tt.status || (tt.msg != "" && !strings.Contains(r.message(t), tt.msg)) {
			t.Fatalf("set %s as %s: %d %s, want %d with %q", tt.label, tt.token[:4], r.Status, r.Body, tt.status, tt.msg)
		}
	}
	for _, body := range []map[string]any{
		{"headers": map[string]string{"Mcp-Session-Id": "x"}, "origin": origin},
		{"headers": map[string]string{"Authorization": "x"}},
		{"headers": map[string]string{"Authorization": "x"}, "origin": fx.url},
		{"env": map[string]string{"API_KEY": "x"}},
	} {
		if r := call(t, "PUT", creds+"bad", admin, body); r.Status != http.StatusBadRequest {
			t.Fatalf("credentials %v: %d %s", body, r.Status, r.Body)
		}
	}
	list := ok(t, "list", call(t, "GET", in.URL+"/v1/servers/"+name+"/scan-credentials", alice, nil))
	answers = append(answers, string(list.Body))
	if !strings.Contains(string(list.Body), `"headerNames":["Authorization"]`) || !strings.Contains(string(list.Body), `"label":"admin"`) {
		t.Fatalf("list: %s", list.Body)
	}

	sj := liveServerJSON(name, fx.url)
	v := ok(t, "live submit", call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": sj, "live": true})).json(t)
	scopes := map[string][]string{}
	for _, tp := range v["pins"].(map[string]any)["tools"].([]any) {
		tp := tp.(map[string]any)
		for _, s := range tp["scopes"].([]any) {
			scopes[tp["name"].(string)] = append(scopes[tp["name"].(string)], s.(string))
		}
	}
	if !slices.Equal(scopes["get_forecast"], []string{"weather:read"}) || !slices.Equal(scopes["delete_alerts"], []string{"weather:admin", "weather:read"}) {
		t.Fatalf("tool scopes %v (pins %v)", scopes, v["pins"])
	}
	base := in.URL + "/v1/servers/" + name + "/versions/1.0.0"
	ok(t, "approve", call(t, "POST", base+"/approve", alice, map[string]any{"reason": "reviewed"}))
	res := call(t, "POST", base+"/scan", alice, map[string]any{}).json(t)
	if res["scan"].(map[string]any)["outcome"] != string(states.OutcomeMatch) {
		t.Fatalf("scan with both credential sets: %v", res)
	}
	// A host whose token only reads sees get_forecast alone: not drift.
	readerView := `{"tools":[{"name":"get_forecast","description":"Get the forecast for a city.","inputSchema":{"type":"object"}}]}`
	chk := ok(t, "check", call(t, "POST", in.URL+"/v1/discovery/check", host, map[string]any{"name": name, "tools": readerView})).json(t)
	if chk["verdict"] != registry.VerdictAllowed {
		t.Fatalf("a narrower host's view: %v", chk)
	}

	// An owner pointing a new version at a server of their own does not
	// get the credentials sent there: the live read fails, naming why.
	var stolen []string
	var mu sync.Mutex
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stolen = append(stolen, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer evil.Close()
	sj2 := strings.Replace(liveServerJSON(name, evil.URL+"/mcp"), `"version":"1.0.0"`, `"version":"2.0.0"`, 1)
	r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": sj2, "live": true})
	mu.Lock()
	got := strings.Join(stolen, "")
	mu.Unlock()
	if r.Status != http.StatusConflict || !strings.Contains(r.message(t), "may be sent to "+origin+" only") || strings.Contains(got, "canary") {
		t.Fatalf("a version pointing elsewhere: %d %s; the other server saw %q", r.Status, r.Body, got)
	}

	// A server that echoes its credential: refused, nothing stored.
	fx.mu.Lock()
	fx.leak = true
	fx.mu.Unlock()
	res = call(t, "POST", base+"/scan", alice, map[string]any{"fresh": true}).json(t)
	sc := res["scan"].(map[string]any)
	if sc["outcome"] != string(states.OutcomeError) || !strings.Contains(sc["error"].(string), "contains the value of credentials") {
		t.Fatalf("scan of a server echoing its token: %v", sc)
	}
	answers = append(answers, fmt.Sprint(res))
	for _, a := range answers {
		if strings.Contains(a, "canary") {
			t.Fatalf("an API answer shows a credential: %s", a)
		}
	}
	if dump := dumpDatabase(t, in.Store); strings.Contains(dump, readerCanary) || strings.Contains(dump, adminCanary) {
		t.Fatal("a database row holds a canary credential in the clear")
	}
	if logs := in.Logs.String(); strings.Contains(logs, "canary") {
		t.Fatal("the service logged a canary credential")
	}
}

func writeJSONDoc(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// TestOAuthMetadata: what a remote says about its authorization. Scopes it
// offers beyond the contract's are a medium finding; its authorization
// server changing after approval is auth_changed and quarantines; metadata
// that redirects to the cloud metadata address is refused, and the scan
// itself still reads the tools.
func TestOAuthMetadata(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	admin := in.Token(t, "root", registry.RoleAdmin)
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	alice := in.Token(t, "alice", registry.RoleReviewer)
	fx := newTokenFixture(t)
	fx.as, fx.scopes = "as1", []string{"weather:read", "weather:admin"}
	const name = "io.github.acme/alerts"
	ok(t, "credentials", call(t, "PUT", in.URL+"/v1/servers/"+name+"/scan-credentials/reader", admin,
		map[string]any{"headers": map[string]string{"Authorization": "Bearer " + readerCanary}, "scopes": []string{"weather:read"},
			"origin": strings.TrimSuffix(fx.url, "/mcp")}))
	contract := "contractVersion: mcpreg.contract/v1\nowner: alerts-team\nauth: {mode: delegated_oauth, tokenAudience: \"" + fx.url +
		"\", scopes: [weather:read], tokenTtl: 15m}\nisolation: remote_managed\negress: {mode: internal_only}\n"
	v := ok(t, "live submit", call(t, "POST", in.URL+"/v1/versions", owner,
		map[string]any{"serverJson": liveServerJSON(name, fx.url), "live": true, "contract": contract})).json(t)
	var kinds []string
	for _, f := range v["findings"].([]any) {
		f := f.(map[string]any)
		kinds = append(kinds, f["kind"].(string))
		if f["kind"] == registry.KindScopesBeyondContract && (f["severity"] != "medium" || f["evidence"] != "weather:admin") {
			t.Errorf("scopes finding %v", f)
		}
	}
	if !slices.Contains(kinds, registry.KindScopesBeyondContract) || slices.Contains(kinds, registry.KindAudienceMismatch) {
		t.Fatalf("findings at submission: %v", kinds)
	}
	base := in.URL + "/v1/servers/" + name + "/versions/1.0.0"
	ok(t, "approve", call(t, "POST", base+"/approve", alice, map[string]any{"reason": "reviewed", "acknowledgedWidenings": []string{}}))
	if res := call(t, "POST", base+"/scan", alice, map[string]any{}).json(t); res["scan"].(map[string]any)["outcome"] != string(states.OutcomeMatch) {
		t.Fatalf("scan of an unchanged server: %v", res)
	}

	fx.mu.Lock()
	fx.as = "as2"
	fx.mu.Unlock()
	res := call(t, "POST", base+"/scan", alice, map[string]any{}).json(t)
	ev, _ := res["driftEvent"].(map[string]any)
	changes, _ := ev["changes"].([]any)
	if res["state"] != "quarantined" || len(changes) != 1 || changes[0].(map[string]any)["class"] != string(diffreview.ClassAuthChanged) ||
		!strings.Contains(changes[0].(map[string]any)["after"].(string), "/as2") {
		t.Fatalf("a changed authorization server: state %v, changes %v", res["state"], changes)
	}

	fx.mu.Lock()
	fx.metadataTo = "http://169.254.169.254/latest/meta-data/"
	fx.mu.Unlock()
	res = call(t, "POST", base+"/scan", alice, map[string]any{"fresh": true}).json(t)
	if res["scan"].(map[string]any)["outcome"] == string(states.OutcomeError) {
		t.Fatalf("metadata redirecting to a metadata address failed the scan: %v", res)
	}
	v = ok(t, "get", call(t, "GET", base, alice, nil)).json(t)
	refused := false
	for _, f := range v["findings"].([]any) {
		f := f.(map[string]any)
		refused = refused || (f["kind"] == "auth.metadata_refused" && f["severity"] == "high" && strings.Contains(f["message"].(string), "169.254.169.254"))
	}
	if !refused {
		t.Fatalf("no finding refusing the redirect: %v", v["findings"])
	}
}

// TestSessionVariance: one identity shown different tools in its two
// sessions is a high scan.session_variance.
func TestSessionVariance(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	admin := in.Token(t, "root", registry.RoleAdmin)
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	fx := newTokenFixture(t)
	fx.flip = true
	const name = "io.github.acme/alerts"
	ok(t, "credentials", call(t, "PUT", in.URL+"/v1/servers/"+name+"/scan-credentials/reader", admin,
		map[string]any{"headers": map[string]string{"Authorization": "Bearer " + readerCanary}, "origin": strings.TrimSuffix(fx.url, "/mcp")}))
	v := ok(t, "live submit", call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": liveServerJSON(name, fx.url), "live": true})).json(t)
	found := false
	for _, f := range v["findings"].([]any) {
		f := f.(map[string]any)
		found = found || (f["kind"] == registry.KindSessionVariance && f["severity"] == "high" && strings.Contains(f["message"].(string), "reader"))
	}
	fx.mu.Lock()
	sessions := fx.sessions
	fx.mu.Unlock()
	if sessions < 2 || !found {
		t.Fatalf("%d sessions; findings %v", sessions, v["findings"])
	}
}

// dumpDatabase is every row of every table as text.
func dumpDatabase(t *testing.T, st *store.Store) string {
	t.Helper()
	ctx := context.Background()
	rows, err := st.DB.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	_ = rows.Close()
	var b strings.Builder
	for _, table := range tables {
		rs, err := st.DB.QueryContext(ctx, `SELECT * FROM "`+table+`"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rs.Columns()
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					b.Write(bs)
				} else {
					fmt.Fprint(&b, v)
				}
				b.WriteByte('\t')
			}
		}
		_ = rs.Close()
	}
	if b.Len() < 1000 {
		t.Fatalf("the dump is too short to mean anything: %d bytes", b.Len())
	}
	return b.String()
}
