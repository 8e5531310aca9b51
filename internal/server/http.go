package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/buildinfo"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/requestid"
	"github.com/mcpreg/mcpreg/internal/server/openapi"
	"github.com/mcpreg/mcpreg/internal/web"
)

// Database is what health, readiness and the start-up log need of the
// store (the transport does not open or query it).
type Database interface {
	Ping(ctx context.Context) error
	// DialectName is "sqlite3" or "postgres".
	DialectName() string
}

// httpHandler routes the public HTTP port: REST gateway, health, OpenAPI.
func httpHandler(gw http.Handler, db Database, draining *atomic.Bool, maxBody int64, m *metrics, svcs *Services, log *slog.Logger, official OfficialAccess, ui http.Handler) http.Handler {
	svc, id := svcs.Registry, svcs.Identity
	mux := http.NewServeMux()
	if ui != nil {
		mux.Handle("GET /{$}", ui)
		for _, p := range web.Prefixes {
			mux.Handle(p, ui)
		}
	}
	mux.Handle("/v1/", gw)
	mux.HandleFunc("GET /v1/discovery/servers", discoveryHTTP(svc.Discovery, id, log))
	mux.HandleFunc("GET /.well-known/mcpreg/discovery-keys.json", discoveryKeys(svc.Discovery))
	mux.HandleFunc("GET "+AuditCheckpointPath, auditCheckpoint(svc.Audit, log))
	(&officialAPI{svc: svc.Discovery, id: id, log: log, public: official.Public, corsOrigins: official.CORSOrigins}).register(mux)
	mux.HandleFunc("GET /healthz", healthz(db))
	mux.HandleFunc("GET /readyz", readyz(db, draining))
	mux.HandleFunc("GET /openapi.json", serveOpenAPI)
	mux.HandleFunc("GET /schemas/contract.schema.json", serveJSON(contract.SchemaJSON))
	mux.HandleFunc("GET /schemas/contract-normalized.schema.json", serveJSON(contract.NormalizedSchemaJSON))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if ui != nil && wantsHTML(r) {
			ui.ServeHTTP(w, r) // the web UI's styled not-found page
			return
		}
		writeError(w, http.StatusNotFound, status.New(codes.NotFound, "no such endpoint: "+r.Method+" "+r.URL.Path))
	})
	return withRequestIDHeader(securityHeaders(gateBody(maxBody, id, log, m.instrument(mux))))
}

// wantsHTML reports whether a request outside the API asks for a page
// (a browser's GET), rather than JSON.
func wantsHTML(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if strings.HasPrefix(r.URL.Path, "/v1/") || strings.HasPrefix(r.URL.Path, "/v0") {
		return false
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

func healthz(db Database) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		dbState := "ok"
		if err := db.Ping(ctx); err != nil {
			dbState = "unreachable"
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "db": dbState})
	}
}

func readyz(db Database, draining *atomic.Bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		switch {
		case draining.Load():
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		case db.Ping(ctx) != nil:
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "db unreachable"})
		default:
			writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
		}
	}
}

func serveOpenAPI(w http.ResponseWriter, r *http.Request) { serveJSON(openAPIDocument())(w, r) }

// openAPIDocument is the generated OpenAPI document with info.version set
// to this build's version (the generated file stays as generated).
var openAPIDocument = sync.OnceValue(func() []byte { return withVersion(openapi.Document, buildinfo.Version()) })

// withVersion sets info.version of an OpenAPI document; a document it
// cannot read is returned as it is.
func withVersion(doc []byte, version string) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(doc, &top) != nil {
		return doc
	}
	var info map[string]any
	if json.Unmarshal(top["info"], &info) != nil || info == nil {
		return doc
	}
	info["version"] = version
	raw, err := json.Marshal(info)
	if err != nil {
		return doc
	}
	top["info"] = raw
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return doc
	}
	return out
}

// serveJSON serves a published document (OpenAPI, JSON Schemas).
func serveJSON(doc []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(doc)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func tooLarge(w http.ResponseWriter, size, limit int64) {
	msg := fmt.Sprintf("request body exceeds the limit of %d bytes", limit)
	if size > 0 {
		msg = fmt.Sprintf("request body is %d bytes, the limit is %d", size, limit)
	}
	writeError(w, http.StatusRequestEntityTooLarge, status.New(codes.ResourceExhausted, msg))
}

// withRequestIDHeader gives every HTTP request an id, echoed in the response
// and passed to gRPC through the gateway.
func withRequestIDHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := requestid.Accept(r.Header.Get(requestid.Header))
		r.Header.Set(requestid.Header, id)
		w.Header().Set(requestid.Header, id)
		next.ServeHTTP(w, r.WithContext(requestid.With(r.Context(), id)))
	})
}

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
