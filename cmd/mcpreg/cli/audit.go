package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// ErrChainBroken is returned by "audit verify" when the chain does not hold.
var ErrChainBroken = errors.New("audit chain broken")

func newAuditCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "Read and verify the hash-chained audit log"}
	cmd.AddCommand(newAuditListCmd(g), newAuditVerifyCmd(g))
	return cmd
}

func newAuditListCmd(g *globals) *cobra.Command {
	req := &mcpregv1.ListAuditEventsRequest{}
	var page pageFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List audit events, oldest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := page.check(); err != nil {
				return err
			}
			req.PageSize = page.size
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				events, next, err := collect(&page, func(token string) ([]*mcpregv1.AuditEvent, string, error) {
					req.PageToken = token
					resp, err := c.ListAuditEvents(ctx, req)
					return resp.GetEvents(), resp.GetNextPageToken(), err
				})
				if err != nil {
					return err
				}
				g.moreHint(next)
				resp := &mcpregv1.ListAuditEventsResponse{Events: events, NextPageToken: next}
				return g.emit(resp, func(w io.Writer) error { return printAuditEvents(w, events) })
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Subject, "subject", "", "only events about this subject")
	f.StringVar(&req.Actor, "actor", "", "only events by this principal")
	f.StringVar(&req.Action, "action", "", "only events of this action")
	page.register(cmd)
	return cmd
}

func printAuditEvents(w io.Writer, events []*mcpregv1.AuditEvent) error {
	t := newTable(w)
	t.row("SEQ", "WHEN", "ACTOR", "ACTION", "SUBJECT", "BEFORE", "AFTER", "REASON", "REQUEST ID")
	for _, e := range events {
		t.row(strconv.FormatInt(e.GetSeq(), 10), timestamp(e.GetOccurredAt()), e.GetActor(), e.GetAction(),
			e.GetSubject(), e.GetBefore(), e.GetAfter(), e.GetReason(), e.GetRequestId())
	}
	return t.flush()
}

func newAuditVerifyCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Have the service walk the audit chain; exit non-zero when it is broken",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				resp, err := c.VerifyAuditChain(ctx)
				if err != nil {
					return err
				}
				if err := g.emit(resp, func(w io.Writer) error { return printVerify(w, resp) }); err != nil {
					return err
				}
				return chainError(resp)
			})
		},
	}
}

func printVerify(w io.Writer, r *mcpregv1.VerifyAuditChainResponse) error {
	if !r.GetOk() {
		_, err := fmt.Fprintf(w, "audit chain BROKEN at event %d: %s (%d events checked)\n",
			r.GetFirstBrokenSeq(), cell(r.GetProblem()), r.GetEvents())
		return err
	}
	_, err := fmt.Fprintf(w, "audit chain ok: %d events, head %s\n", r.GetEvents(), cell(r.GetHeadHash()))
	return err
}

// chainError turns a broken chain into the command's failure.
func chainError(r *mcpregv1.VerifyAuditChainResponse) error {
	if r.GetOk() {
		return nil
	}
	return fmt.Errorf("%w at event %d: %s", ErrChainBroken, r.GetFirstBrokenSeq(), cell(r.GetProblem()))
}
