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
	var explain bool
	cmd := &cobra.Command{
		Use:   "lint FILE|- [--fail-on SEVERITY] [--explain]",
		Short: "Check a tools file offline for tool poisoning (hidden instructions, exfiltration, secrecy)",
		Long: "Check the model-visible text of a tools file (the format of `mcpreg pin`: a tools/list result\n" +
			"{\"tools\":[...]} or a bare array, optionally with top-level \"instructions\", \"prompts\",\n" +
			"\"resources\" and \"resourceTemplates\") the way the registry\n" +
			"checks submissions, and print the findings. Needs no service and no token.\n\n" +
			"Exits non-zero when a finding has severity high or critical; --fail-on sets that threshold\n" +
			"(info, low, medium, high, critical, or none never to fail on findings).\n\n" +
			"--explain shows, under each finding, the sentence its evidence stands in and why such text\n" +
			"is flagged; with -o json each finding gains \"sentence\" and \"why\". Every finding's \"span\"\n" +
			"gives rune offsets into the string at its pointer, as decoded from JSON.",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			threshold, err := parseFailOn(failOn)
			if err != nil {
				return err
			}
			return g.lint(args[0], threshold, explain)
		},
	}
	cmd.Flags().BoolVar(&explain, "explain", false, "show each finding's sentence and why it was flagged")
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

func (g *globals) lint(path string, threshold finding.Severity, explain bool) error {
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
	if explain {
		err = g.emitExplained(list, fs)
	} else {
		err = g.emitFindings(fs)
	}
	if err != nil {
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
	return writePlainJSON(w, struct {
		Findings []finding.Finding `json:"findings"`
	}{fs})
}

// writePlainJSON prints v (not a protobuf message) indented, HTML unescaped.
func writePlainJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
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

// explained is a finding with its explanation, as --explain prints it.
type explained struct {
	finding.Finding
	diffreview.Explanation
}

// emitExplained prints each finding with the sentence it stands in and
// why it was flagged.
func (g *globals) emitExplained(l *pin.ToolsList, fs []finding.Finding) error {
	out := make([]explained, len(fs))
	for i, f := range fs {
		out[i] = explained{f, diffreview.Explain(l, f)}
	}
	if g.output == "json" {
		return writePlainJSON(g.io.Out, struct {
			Findings []explained `json:"findings"`
		}{out})
	}
	if len(out) == 0 {
		_, err := fmt.Fprintln(g.io.Out, "No findings.")
		return err
	}
	var b strings.Builder
	for _, e := range out {
		fmt.Fprintf(&b, "%s %s", strings.ToUpper(string(e.Severity)), e.Kind)
		if e.Tool != "" {
			fmt.Fprintf(&b, " · tool %q", e.Tool)
		}
		if e.Pointer != "" {
			fmt.Fprintf(&b, " · %s", e.Pointer)
		}
		if e.Span != (finding.Span{}) {
			fmt.Fprintf(&b, " · runes %d–%d", e.Span.Start, e.Span.End)
		}
		b.WriteString("\n")
		if e.Sentence != "" {
			fmt.Fprintf(&b, "  sentence: %s\n", e.Sentence)
		} else if e.Evidence != "" {
			fmt.Fprintf(&b, "  evidence: %s\n", e.Evidence)
		}
		fmt.Fprintf(&b, "  why: %s\n\n", e.Why)
	}
	_, err := io.WriteString(g.io.Out, b.String())
	return err
}
