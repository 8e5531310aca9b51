package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
)

var transitionHelp = map[client.Action]string{
	client.ActionApprove:    "Approve a version under review (four-eyes: not by its submitter)",
	client.ActionReject:     "Reject a version under review",
	client.ActionQuarantine: "Quarantine an approved version: it leaves discovery at once",
	client.ActionRelease:    "Release a quarantined version back to approved",
	client.ActionRevoke:     "Revoke an approved or quarantined version, for good",
}

func newTransitionCmd(g *globals, action client.Action) *cobra.Command {
	var reason string
	var acks []string
	cmd := &cobra.Command{
		Use:   string(action) + " NAME VERSION --reason TEXT",
		Short: transitionHelp[action],
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			reason = strings.TrimSpace(reason)
			if reason == "" {
				return fmt.Errorf("--reason is required: say why you %s %s %s (it goes into the audit log)", action, args[0], args[1])
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				v, err := c.Transition(ctx, action, args[0], args[1], reason, acks...)
				if err != nil {
					return err
				}
				return g.emitVersion(v)
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (required; recorded in the audit log)")
	if action == client.ActionApprove || action == client.ActionRelease {
		cmd.Flags().StringArrayVar(&acks, "ack", nil, "acknowledge a contract widening by its id (repeatable; every widening of the version must be acknowledged)")
	}
	return cmd
}
