package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpreg/mcpreg/internal/registry"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

type auditView struct {
	Subject, Actor, Action string
	// Asc lists in chain order (?order=asc); the default is newest first.
	Asc    bool
	Events []*mcpregv1.AuditEvent
	Next   string
	Chain  *registry.ChainReport
}

// audit lists the audit log, filtered, with the chain's verification.
// Reviewers and admins may read it (as ListAuditEvents in the API).
func (a *app) audit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	view := auditView{Subject: strings.TrimSpace(q.Get("subject")), Actor: strings.TrimSpace(q.Get("actor")),
		Action: strings.TrimSpace(q.Get("action")), Asc: q.Get("order") == "asc"}
	f := registry.AuditFilter{Subject: view.Subject, Actor: view.Actor, Action: view.Action, NewestFirst: !view.Asc}
	evs, next, err := a.auditLog.ListAuditEvents(r.Context(), f, registry.Page{Size: 100, Token: q.Get("page")})
	if err != nil {
		a.serviceError(w, r, err)
		return
	}
	if view.Chain, err = a.auditLog.VerifyAuditChain(r.Context()); err != nil {
		a.serviceError(w, r, err)
		return
	}
	view.Events = evs
	if next != "" {
		v := url.Values{"subject": {view.Subject}, "actor": {view.Actor}, "action": {view.Action}, "page": {next}}
		if view.Asc {
			v.Set("order", "asc")
		}
		view.Next = "/audit?" + v.Encode()
	}
	a.render(w, r, http.StatusOK, "audit", page{Title: "Audit log", Nav: "audit", Body: view})
}

type tokensView struct {
	Notices   []string // the registry's set-up warnings, for admins
	Principal string
	Tokens    []*mcpregv1.Token
}

// tokens lists API tokens (never their secrets); admins only.
func (a *app) tokens(w http.ResponseWriter, r *http.Request) {
	view := tokensView{Notices: a.opt.AdminNotices, Principal: strings.TrimSpace(r.URL.Query().Get("principal"))}
	ts, err := a.id.ListTokens(r.Context(), viewerFrom(r).caller, view.Principal)
	if err != nil {
		a.serviceError(w, r, err)
		return
	}
	view.Tokens = ts
	a.render(w, r, http.StatusOK, "tokens", page{Title: "API tokens", Nav: "admin", Body: view})
}
