package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// maxValueRunes caps a before or after value shown in a change's detail.
const maxValueRunes = 200

// printDriftEvent prints a drift event and each of its changes.
func printDriftEvent(w io.Writer, ev *mcpregv1.DriftEvent) error {
	t := newTable(w)
	t.row("Drift event:", strconv.FormatInt(ev.GetId(), 10)+" ("+ev.GetName()+"@"+ev.GetVersion()+")")
	t.row("Status:", ev.GetStatus())
	t.row("Action:", ev.GetAction())
	t.row("Against pins:", "revision "+strconv.Itoa(int(ev.GetPinRevision())))
	t.row("Created:", timestamp(ev.GetCreatedAt()))
	if ev.GetResolvedBy() != "" {
		t.row("Resolved:", timestamp(ev.GetResolvedAt())+" by "+ev.GetResolvedBy())
		t.row("Reason:", ev.GetResolutionReason())
	}
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nChanges (%d):\n", len(ev.GetChanges()))
	for _, c := range ev.GetChanges() {
		printDriftChange(w, c)
	}
	return nil
}

// printDriftChange writes one change: a header line, then its detail
// indented, one line each.
func printDriftChange(w io.Writer, c *mcpregv1.DriftChange) {
	where := joinNonEmpty(" ", c.GetTool(), c.GetPointer())
	fmt.Fprintf(w, "  %s  %s  %s  %s\n", cell(c.GetSeverity()), cell(c.GetClass()), cell(c.GetAction()), cell(where))
	if c.GetMessage() != "" {
		fmt.Fprintf(w, "      %s\n", cell(c.GetMessage()))
	}
	for _, line := range changeDetail(c) {
		fmt.Fprintf(w, "      %s\n", cell(line))
	}
}

// changeDetail renders what changed: the word diff of a text, the JSON
// changes of a schema or annotations, else the values before and after.
func changeDetail(c *mcpregv1.DriftChange) []string {
	var lines []string
	if len(c.GetWords()) > 0 {
		lines = append(lines, renderWordDiff(c.GetWords()))
	}
	for _, jc := range append(c.GetSchema(), c.GetAnnotations()...) {
		lines = append(lines, renderJSONChange(jc))
	}
	if len(lines) == 0 && (c.GetBefore() != "" || c.GetAfter() != "") {
		lines = append(lines, clip(c.GetBefore())+" → "+clip(c.GetAfter()))
	}
	return lines
}

// renderWordDiff writes a word diff inline, wdiff style: deleted text as
// [-text-], inserted text as {+text+}.
func renderWordDiff(segs []*mcpregv1.DiffSegment) string {
	var b strings.Builder
	for _, s := range segs {
		switch s.GetOp() {
		case "delete":
			b.WriteString("[-" + s.GetText() + "-]")
		case "insert":
			b.WriteString("{+" + s.GetText() + "+}")
		default:
			b.WriteString(s.GetText())
		}
	}
	return b.String()
}

// renderJSONChange writes "op pointer before → after"; an absent side is "-".
func renderJSONChange(jc *mcpregv1.JsonChange) string {
	return cell(jc.GetOp()) + " " + cell(jc.GetPointer()) + " " + clip(jc.GetBefore()) + " → " + clip(jc.GetAfter())
}

// clip shortens s to maxValueRunes runes; empty becomes "-".
func clip(s string) string {
	if r := []rune(s); len(r) > maxValueRunes {
		s = string(r[:maxValueRunes]) + "…"
	}
	return cell(s)
}
