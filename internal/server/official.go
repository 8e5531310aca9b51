package server

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/rs/cors"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/requestid"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// officialAPI serves the official MCP registry's read API (/v0.1 and its
// /v0 alias) from the discovery index, so existing registry clients can
// use mcpreg as a private allowlist. Reads need a token of a role that
// reads discovery unless public is set.
type officialAPI struct {
	svc    *registry.Discovery
	id     authenticator
	log    *slog.Logger
	public bool
	// corsOrigins are the browser origins allowed to read it (exact
	// match) when it is not public.
	corsOrigins []string

	mu    sync.Mutex
	cache map[string][]byte // by discovery view and request URI
	gen   string            // the index generation the cache holds
}

// cached answers from the cache, or computes, encodes and keeps the answer
// for the caller's discovery view. Errors are not kept.
func (a *officialAPI) cached(w http.ResponseWriter, r *http.Request, c *registry.Caller, compute func() (any, error)) {
	view, err := a.svc.DiscoveryView(r.Context(), c)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	gen, _, _ := strings.Cut(view, "|")
	key := view + "|" + r.URL.RequestURI()
	a.mu.Lock()
	if a.gen != gen || len(a.cache) > 4096 {
		a.cache, a.gen = map[string][]byte{}, gen
	}
	body, ok := a.cache[key]
	a.mu.Unlock()
	if !ok {
		v, err := compute()
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if body, err = json.Marshal(v); err != nil {
			a.fail(w, r, err)
			return
		}
		a.mu.Lock()
		if a.gen == gen {
			a.cache[key] = body
		}
		a.mu.Unlock()
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// OfficialAccess is who may read /v0.1 without a token (Public) and which
// browser origins may read it across origins.
type OfficialAccess struct {
	Public      bool
	CORSOrigins []string
}

func (a *officialAPI) register(mux *http.ServeMux) {
	sub := http.NewServeMux()
	for _, prefix := range []string{"/v0.1", "/v0"} {
		sub.HandleFunc("GET "+prefix+"/servers", a.list)
		sub.HandleFunc("GET "+prefix+"/servers/{serverName}/versions", a.versions)
		sub.HandleFunc("GET "+prefix+"/servers/{serverName}/versions/{version}", a.version)
		sub.HandleFunc(prefix+"/", trailingSlash)
	}
	h := a.cors(sub)
	mux.Handle("/v0.1/", h)
	mux.Handle("/v0/", h)
}

// cors answers cross-origin reads as the official registry does when the
// API is public (any origin, "*"), else only for the configured origins
// (exact match: the answer names the origin, never one not listed; Vary:
// Origin). GET only, Authorization allowed, never credentials: /v0.1 sets
// no cookies and a browser sends none. Without either, no CORS headers at
// all.
func (a *officialAPI) cors(h http.Handler) http.Handler {
	origins := a.corsOrigins
	if a.public {
		origins = []string{"*"}
	}
	if len(origins) == 0 {
		return h
	}
	return cors.New(cors.Options{AllowedOrigins: origins, AllowedMethods: []string{http.MethodGet},
		AllowedHeaders: []string{"Authorization"}, ExposedHeaders: []string{"Content-Type", "Content-Length"},
		AllowCredentials: false, MaxAge: 86400, OptionsSuccessStatus: http.StatusNoContent}).Handler(h)
}

// trailingSlash answers what no other /v0.1 route matched: a path ending
// in "/" is redirected (308) to its canonical form, as the official
// registry does (path.Clean: no off-site redirect through "//host/"); any
// other path is not found.
func trailingSlash(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/") {
		target := url.URL{Path: path.Clean(r.URL.Path), RawQuery: r.URL.RawQuery}
		http.Redirect(w, r, target.String(), http.StatusPermanentRedirect)
		return
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusNotFound)
	_ = json.NewEncoder(w).Encode(map[string]any{"title": http.StatusText(http.StatusNotFound), "status": http.StatusNotFound, "detail": "no such route", "error": "no such route"})
}

// caller authenticates like discovery reads; with a public API an
// anonymous request is allowed (nil caller).
func (a *officialAPI) caller(w http.ResponseWriter, r *http.Request) (*registry.Caller, bool) {
	auth := r.Header.Values("Authorization")
	if a.public && len(auth) == 0 {
		return nil, true
	}
	c, err := authorize(r.Context(), a.id, a.log, auth, mcpregv1.DiscoveryService_ResolveServers_FullMethodName)
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	return c, true
}

func (a *officialAPI) list(w http.ResponseWriter, r *http.Request) {
	c, ok := a.caller(w, r)
	if !ok {
		return
	}
	a.cached(w, r, c, func() (any, error) {
		q, err := officialQuery(r.URL.Query())
		if err != nil {
			return nil, err
		}
		return a.svc.OfficialServers(r.Context(), c, q)
	})
}

func (a *officialAPI) versions(w http.ResponseWriter, r *http.Request) {
	c, ok := a.caller(w, r)
	if !ok {
		return
	}
	a.cached(w, r, c, func() (any, error) {
		include, _, err := includeDeleted(r.URL.Query())
		if err != nil {
			return nil, err
		}
		return a.svc.OfficialVersions(r.Context(), c, r.PathValue("serverName"), include)
	})
}

func (a *officialAPI) version(w http.ResponseWriter, r *http.Request) {
	c, ok := a.caller(w, r)
	if !ok {
		return
	}
	a.cached(w, r, c, func() (any, error) {
		include, _, err := includeDeleted(r.URL.Query())
		if err != nil {
			return nil, err
		}
		return a.svc.OfficialVersion(r.Context(), c, r.PathValue("serverName"), r.PathValue("version"), include)
	})
}

// fail answers as the official registry does: a problem document (RFC
// 9457) whose "error" member also carries the message, 422 for parameters
// out of range, 400 for malformed ones, 404 for unknown servers.
func (a *officialAPI) fail(w http.ResponseWriter, r *http.Request, err error) {
	var code int
	var msg string
	body := map[string]any{}
	var pe *paramError
	switch {
	case errors.As(err, &pe):
		code, msg = http.StatusUnprocessableEntity, "validation failed"
		body["errors"] = []map[string]any{{"message": pe.msg, "location": pe.location, "value": pe.value}}
	case errors.Is(err, errUnprocessable):
		code, msg = http.StatusUnprocessableEntity, strings.TrimPrefix(err.Error(), errUnprocessable.Error()+": ")
	default:
		st := status.Convert(toStatus(r.Context(), a.log, err))
		code, msg = httpStatus(st), st.Message()
		if st.Code() == codes.Internal {
			msg = "internal error (request id " + requestid.From(r.Context()) + ")"
		}
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(code)
	body["title"], body["status"], body["detail"], body["error"] = http.StatusText(code), code, msg, msg
	_ = json.NewEncoder(w).Encode(body)
}
