package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// counts is a fingerprint of everything stored.
func counts(t *testing.T, st *store.Store) [6]int {
	t.Helper()
	ctx := context.Background()
	c := st.Client
	return [6]int{c.Server.Query().CountX(ctx), c.Version.Query().CountX(ctx), c.Tool.Query().CountX(ctx),
		c.PinRevision.Query().CountX(ctx), c.AuditEvent.Query().CountX(ctx), c.ReviewDecision.Query().CountX(ctx)}
}

func TestBadInputIsRefusedAndChangesNothing(t *testing.T) {
	for _, dialect := range storetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			in := servertest.Start(t, dialect, func(c *config.Config) { c.MaxBodyBytes = 64 << 10 })
			owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
			reviewer := in.Token(t, "bob", registry.RoleReviewer)
			host := in.Token(t, "edge", registry.RoleHost)
			if r := call(t, "POST", in.URL+"/v1/versions", owner, submitBody("io.github.acme/weather", "1.0.0", toolsJSON)); r.Status != 200 {
				t.Fatalf("seed submit: %d %s", r.Status, r.Body)
			}
			before := counts(t, in.Store)
			v1 := in.URL + "/v1/servers/io.github.acme/weather/versions/1.0.0"
			badSchema := `{"$schema":"` + schemaURL + `","name":"no slash here","description":"","packages":[{"registryType":"npm"}]}`
			cases := []struct {
				name, method, url, token string
				body                     any
				status                   int
				says                     []string
			}{
				{"malformed JSON body", "POST", in.URL + "/v1/versions", owner, `{"serverJson": `, 400, nil},
				{"unknown request field", "POST", in.URL + "/v1/versions", owner, `{"serverJSON2": "x"}`, 400, []string{"serverJSON2"}},
				{"server.json not JSON", "POST", in.URL + "/v1/versions", owner, map[string]any{"serverJson": "{nope", "tools": toolsJSON}, 400, []string{"serverJson"}},
				{"server.json fails schema", "POST", in.URL + "/v1/versions", owner, map[string]any{"serverJson": badSchema, "tools": toolsJSON}, 400,
					[]string{"/name", "/version", "/description", "/packages/0"}},
				{"name outside pattern", "POST", in.URL + "/v1/versions", owner, submitBody("io.github.acme/bad name", "1.0.0", toolsJSON), 400, []string{"/name"}},
				{"empty version", "POST", in.URL + "/v1/versions", owner, submitBody("io.github.acme/weather", "", toolsJSON), 400, []string{"/version"}},
				{"version with a slash", "POST", in.URL + "/v1/versions", owner, submitBody("io.github.acme/weather", "1.0/0", toolsJSON), 400, []string{"/version"}},
				{"version exists", "POST", in.URL + "/v1/versions", owner, submitBody("io.github.acme/weather", "1.0.0", toolsJSON), 409, []string{"already exists"}},
				{"duplicate tool names", "POST", in.URL + "/v1/versions", owner,
					submitBody("io.github.acme/weather", "2.0.0", `{"tools":[{"name":"a"},{"name":"a"}]}`), 400, []string{`"a"`}},
				{"tool without name", "POST", in.URL + "/v1/versions", owner,
					submitBody("io.github.acme/weather", "2.0.0", `{"tools":[{"description":"x"}]}`), 400, []string{"name"}},
				{"duplicate member deep in schema", "POST", in.URL + "/v1/versions", owner,
					submitBody("io.github.acme/weather", "2.0.0", `{"tools":[{"name":"a","inputSchema":{"type":"object","type":"array"}}]}`), 400, []string{"/tools/0/inputSchema"}},
				{"lone surrogate", "POST", in.URL + "/v1/versions", owner,
					submitBody("io.github.acme/weather", "2.0.0", `{"tools":[{"name":"a","description":"\ud800"}]}`), 400, nil},
				{"number out of range", "POST", in.URL + "/v1/versions", owner,
					submitBody("io.github.acme/weather", "2.0.0", `{"tools":[{"name":"a","inputSchema":{"maximum":1e400}}]}`), 400, nil},
				{"body over cap", "POST", in.URL + "/v1/versions", owner, strings.Repeat(" ", 70<<10) + "{}", 413, []string{"limit"}},
				{"unknown server", "GET", in.URL + "/v1/servers/io.github.acme/nothing", reviewer, nil, 404, []string{"io.github.acme/nothing"}},
				{"unknown version", "GET", in.URL + "/v1/servers/io.github.acme/weather/versions/7.7.7", reviewer, nil, 404, []string{"7.7.7"}},
				{"wrong state", "POST", v1 + "/release", reviewer, map[string]string{"reason": "x"}, 409, []string{"pending_review"}},
				{"missing reason", "POST", v1 + "/approve", reviewer, map[string]string{"reason": " "}, 400, []string{"reason"}},
				{"missing token", "GET", in.URL + "/v1/servers", "", nil, 401, nil},
				{"wrong token", "GET", in.URL + "/v1/servers", "mcpreg_wrongwrongwrongwrongwrongwrongwrongwro", nil, 401, nil},
				{"role not allowed", "POST", v1 + "/approve", owner, map[string]string{"reason": "x"}, 403, nil},
				{"host cannot read registry", "GET", in.URL + "/v1/servers", host, nil, 403, nil},
				{"owner outside namespace", "POST", in.URL + "/v1/versions", owner, submitBody("io.github.other/tool", "1.0.0", toolsJSON), 403, []string{"io.github.other"}},
				{"owner reads other namespace", "GET", in.URL + "/v1/servers/io.github.other/tool", owner, nil, 403, nil},
				{"bad page token", "GET", in.URL + "/v1/servers?pageToken=bm9wZQ", reviewer, nil, 400, []string{"pageToken"}},
				{"bad query escape", "GET", in.URL + "/v1/servers?pageToken=%%%", reviewer, nil, 400, nil},
				{"bad state filter", "GET", in.URL + "/v1/servers?state=happy", reviewer, nil, 400, []string{"happy"}},
				{"no such endpoint", "GET", in.URL + "/v1/nothing", reviewer, nil, 404, nil},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					r := call(t, c.method, c.url, c.token, c.body)
					if r.Status != c.status {
						t.Fatalf("status %d, want %d: %s", r.Status, c.status, r.Body)
					}
					msg := r.message(t)
					for _, s := range c.says {
						if !strings.Contains(msg, s) {
							t.Errorf("message %q does not mention %q", msg, s)
						}
					}
					if r.Header.Get("X-Request-Id") == "" {
						t.Error("no X-Request-Id on error response")
					}
				})
			}
			if after := counts(t, in.Store); after != before {
				t.Fatalf("bad input changed stored data: %v -> %v", before, after)
			}
			if rep, err := in.Service.Audit.VerifyAuditChain(context.Background()); err != nil || !rep.OK {
				t.Fatalf("audit chain after bad input: %+v %v", rep, err)
			}
		})
	}
}
