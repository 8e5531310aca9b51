package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/mcpreg/mcpreg/internal/apierr"
)

//go:embed templates
var templateFS embed.FS

// contentSecurityPolicy allows nothing but this site's own styles, script
// and forms: no inline script, no external CDN.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// page is what the layout renders around a page's content.
type page struct {
	Title  string
	Nav    string // the active navigation entry
	Error  string
	Notice string
	Viewer *viewerView
	Body   any
}

// viewerView is the signed-in principal as the layout shows it.
type viewerView struct {
	Name, Role, CSRF string
	Admin            bool
}

// parsePages parses the layout and partials once, then each page on a
// clone of them.
func parsePages() (map[string]*template.Template, error) {
	base, err := template.New("layout").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts/*.html")
	if err != nil {
		return nil, fmt.Errorf("web templates: %w", err)
	}
	files, err := fs.Glob(templateFS, "templates/pages/*.html")
	if err != nil {
		return nil, err
	}
	pages := make(map[string]*template.Template, len(files))
	for _, f := range files {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, f)
		if err != nil {
			return nil, fmt.Errorf("web template %s: %w", f, err)
		}
		pages[strings.TrimSuffix(path.Base(f), ".html")] = t
	}
	return pages, nil
}

// render writes a page with the status code; the page is rendered to a
// buffer first so that a template failure never sends half a page.
func (a *app) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	if v := viewerFrom(r); v != nil {
		p.Viewer = &viewerView{Name: v.caller.Principal, Role: string(v.caller.Role), CSRF: v.session.CSRF, Admin: v.isAdmin()}
	}
	var buf bytes.Buffer
	if err := a.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		a.log.ErrorContext(r.Context(), "web: rendering page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail shows an error page.
func (a *app) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	a.render(w, r, status, "error", page{Title: http.StatusText(status), Error: msg,
		Body: struct{ Status int }{status}})
}

// serviceError shows a registry error with its status.
func (a *app) serviceError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := a.describe(r, err)
	a.fail(w, r, status, msg)
}

// describe maps a registry error to its HTTP status (package apierr's, as
// the API answers) and the message a reviewer reads (the sentinel's own
// words trimmed, as the API does). Anything else is internal: the page
// shows the request id, the log the cause.
func (a *app) describe(r *http.Request, err error) (int, string) {
	if e, ok := apierr.Of(err); ok {
		return e.HTTP, e.Message(err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return http.StatusServiceUnavailable, "The request was cancelled or took too long."
	}
	rid := requestID(r)
	a.log.ErrorContext(r.Context(), "web: internal error", "request_id", rid, "path", r.URL.Path, "err", err)
	return http.StatusInternalServerError, "Internal error (request id " + rid + ")."
}
