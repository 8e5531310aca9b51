package server

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

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

func (a *officialAPI) register(mux *http.ServeMux) {
	for _, prefix := range []string{"/v0.1", "/v0"} {
		mux.HandleFunc("GET "+prefix+"/servers", a.list)
		mux.HandleFunc("GET "+prefix+"/servers/{serverName}/versions", a.versions)
		mux.HandleFunc("GET "+prefix+"/servers/{serverName}/versions/{version}", a.version)
	}
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
	a.cached(w, r, c, func() (any, error) { return a.svc.OfficialVersions(r.Context(), c, r.PathValue("serverName")) })
}

func (a *officialAPI) version(w http.ResponseWriter, r *http.Request) {
	c, ok := a.caller(w, r)
	if !ok {
		return
	}
	a.cached(w, r, c, func() (any, error) {
		return a.svc.OfficialVersion(r.Context(), c, r.PathValue("serverName"), r.PathValue("version"))
	})
}

// fail answers as the official registry does: a problem document (RFC
// 9457) whose "error" member also carries the message, 422 for parameters
// out of range, 400 for malformed ones, 404 for unknown servers.
func (a *officialAPI) fail(w http.ResponseWriter, r *http.Request, err error) {
	var code int
	var msg string
	if errors.Is(err, errUnprocessable) {
		code, msg = http.StatusUnprocessableEntity, err.Error()
	} else {
		st := status.Convert(toStatus(r.Context(), a.log, err))
		code, msg = httpStatus(st), st.Message()
		if st.Code() == codes.Internal {
			msg = "internal error (request id " + requestid.From(r.Context()) + ")"
		}
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"title": http.StatusText(code), "status": code, "detail": msg, "error": msg})
}
