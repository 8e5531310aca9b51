package cli

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func newReceiptsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "receipts", Short: "List what runtime gates recorded of the calls they relayed"}
	cmd.AddCommand(newReceiptsListCmd(g))
	return cmd
}

func newReceiptsListCmd(g *globals) *cobra.Command {
	var page pageFlags
	var server, version, outcome string
	cmd := &cobra.Command{
		Use:   "list [--name NAME] [--version V] [--outcome committed|failed|uncertain|rejected]",
		Short: "List gate receipts, newest first (reviewers and admins)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := page.check(); err != nil {
				return err
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				rs, next, err := collect(&page, func(token string) ([]*mcpregv1.CallReceipt, string, error) {
					resp, err := c.ListReceipts(ctx, &mcpregv1.ListReceiptsRequest{Server: server, Version: version,
						Outcome: outcome, PageSize: page.size, PageToken: token})
					return resp.GetReceipts(), resp.GetNextPageToken(), err
				})
				if err != nil {
					return err
				}
				g.moreHint(next)
				resp := &mcpregv1.ListReceiptsResponse{Receipts: rs, NextPageToken: next}
				return g.emit(resp, func(w io.Writer) error { return printReceipts(w, rs) })
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&server, "name", "", "keep one server (registry name)")
	f.StringVar(&version, "version", "", "keep one version (with --name)")
	f.StringVar(&outcome, "outcome", "", "keep one outcome: committed, failed, uncertain or rejected")
	page.register(cmd)
	return cmd
}

func printReceipts(w io.Writer, rs []*mcpregv1.CallReceipt) error {
	t := newTable(w)
	t.row("ENDED", "SERVER@VERSION", "PIN REV", "TOOL", "OUTCOME", "HOST", "REASON / FINDINGS")
	for _, r := range rs {
		detail := joinNonEmpty("; ", r.GetReason(), strings.Join(r.GetFindings(), ", "))
		t.row(timestamp(r.GetEndedAt()), r.GetServer()+"@"+r.GetVersion(), strconv.Itoa(int(r.GetPinRevision())),
			r.GetTool(), r.GetOutcome(), r.GetPrincipal(), detail)
	}
	return t.flush()
}
