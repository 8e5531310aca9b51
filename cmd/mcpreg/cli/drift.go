package cli

import (
	"context"
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

func newDriftCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "drift", Short: "List drift events and accept or decline them"}
	cmd.AddCommand(newDriftListCmd(g), newDriftDecisionCmd(g, "accept"), newDriftDecisionCmd(g, "decline"))
	return cmd
}

func newDriftListCmd(g *globals) *cobra.Command {
	req := &mcpregv1.ListDriftEventsRequest{}
	var page pageFlags
	cmd := &cobra.Command{
		Use:   "list [NAME [VERSION]]",
		Short: "List drift events, newest first, with their changes",
		Args:  cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := page.check(); err != nil {
				return err
			}
			if req.Status != "" {
				if _, err := states.ParseDriftStatus(req.Status); err != nil {
					return fmt.Errorf("--status %q: want one of %s", req.Status, states.Join(states.DriftStatuses()))
				}
			}
			req.Name, req.Version = argAt(args, 0), argAt(args, 1)
			req.PageSize = page.size
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				events, next, err := collect(&page, func(token string) ([]*mcpregv1.DriftEvent, string, error) {
					req.PageToken = token
					resp, err := c.ListDriftEvents(ctx, req)
					return resp.GetEvents(), resp.GetNextPageToken(), err
				})
				if err != nil {
					return err
				}
				g.moreHint(next)
				resp := &mcpregv1.ListDriftEventsResponse{Events: events, NextPageToken: next}
				return g.emit(resp, func(w io.Writer) error { return printDriftEvents(w, events) })
			})
		},
	}
	cmd.Flags().StringVar(&req.Status, "status", "", "only events with this status ("+states.Join(states.DriftStatuses())+")")
	page.register(cmd)
	return cmd
}

func argAt(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

var driftDecisionHelp = map[string]string{
	"accept":  "Accept a drift event: re-pin the version to what the server now serves and approve it (four-eyes: not by its submitter; the gates of approve apply)",
	"decline": "Decline a drift event: close it without re-pinning; the version stays quarantined (revoke it to retire it)",
}

func newDriftDecisionCmd(g *globals, decision string) *cobra.Command {
	var reason string
	var acks []string
	cmd := &cobra.Command{
		Use:   decision + " ID --reason TEXT",
		Short: driftDecisionHelp[decision],
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseDriftID(args[0])
			if err != nil {
				return err
			}
			reason = strings.TrimSpace(reason)
			if reason == "" {
				return fmt.Errorf("--reason is required: say why you %s drift event %d (it goes into the audit log)", decision, id)
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				var v *mcpregv1.Version
				var err error
				if decision == "decline" {
					v, err = c.DeclineDrift(ctx, id, reason)
				} else {
					v, err = c.AcceptDrift(ctx, id, reason, acks...)
				}
				if err != nil {
					return err
				}
				return g.emitVersion(v)
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (required; recorded in the audit log)")
	if decision == "accept" {
		cmd.Flags().StringArrayVar(&acks, "ack", nil, "acknowledge a contract widening by its id (repeatable; accepting drift re-approves the version)")
	}
	return cmd
}

func parseDriftID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("drift event id %q: want a positive number, as `mcpreg drift list` shows", s)
	}
	return id, nil
}

func printDriftEvents(w io.Writer, events []*mcpregv1.DriftEvent) error {
	t := newTable(w)
	t.row("ID", "NAME", "VERSION", "STATUS", "ACTION", "CREATED", "CHANGES", "RESOLVED BY")
	for _, ev := range events {
		t.row(strconv.FormatInt(ev.GetId(), 10), ev.GetName(), ev.GetVersion(), ev.GetStatus(), ev.GetAction(),
			timestamp(ev.GetCreatedAt()), changeClasses(ev.GetChanges()), ev.GetResolvedBy())
	}
	return t.flush()
}

// changeClasses names the classes of changes, each once, in order.
func changeClasses(changes []*mcpregv1.DriftChange) string {
	var classes []string
	for _, c := range changes {
		if !slices.Contains(classes, c.GetClass()) {
			classes = append(classes, c.GetClass())
		}
	}
	return list(classes)
}
