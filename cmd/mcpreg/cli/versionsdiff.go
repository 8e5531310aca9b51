package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func newVersionsDiffCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "diff NAME BASE TARGET",
		Short: "Show what changed from BASE to TARGET, as TARGET's reviewer sees it",
		Long: `Compares two versions of a server: tools added, removed and changed (descriptions as a
word diff, [-deleted-] {+inserted+}, schemas by JSON pointer, annotations, titles),
instructions, capability contract widenings and narrowings, and which of TARGET's findings
are new. BASE "-" compares with the version TARGET's reviewer sees by default: the highest
version below TARGET that was approved and is not revoked.`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			base := args[1]
			if base == "-" {
				base = ""
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				cmp, err := c.CompareVersions(ctx, args[0], args[2], base)
				if err != nil {
					return err
				}
				return g.emit(cmp, func(w io.Writer) error { return printComparison(w, cmp) })
			})
		},
	}
}

// printComparison writes a comparison: the summary, then changed, added
// and removed tools with their changes, the instructions, the contract and
// the findings; unchanged tools are counted, not listed.
func printComparison(w io.Writer, c *mcpregv1.VersionComparison) error {
	if c.GetFirstVersion() {
		_, err := fmt.Fprintf(w, "%s@%s: first version (no approved version below it to compare with)\n", cell(c.GetName()), cell(c.GetVersion()))
		return err
	}
	fmt.Fprintf(w, "%s: %s → %s (base: %s)\n", cell(c.GetName()), cell(c.GetBase()), cell(c.GetVersion()), cell(c.GetBaseSource()))
	fmt.Fprintf(w, "Summary: %s\n", cell(c.GetSummary().GetText()))
	unchanged := 0
	for _, t := range c.GetTools() {
		if t.GetStatus() == "unchanged" {
			unchanged++
			continue
		}
		fmt.Fprintf(w, "\nTool %s: %s\n", cell(t.GetName()), cell(t.GetStatus()))
		for _, ch := range t.GetChanges() {
			printDriftChange(w, ch)
		}
	}
	if unchanged > 0 {
		fmt.Fprintf(w, "\nUnchanged tools: %d\n", unchanged)
	}
	if len(c.GetInstructions()) > 0 {
		fmt.Fprintln(w, "\nInstructions:")
		for _, ch := range c.GetInstructions() {
			printDriftChange(w, ch)
		}
	}
	if len(c.GetContract()) > 0 {
		fmt.Fprintf(w, "\nContract (%d):\n", len(c.GetContract()))
		t := newTable(w)
		for _, ch := range c.GetContract() {
			what := ch.GetMessage()
			if ch.GetId() != "" {
				what += " [ack: " + ch.GetId() + "]"
			}
			t.row("  "+ch.GetDirection(), ch.GetTool(), what)
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	if len(c.GetFindings()) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nFindings (%d):\n", len(c.GetFindings()))
	t := newTable(w)
	for _, f := range c.GetFindings() {
		what := f.GetFinding().GetMessage()
		if f.GetBaseEvidence() != "" {
			what += " (evidence changed; was: " + clip(f.GetBaseEvidence()) + ")"
		}
		t.row("  "+f.GetStatus(), f.GetFinding().GetSeverity(), f.GetFinding().GetKind(), f.GetFinding().GetTool(), what)
	}
	return t.flush()
}
