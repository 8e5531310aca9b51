package e2e_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// Bounds of the browser: starting it, and each step (a navigation, a
// click that submits a form, a query).
const (
	browserStart = 30 * time.Second
	stepTimeout  = 20 * time.Second
)

// artifactsDir holds the screenshots (ignored by git).
const artifactsDir = "artifacts"

// chromium finds a Chromium or Chrome binary on PATH.
func chromium() (string, bool) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// browser is one headless Chromium for a test.
type browser struct {
	ctx context.Context
}

// startBrowser starts headless Chromium (with the flags STYLE.md lists and
// a fresh profile that chromedp removes), or skips loudly without it.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	path, ok := chromium()
	if !ok {
		testkit.Unavailable(t, "%s", "Chromium is not installed (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 900), chromedp.Flag("disable-component-update", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	startBounded(t, ctx, cancel, "Chromium")
	return &browser{ctx: ctx}
}

// startBounded runs the first (empty) action on a chromedp context, which
// starts the browser or opens the tab. The browser's life is bound to the
// context of that first run, so it gets no timeout; a timer cancels it
// instead.
func startBounded(t *testing.T, ctx context.Context, cancel context.CancelFunc, what string) {
	t.Helper()
	timer := time.AfterFunc(browserStart, cancel)
	err := chromedp.Do(ctx)
	if !timer.Stop() {
		t.Fatalf("%s did not start within %s", what, browserStart)
	}
	if err != nil {
		t.Fatalf("start %s: %v", what, err)
	}
}

// tab is one user's tab in its own browser context (its own cookies).
type tab struct {
	t       *testing.T
	ctx     context.Context
	base    string
	user    string
	dialogs atomic.Int32
}

// newTab opens a tab for user in a fresh browser context.
func (b *browser) newTab(t *testing.T, base, user string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	startBounded(t, ctx, cancel, "a tab for "+user)
	p := &tab{t: t, ctx: ctx, base: base, user: user}
	err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			p.dialogs.Add(1)
			// A listener may run no command: dismiss the dialog from
			// another goroutine, so that the page does not block.
			go func() {
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// do runs steps within stepTimeout.
func (p *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.t.Fatalf("%s: %s: %v", p.user, what, err)
	}
}

// run runs one action with a value within stepTimeout.
func run[T any](p *tab, what string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.t.Fatalf("%s: %s: %v", p.user, what, err)
	}
	return v
}

// visit loads a path of the registry and returns the HTTP status of the
// document (after redirects).
func (p *tab) visit(path string) int64 {
	p.t.Helper()
	resp := run(p, "open "+path, chromedp.NavigateResponse(p.base+path))
	return resp.Status
}

// submit runs steps that send a form (a click, an Enter) and waits for the
// page they load; it returns that page's HTTP status.
func (p *tab) submit(what string, steps ...chromedp.Action[chromedp.Void]) int64 {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, steps...)
	if err != nil {
		p.t.Fatalf("%s: %s: %v", p.user, what, err)
	}
	return resp.Status
}

// path is the current page's path and query.
func (p *tab) path() string {
	p.t.Helper()
	loc := run(p, "read the location", chromedp.Location())
	u, err := url.Parse(loc)
	if err != nil {
		p.t.Fatal(err)
	}
	return u.RequestURI()
}

// text is the rendered text (innerText) of the first element selected.
func (p *tab) text(sel string) string {
	p.t.Helper()
	return run(p, "read "+sel, chromedp.Text(chromedp.CSS(sel)))
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](p *tab, expr string) T {
	p.t.Helper()
	return run(p, "evaluate "+expr, chromedp.Evaluate[T](expr))
}

// fill types into the form field with the id.
func (p *tab) fill(id, value string) {
	p.t.Helper()
	p.do("fill #"+id, chromedp.SendKeys(chromedp.ID(id), value))
}

// button selects a submit button by its visible label.
func button(label string) chromedp.Search {
	return chromedp.Search(fmt.Sprintf(`//button[normalize-space()=%q]`, label))
}

// link selects a link in the main content by its visible text.
func link(text string) chromedp.Search {
	return chromedp.Search(fmt.Sprintf(`//main//a[normalize-space()=%q]`, text))
}

// linkIn selects a link by its visible text within the section that the
// heading with the id labels.
func linkIn(heading, text string) chromedp.Search {
	return chromedp.Search(fmt.Sprintf(`//section[@aria-labelledby=%q]//a[normalize-space()=%q]`, heading, text))
}

// screenshot writes a full-page PNG of the current page to artifacts/.
func (p *tab) screenshot(name string) {
	p.t.Helper()
	png := run(p, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.MkdirAll(artifactsDir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	file := filepath.Join(artifactsDir, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	p.t.Logf("screenshot %s: %s", name, file)
}

// noDialogs fails when a page opened an alert, confirm or prompt.
func (p *tab) noDialogs() {
	p.t.Helper()
	if n := p.dialogs.Load(); n > 0 {
		p.t.Errorf("%s: %d JavaScript dialog(s) opened: a page ran injected script", p.user, n)
	}
}

// contains fails unless the rendered text of sel holds every want.
func (p *tab) contains(sel string, want ...string) {
	p.t.Helper()
	got := p.text(sel)
	for _, w := range want {
		if !strings.Contains(got, w) {
			p.t.Errorf("%s: %s on %s does not show %q; it shows:\n%s", p.user, sel, p.path(), w, got)
		}
	}
}
