package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
)

func newRepinCmd(g *globals) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "repin NAME VERSION --reason TEXT",
		Short: "Re-pin a version from mcpreg-pin-v1 to v2: its prompts and resources join its pins (four-eyes)",
		Long: "Re-pin a version pinned under mcpreg-pin-v1 to mcpreg-pin-v2. The approved tools, instructions\n" +
			"and serverInfo stay as they are; the prompts, resources and resource templates of the version's\n" +
			"latest scan (which must have matched the pins) are pinned next to them, so hosts compare prompts\n" +
			"and scans raise prompt and resource drift from now on. Review what that scan listed first\n" +
			"(mcpreg scans NAME VERSION; the review page). Not by the version's submitter.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			reason = strings.TrimSpace(reason)
			if reason == "" {
				return fmt.Errorf("--reason is required: say why you re-pin %s %s (it goes into the audit log)", args[0], args[1])
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				v, err := c.Repin(ctx, args[0], args[1], reason)
				if err != nil {
					return err
				}
				return g.emitVersion(v)
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (required; recorded in the audit log)")
	return cmd
}
