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
	cmd.AddCommand(newAuditListCmd(g), newAuditVerifyCmd(g), newAuditCheckpointsCmd(g))
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
	var checkpoint string
	var keys []string
	cmd := &cobra.Command{
		Use:   "verify [--checkpoint FILE [--key PEMFILE]...]",
		Short: "Verify the audit chain; exit non-zero when it is broken",
		Long: "Without --checkpoint, have the service walk the audit chain (GET /v1/audit/verify).\n\n" +
			"With --checkpoint FILE (a signed note saved from `mcpreg audit checkpoints --latest` or\n" +
			"/.well-known/mcpreg/audit-checkpoint), read every event through the API and recompute the chain here,\n" +
			"trusting nothing the service says about it: the note must verify with a --key (the discovery public\n" +
			"key, PEM, repeatable for retired keys; without --key the keys the registry publishes, with a warning),\n" +
			"and the chain must reach the checkpoint's length with the checkpoint's hash there. That fails when any\n" +
			"event at or before the checkpoint was rewritten, even with every later hash recomputed, or removed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if checkpoint == "" && len(keys) > 0 {
				return errKeyWithoutCheckpoint
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				if checkpoint != "" {
					return g.verifyLocally(ctx, c, checkpoint, keys)
				}
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
	cmd.Flags().StringVar(&checkpoint, "checkpoint", "", "signed checkpoint note; recompute the chain locally against it (- for standard input)")
	cmd.Flags().StringArrayVar(&keys, "key", nil, "PEM public key the checkpoint must be signed with (repeatable; default: the registry's published keys, with a warning)")
	return cmd
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
