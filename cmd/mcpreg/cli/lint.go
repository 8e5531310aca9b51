package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/pin"
)

// failNone is the --fail-on value that never fails on findings.
const failNone = "none"

// errLintFindings is returned after printing findings at or above --fail-on.
var errLintFindings = errors.New("lint found problems")

var failOnValues = []string{string(finding.Info), string(finding.Low), string(finding.Medium),
	string(finding.High), string(finding.Critical), failNone}

func newLintCmd(g *globals) *cobra.Command {
	failOn := string(finding.High)
	cmd := &cobra.Command{
		Use:   "lint FILE|- [--fail-on SEVERITY]",
		Short: "Check a tools file offline for tool poisoning (hidden instructions, exfiltration, secrecy)",
		Long: "Check the model-visible text of a tools file (the format of `mcpreg pin`: a tools/list result\n" +
			"{\"tools\":[...]} or a bare array, optionally with top-level \"instructions\", \"prompts\",\n" +
			"\"resources\" and \"resourceTemplates\") the way the registry\n" +
			"checks submissions, and print the findings. Needs no service and no token.\n\n" +
			"Exits non-zero when a finding has severity high or critical; --fail-on sets that threshold\n" +
			"(info, low, medium, high, critical, or none never to fail on findings).",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			threshold, err := parseFailOn(failOn)
			if err != nil {
				return err
			}
			return g.lint(args[0], threshold)
		},
	}
	cmd.Flags().StringVar(&failOn, "fail-on", failOn, "exit non-zero on a finding of this severity or higher: "+strings.Join(failOnValues, ", "))
	return cmd
}

// parseFailOn returns the severity to fail on; "" for none.
func parseFailOn(s string) (finding.Severity, error) {
	if s == failNone {
		return "", nil
	}
	if sev := finding.Severity(s); sev.Rank() >= 0 {
		return sev, nil
	}
	return "", fmt.Errorf("--fail-on %q: want one of %s", s, strings.Join(failOnValues, ", "))
}

func (g *globals) lint(path string, threshold finding.Severity) error {
	data, err := g.readInput("lint", path)
	if err != nil {
		return err
	}
	list, err := pin.ParseToolsList(data, pin.DefaultLimits())
	if err != nil {
		return fmt.Errorf("%s: %w", inputName(path), err)
	}
	fs := diffreview.PoisoningModel(list)
	finding.Sort(fs)
	if err := g.emitFindings(fs); err != nil {
		return err
	}
	return lintFailure(fs, threshold)
}

// lintFailure is errLintFindings when a finding reaches threshold ("" never).
func lintFailure(fs []finding.Finding, threshold finding.Severity) error {
	if threshold == "" {
		return nil
	}
	n := 0
	for _, f := range fs {
		if f.Severity.Rank() >= threshold.Rank() {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d finding(s) of severity %s or higher (highest %s)", errLintFindings, n, threshold, finding.Max(fs))
}

func (g *globals) emitFindings(fs []finding.Finding) error {
	if g.output == "json" {
		return writeFindingsJSON(g.io.Out, fs)
	}
	return printLintFindings(g.io.Out, fs)
}

// writeFindingsJSON prints {"findings":[...]}, indented, HTML unescaped.
func writeFindingsJSON(w io.Writer, fs []finding.Finding) error {
	if fs == nil {
		fs = []finding.Finding{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		Findings []finding.Finding `json:"findings"`
	}{fs}); err != nil {
		return err
	}
	_, err := buf.WriteTo(w)
	return err
}

func printLintFindings(w io.Writer, fs []finding.Finding) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, "No findings.")
		return err
	}
	t := newTable(w)
	t.row("SEVERITY", "KIND", "TOOL", "POINTER", "MESSAGE", "EVIDENCE")
	for _, f := range fs {
		t.row(string(f.Severity), f.Kind, f.Tool, f.Pointer, f.Message, f.Evidence)
	}
	return t.flush()
}
