package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	"github.com/mcpreg/mcpreg/internal/states"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// errScanFailed is returned after printing a scan whose outcome is error:
// the registry could not read the server, so nothing was compared.
var errScanFailed = errors.New("scan failed")

func newScanCmd(g *globals) *cobra.Command {
	var fresh bool
	cmd := &cobra.Command{
		Use:   "scan NAME VERSION",
		Short: "Read a version's server live now and compare it with the pins",
		Long: "Ask the registry to read the version's server live now and compare what it serves with\n" +
			"the approved pins. Prints the scan and, if the server drifted, the drift event with every\n" +
			"change (description word diffs as [-deleted-]{+inserted+}). Quarantine-class drift\n" +
			"quarantines the version at once.\n\n" +
			"Exits non-zero only when the call fails or the scan itself failed (outcome error: the\n" +
			"server could not be read). Drift is a result, not a failure: check the output, or the\n" +
			"JSON's scan.outcome (match, drift or error) and state.\n\n" +
			"A scan that finished within the registry's cooldown answers instead (the output says\n" +
			"so); reviewers and admins can ask for a new reading with --fresh. Each principal has a\n" +
			"scan rate and each replica a cap on scans at once; over them the call fails with 429.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				res, err := c.ScanVersionFresh(ctx, args[0], args[1], fresh)
				if err != nil {
					return err
				}
				if err := g.emit(res, func(w io.Writer) error { return printScanResult(w, res) }); err != nil {
					return err
				}
				return scanFailure(res.GetScan())
			})
		},
	}
	cmd.Flags().BoolVar(&fresh, "fresh", false, "read the server now even if a scan finished within the cooldown (reviewers and admins)")
	return cmd
}

// scanFailure is errScanFailed, with the scan's error, when the scan could
// not read the server.
func scanFailure(s *mcpregv1.Scan) error {
	if states.ScanOutcome(s.GetOutcome()) != states.OutcomeError {
		return nil
	}
	msg := s.GetError()
	if s.GetErrorKind() != "" {
		msg = s.GetErrorKind() + ": " + msg
	}
	return fmt.Errorf("%w: %s@%s scan %d: %s", errScanFailed, s.GetName(), s.GetVersion(), s.GetId(), msg)
}

func printScanResult(w io.Writer, res *mcpregv1.ScanResult) error {
	if m := res.GetMerged(); m != nil {
		fmt.Fprintf(w, "Note: %s.\n", m.GetMessage())
	}
	if err := printScan(w, res.GetScan(), res.GetState()); err != nil {
		return err
	}
	if ev := res.GetDriftEvent(); ev != nil {
		fmt.Fprintln(w)
		return printDriftEvent(w, ev)
	}
	return nil
}

// printScan prints a scan and the pins it saw; state is the version's state
// after the scan.
func printScan(w io.Writer, s *mcpregv1.Scan, state string) error {
	t := newTable(w)
	t.row("Scan:", strconv.FormatInt(s.GetId(), 10)+" of "+s.GetName()+"@"+s.GetVersion())
	t.row("Outcome:", s.GetOutcome())
	outcome := states.ScanOutcome(s.GetOutcome())
	if outcome == states.OutcomeError {
		t.row("Error:", joinNonEmpty(": ", s.GetErrorKind(), s.GetError()))
	}
	t.row("Trigger:", joinNonEmpty(" by ", s.GetTrigger(), s.GetRequestedBy()))
	t.row("Started:", timestamp(s.GetStartedAt()))
	t.row("Finished:", timestamp(s.GetFinishedAt()))
	if vs := s.GetProtocolVersions(); len(vs) > 0 {
		t.row("Protocol versions:", strings.Join(vs, ", "))
	}
	if s.GetDriftEventId() != 0 {
		t.row("Drift event:", strconv.FormatInt(s.GetDriftEventId(), 10))
	}
	t.row("Version state:", state)
	if err := t.flush(); err != nil || outcome == states.OutcomeError || outcome == states.OutcomeRunning {
		return err
	}
	fmt.Fprintln(w, "Pins seen:")
	t = newTable(w)
	t.row("  Tool definitions:", s.GetToolDefinitionHash())
	t.row("  Schema:", s.GetSchemaHash())
	t.row("  Instructions:", s.GetInstructionsHash())
	return t.flush()
}

// joinNonEmpty joins the parts that are not empty.
func joinNonEmpty(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), sep)
}

func newScansCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "scans", Short: "List a version's live scans"}
	cmd.AddCommand(newScansListCmd(g))
	return cmd
}

func newScansListCmd(g *globals) *cobra.Command {
	var page pageFlags
	cmd := &cobra.Command{
		Use:   "list NAME VERSION",
		Short: "List a version's scans, newest first",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := page.check(); err != nil {
				return err
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				scans, next, err := collect(&page, func(token string) ([]*mcpregv1.Scan, string, error) {
					resp, err := c.ListScans(ctx, args[0], args[1], page.size, token)
					return resp.GetScans(), resp.GetNextPageToken(), err
				})
				if err != nil {
					return err
				}
				g.moreHint(next)
				resp := &mcpregv1.ListScansResponse{Scans: scans, NextPageToken: next}
				return g.emit(resp, func(w io.Writer) error { return printScans(w, scans) })
			})
		},
	}
	page.register(cmd)
	return cmd
}

func printScans(w io.Writer, scans []*mcpregv1.Scan) error {
	t := newTable(w)
	t.row("ID", "STARTED", "TRIGGER", "BY", "OUTCOME", "DRIFT EVENT", "TOOL DEFINITION HASH / ERROR")
	for _, s := range scans {
		drift, detail := "", s.GetToolDefinitionHash()
		if s.GetDriftEventId() != 0 {
			drift = strconv.FormatInt(s.GetDriftEventId(), 10)
		}
		if states.ScanOutcome(s.GetOutcome()) == states.OutcomeError {
			detail = joinNonEmpty(": ", s.GetErrorKind(), s.GetError())
		}
		t.row(strconv.FormatInt(s.GetId(), 10), timestamp(s.GetStartedAt()), s.GetTrigger(), s.GetRequestedBy(),
			s.GetOutcome(), drift, detail)
	}
	return t.flush()
}
