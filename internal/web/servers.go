package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpreg/mcpreg/internal/registry"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// versionStates are the version states, for filters.
var versionStates = []string{"pending_review", "approved", "quarantined", "rejected", "revoked"}

type serversView struct {
	Query, State string
	States       []string
	Servers      []*mcpregv1.Server
	Next         string
}

// servers lists servers by name, searched and filtered by version state.
func (a *app) servers(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	view := serversView{Query: strings.TrimSpace(q.Get("q")), State: q.Get("state"), States: versionStates}
	f := registry.ServerFilter{Query: view.Query, State: view.State}
	list, next, err := a.reviews.ListServers(r.Context(), viewerFrom(r).caller, f, registry.Page{Size: 50, Token: q.Get("page")})
	if err != nil {
		a.serviceError(w, r, err)
		return
	}
	view.Servers = list
	if next != "" {
		view.Next = "/servers?" + url.Values{"q": {view.Query}, "state": {view.State}, "page": {next}}.Encode()
	}
	a.render(w, r, http.StatusOK, "servers", page{Title: "Servers", Nav: "servers", Body: view})
}

type serverView struct {
	S        *mcpregv1.Server
	Versions []*mcpregv1.Version
	More     bool
	// Pins are every pin revision of every version, newest first.
	Pins []registry.PinRevision
}

// server shows one server with its version history: states and the pins
// of each version over time. One GetServer, then ListVersions pages.
func (a *app) server(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("ns") + "/" + r.PathValue("name")
	c := viewerFrom(r).caller
	srv, err := a.reviews.GetServer(r.Context(), c, name)
	if err != nil {
		a.serviceError(w, r, err)
		return
	}
	vs, more, err := readAll(func(token string) ([]*mcpregv1.Version, string, error) {
		return a.reviews.ListVersions(r.Context(), c, name, registry.ServerFilter{}, registry.Page{Size: queuePage, Token: token})
	})
	if err != nil {
		a.serviceError(w, r, err)
		return
	}
	pins, err := a.reviews.PinHistory(r.Context(), c, name)
	if err != nil {
		a.serviceError(w, r, err)
		return
	}
	a.render(w, r, http.StatusOK, "server", page{Title: name, Nav: "servers", Body: serverView{S: srv, Versions: vs, More: more, Pins: pins}})
}

type quarantineView struct {
	Versions []*mcpregv1.Version
	More     bool
}

// quarantine lists quarantined versions: since when and why.
func (a *app) quarantine(w http.ResponseWriter, r *http.Request) {
	f := registry.ServerFilter{State: "quarantined"}
	vs, more, err := readAll(func(token string) ([]*mcpregv1.Version, string, error) {
		return a.reviews.ListVersions(r.Context(), viewerFrom(r).caller, "", f, registry.Page{Size: queuePage, Token: token})
	})
	if err != nil {
		a.serviceError(w, r, err)
		return
	}
	a.render(w, r, http.StatusOK, "quarantine", page{Title: "Quarantine", Nav: "quarantine", Body: quarantineView{vs, more}})
}
