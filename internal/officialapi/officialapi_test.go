package officialapi

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apiv0 "github.com/modelcontextprotocol/registry/pkg/api/v0"
	"github.com/modelcontextprotocol/registry/pkg/model"
)

const (
	listPath     = "/v0.1/servers"
	versionsPath = "/v0.1/servers/{serverName}/versions"
	versionPath  = "/v0.1/servers/{serverName}/versions/{version}"
	officialKey  = "/_meta/io.modelcontextprotocol.registry~1official"
)

// official loads the document once for all tests (Load runs the go command).
var official = sync.OnceValues(Load)

func spec(t *testing.T) *Spec {
	t.Helper()
	s, err := official()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return s
}

func TestLoad(t *testing.T) {
	s := spec(t)
	if !strings.HasSuffix(s.url, "/"+documentPath) {
		t.Errorf("loaded %s, want a file ending in %s", s.url, documentPath)
	}
}

func TestOperationsCoverReadPaths(t *testing.T) {
	ops := spec(t).Operations()
	for _, want := range []string{"GET " + listPath, "GET " + versionsPath, "GET " + versionPath} {
		if !slices.Contains(ops, want) {
			t.Errorf("Operations() = %q, missing %q", ops, want)
		}
	}
	if !slices.IsSorted(ops) {
		t.Errorf("Operations() not sorted: %q", ops)
	}
}

const (
	minimalServer = `{"name":"io.github.acme/weather","description":"d","version":"1.0.0"}`
	officialMeta  = `{"io.modelcontextprotocol.registry/official":{"status":"active","publishedAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z","isLatest":true}}`
	listEntry     = `{"server":` + minimalServer + `,"_meta":` + officialMeta + `}`
)

func TestValidateResponseAccepts(t *testing.T) {
	tests := []struct {
		name, path string
		status     int
		body       string
	}{
		{"list from the brief", listPath, 200, `{"servers":[` + listEntry + `],"metadata":{"count":1}}`},
		{"list with only servers", listPath, 200, `{"servers":[]}`},
		{"list with next cursor", listPath, 200, `{"servers":[` + listEntry + `],"metadata":{"nextCursor":"abc","count":1}}`},
		{"entry without _meta", listPath, 200, `{"servers":[{"server":` + minimalServer + `}]}`},
		{"versions list", versionsPath, 200, `{"servers":[` + listEntry + `,` + listEntry + `],"metadata":{"count":2}}`},
		{"versions not found", versionsPath, 404, `{"error":"Server not found"}`},
		{"version minimal", versionPath, 200, `{"server":` + minimalServer + `}`},
		{"version with every official field", versionPath, 200, `{"server":` + minimalServer + `,"_meta":{"io.modelcontextprotocol.registry/official":` +
			`{"status":"deprecated","statusMessage":"use 2.0","statusChangedAt":"2026-01-02T03:04:05.123456789+02:00",` +
			`"publishedAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-02T00:00:00Z","isLatest":false}}}`},
		{"version with vendor _meta", versionPath, 200, `{"server":` + minimalServer + `,"_meta":{"com.example/x":{"any":1}}}`},
		{"version not found", versionPath, 404, `{"error":"Server not found"}`},
		{"uri format is only an annotation", versionPath, 200,
			`{"server":{"name":"a.b/c","description":"d","version":"1","websiteUrl":"not a uri"}}`},
	}
	s := spec(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.ValidateResponse("GET", tt.path, tt.status, []byte(tt.body)); err != nil {
				t.Errorf("ValidateResponse: %v", err)
			}
		})
	}
}

// TestOfficialTypesConform checks the official registry's own Go types
// marshal into bodies the document accepts, zero timestamps included.
func TestOfficialTypesConform(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 123, time.UTC)
	entry := apiv0.ServerResponse{
		Server: apiv0.ServerJSON{Schema: model.CurrentSchemaURL, Name: "io.github.acme/weather", Description: "d", Version: "1.0.0"},
		Meta:   apiv0.ResponseMeta{Official: &apiv0.RegistryExtensions{Status: model.StatusActive, PublishedAt: at, IsLatest: true}},
	}
	list := apiv0.ServerListResponse{Servers: []apiv0.ServerResponse{entry}, Metadata: apiv0.Metadata{Count: 1}}
	s := spec(t)
	for path, v := range map[string]any{listPath: list, versionsPath: list, versionPath: entry} {
		body, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ValidateResponse("GET", path, 200, body); err != nil {
			t.Errorf("GET %s: %v\nbody: %s", path, err, body)
		}
	}
}

func TestValidateResponseRejects(t *testing.T) {
	tests := []struct {
		name, path string
		status     int
		body       string
		pointer    string
		message    string
	}{
		{"servers not an array", listPath, 200, `{"servers":{}}`, "/servers", "want array"},
		{"servers missing", listPath, 200, `{"metadata":{"count":0}}`, "", "missing property 'servers'"},
		{"server missing name", listPath, 200, `{"servers":[{"server":{"description":"d","version":"1"}}]}`, "/servers/0/server", "missing property 'name'"},
		{"count a string", listPath, 200, `{"servers":[],"metadata":{"count":"1"}}`, "/metadata/count", "want integer"},
		{"null next cursor", listPath, 200, `{"servers":[],"metadata":{"nextCursor":null}}`, "/metadata/nextCursor", "want string"},
		{"name without slash", listPath, 200, `{"servers":[{"server":{"name":"weather","description":"d","version":"1"}}]}`, "/servers/0/server/name", "does not match pattern"},
		{"entry without server", versionsPath, 200, `{"servers":[{"_meta":{}}]}`, "/servers/0", "missing property 'server'"},
		{"description too long", versionPath, 200, `{"server":{"name":"a.b/c","description":"` + strings.Repeat("x", 101) + `","version":"1"}}`, "/server/description", "maxLength"},
		{"unknown status", versionPath, 200, `{"server":` + minimalServer + `,"_meta":{"io.modelcontextprotocol.registry/official":{"status":"gone"}}}`, officialKey + "/status", "must be one of"},
		{"timestamp not RFC 3339", versionPath, 200, `{"server":` + minimalServer + `,"_meta":{"io.modelcontextprotocol.registry/official":{"publishedAt":"2026-01-01 00:00:00"}}}`, officialKey + "/publishedAt", "date-time"},
		{"extra official member", versionPath, 200, `{"server":` + minimalServer + `,"_meta":{"io.modelcontextprotocol.registry/official":{"serverId":"x"}}}`, officialKey, "additional properties 'serverId'"},
		{"error not a string", versionPath, 404, `{"error":404}`, "/error", "want string"},
	}
	s := spec(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.ValidateResponse("GET", tt.path, tt.status, []byte(tt.body))
			var me *MismatchError
			if !errors.As(err, &me) || !errors.Is(err, ErrMismatch) {
				t.Fatalf("ValidateResponse = %v, want a *MismatchError", err)
			}
			if !hasProblem(me.Problems, tt.pointer, tt.message) {
				t.Errorf("problems %+v, want one at %q saying %q", me.Problems, tt.pointer, tt.message)
			}
			if !strings.Contains(err.Error(), `at "`+tt.pointer+`"`) {
				t.Errorf("message %q does not name pointer %q", err, tt.pointer)
			}
		})
	}
}

func hasProblem(problems []Problem, pointer, message string) bool {
	return slices.ContainsFunc(problems, func(p Problem) bool {
		return p.Pointer == pointer && strings.Contains(p.Message, message)
	})
}

func TestValidateResponseUnknown(t *testing.T) {
	tests := []struct {
		name, method, path string
		status             int
		body               string
		want               error
	}{
		{"unknown path", "GET", "/v0/servers", 200, `{}`, ErrUnknownOperation},
		{"concrete path, not a template", "GET", "/v0.1/servers/a.b%2Fc/versions", 200, `{}`, ErrUnknownOperation},
		{"method not documented", "POST", listPath, 200, `{}`, ErrUnknownOperation},
		{"status not documented", "GET", listPath, 500, `{}`, ErrUnknownResponse},
		{"404 not documented on list", "GET", listPath, 404, `{"error":"x"}`, ErrUnknownResponse},
		{"body not JSON", "GET", listPath, 200, `{"servers":[]} x`, ErrInvalidBody},
		{"empty body", "GET", versionPath, 404, ``, ErrInvalidBody},
	}
	s := spec(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.ValidateResponse(tt.method, tt.path, tt.status, []byte(tt.body)); !errors.Is(err, tt.want) {
				t.Errorf("ValidateResponse = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestResponseSelection uses testdata/fallback.yaml for the rules the
// official document does not exercise.
func TestResponseSelection(t *testing.T) {
	data, err := os.ReadFile("testdata/fallback.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := parse("testdata/fallback.yaml", data)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	tests := []struct {
		name, method string
		status       int
		body         string
		want         error
	}{
		{"exact code, unquoted in YAML", "get", 200, `{"home":"x","at":"2026-01-01T00:00:00Z"}`, nil},
		{"exact code asserts date-time", "get", 200, `{"home":"x","at":"today"}`, ErrMismatch},
		{"range", "get", 418, `{"code":418}`, nil},
		{"range rejects", "get", 404, `{"message":"x"}`, ErrMismatch},
		{"default", "get", 503, `{"message":"down"}`, nil},
		{"default rejects", "get", 302, `{"code":302}`, ErrMismatch},
		{"no schema", "delete", 204, ``, ErrNoSchema},
		{"no response", "delete", 200, `{}`, ErrUnknownResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.ValidateResponse(tt.method, "/things/{id}", tt.status, []byte(tt.body))
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Errorf("ValidateResponse = %v, want %v", err, tt.want)
			}
		})
	}
	if got, want := s.Operations(), []string{"DELETE /things/{id}", "GET /things/{id}"}; !slices.Equal(got, want) {
		t.Errorf("Operations() = %q, want %q", got, want)
	}
}

func TestParseRejectsOtherDialects(t *testing.T) {
	for name, doc := range map[string]string{
		"OpenAPI 3.0":  "openapi: 3.0.3\npaths: {}\n",
		"draft-07":     "openapi: 3.1.0\njsonSchemaDialect: http://json-schema.org/draft-07/schema#\npaths: {}\n",
		"not YAML map": "- openapi\n",
	} {
		if _, err := parse(name, []byte(doc)); !errors.Is(err, ErrBadDocument) {
			t.Errorf("%s: parse = %v, want ErrBadDocument", name, err)
		}
	}
}

// TestConcurrentValidation shares one Spec across goroutines; run with
// -race to check the compiled-schema cache.
func TestConcurrentValidation(t *testing.T) {
	s := spec(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		path, body := listPath, `{"servers":[`+listEntry+`]}`
		if i%2 == 1 {
			path, body = versionPath, listEntry
		}
		wg.Go(func() { errs <- s.ValidateResponse("GET", path, 200, []byte(body)) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestLoadOutsideModuleNamesWhatIsMissing(t *testing.T) {
	t.Chdir(t.TempDir())
	_, err := Load()
	if !errors.Is(err, ErrDocumentMissing) || !strings.Contains(err.Error(), modulePath) {
		t.Fatalf("Load outside a module = %v, want ErrDocumentMissing naming %s", err, modulePath)
	}
}
