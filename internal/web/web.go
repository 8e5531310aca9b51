package web

import (
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
)

// Options configure the web UI.
type Options struct {
	// Secure marks cookies Secure. Set it when the HTTP port serves TLS or
	// sits behind a proxy that ends TLS.
	Secure bool
	// TrustedProxies are the proxies whose X-Forwarded-For is believed
	// when counting failed sign-ins per client address.
	TrustedProxies []netip.Prefix
	// OIDC, when set, offers single sign-on on the sign-in page.
	OIDC *OIDCConfig
	// FlowSecret is a secret every replica shares (at least 16 bytes; mcpregd
	// gives the discovery signing key's seed). The key sealing the single
	// sign-on flow cookie is derived from it with HKDF-SHA256 under its own
	// label, so a sign-in started on one replica finishes on any other.
	// Empty: a random key per process, and the provider's callback must reach
	// the process that started the flow.
	FlowSecret []byte
	// AdminNotices are warnings about the registry's set-up shown to admins
	// only (on the tokens page), e.g. that stdio scans run unconfined.
	AdminNotices []string
}

// Prefixes are the paths the handler serves; mount it for each of them.
// "/" itself is served as an exact match (it redirects).
var Prefixes = []string{"/signin", "/signin/sso", "/signin/sso/callback", "/signout", "/queue", "/review/", "/servers", "/servers/",
	"/quarantine", "/audit", "/admin/", "/static/"}

// app holds what every handler needs.
type app struct {
	reviews  *registry.Review
	scans    *registry.Scans
	receipts *registry.Receipts
	auditLog *registry.Audit
	id       *identity.Service
	log      *slog.Logger
	opt      Options
	pages    map[string]*template.Template
	cop      *http.CrossOriginProtection
	sso      *sso // nil without OIDC
}

// New returns the web UI handler.
func New(svc *registry.Services, id *identity.Service, log *slog.Logger, opt Options) (http.Handler, error) {
	if svc == nil {
		return nil, errors.New("web: no registry service")
	}
	if id == nil {
		return nil, errors.New("web: no identity service")
	}
	if log == nil {
		log = slog.Default()
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	secret := opt.FlowSecret
	opt.FlowSecret = nil // the app keeps the derived key only
	a := &app{reviews: svc.Review, scans: svc.Scans, receipts: svc.Receipts, auditLog: svc.Audit, id: id, log: log, opt: opt, pages: pages, cop: http.NewCrossOriginProtection()}
	if opt.OIDC != nil {
		if a.sso, err = newSSO(opt.OIDC, secret); err != nil {
			return nil, err
		}
	}
	a.cop.SetDenyHandler(http.HandlerFunc(a.crossOrigin))
	return a.cop.Handler(a.routes()), nil
}

func (a *app) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.home)
	mux.HandleFunc("GET /signin", a.signInForm)
	mux.HandleFunc("POST /signin", a.signIn)
	mux.HandleFunc("GET "+ssoPath, a.ssoStart)
	mux.HandleFunc("GET "+ssoCallbackPath, a.ssoCallback)
	mux.Handle("POST /signout", a.form(a.signOut))
	mux.Handle("GET /queue", a.page(a.queue))
	mux.Handle("GET /review/{ns}/{name}/{version}", a.page(a.review))
	mux.Handle("POST /review/{ns}/{name}/{version}/{action}", a.form(a.transition))
	mux.Handle("POST /review/{ns}/{name}/{version}/scan", a.form(a.scan))
	mux.Handle("POST /review/{ns}/{name}/{version}/drift/{id}/{decision}", a.form(a.decideDrift))
	mux.Handle("GET /servers", a.page(a.servers))
	mux.Handle("GET /servers/{ns}/{name}", a.page(a.server))
	mux.Handle("GET /quarantine", a.page(a.quarantine))
	mux.Handle("GET /audit", a.page(a.audit))
	mux.Handle("GET /admin/tokens", a.page(a.adminOnly(a.tokens)))
	mux.HandleFunc("GET /static/{file}", serveStatic)
	for _, p := range []string{"/review/", "/servers/", "/admin/", "/static/"} {
		mux.Handle(p, a.page(a.notFound))
	}
	// Any other path a browser asks for (the server routes HTML requests
	// here): the styled not-found page, signed in or not.
	mux.HandleFunc("/", a.notFound)
	return mux
}

// home sends signed-in reviewers to the queue, others to sign-in.
func (a *app) home(w http.ResponseWriter, r *http.Request) {
	if _, err := a.sessionOf(r); err != nil {
		http.Redirect(w, r, "/signin", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/queue", http.StatusSeeOther)
}

func (a *app) notFound(w http.ResponseWriter, r *http.Request) {
	a.fail(w, r, http.StatusNotFound, "Not found: there is no page at "+r.URL.Path+".")
}

func (a *app) crossOrigin(w http.ResponseWriter, r *http.Request) {
	a.fail(w, r, http.StatusForbidden, "Cross-origin request refused: forms must be sent from this site.")
}
