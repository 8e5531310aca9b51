package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chromedp/chromedp"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// axeSource reads axe-core from the global npm folder (CI installs
// axe-core@4.14.1 with npm install -g).
var axeSource = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("npm", "root", "-g").Output()
	if err != nil {
		return "", fmt.Errorf("npm root -g: %w", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "axe-core", "axe.min.js")
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("axe-core is not installed (npm install -g axe-core@4.14.1): %w", err)
	}
	return string(b), nil
})

var axeSkipNotice sync.Once

// axeViolation is one failed axe rule with the elements that fail it.
type axeViolation struct {
	ID, Impact, Help, HelpURL string
	Nodes                     []string
}

// axeRun runs every axe rule on the page and returns the violations by
// value: rule, impact, help, and each failing element's selector and
// summary.
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
  id: v.id, impact: v.impact || "", help: v.help, helpUrl: v.helpUrl,
  nodes: v.nodes.map(n => n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " "))})))`

// checkA11y injects axe-core into the page, runs it and fails on
// violations of impact serious or critical; lesser ones are logged.
func (p *tab) checkA11y(page string) {
	p.t.Helper()
	src, err := axeSource()
	if err != nil {
		if testkit.RequireAll() {
			p.t.Fatalf("%v (%s=1)", err, testkit.EnvRequireAll)
		}
		axeSkipNotice.Do(func() { fmt.Fprintf(os.Stderr, "\n***** SKIPPING accessibility checks: %v *****\n\n", err) })
		p.t.Logf("accessibility of %s not checked: %v", page, err)
		return
	}
	if !eval[bool](p, `typeof axe === "object"`) {
		p.do("inject axe-core", chromedp.Evaluate[chromedp.Void](src+"\n;void 0"))
	}
	vs := run(p, "axe.run on "+page, chromedp.Evaluate[[]axeViolation](axeRun, chromedp.EvalAwaitPromise, chromedp.EvalAsValue))
	for _, v := range vs {
		report := p.t.Logf
		if v.Impact == "serious" || v.Impact == "critical" {
			report = p.t.Errorf
		}
		report("axe on %s (%s): %s [%s] %s %s\n  %s", page, p.path(), v.ID, v.Impact, v.Help, v.HelpURL, strings.Join(v.Nodes, "\n  "))
	}
}
