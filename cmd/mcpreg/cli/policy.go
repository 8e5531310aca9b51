package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func newPolicyCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "Read or set what a server's versions must satisfy"}
	get := &cobra.Command{
		Use:   "get NAME",
		Short: "Show a server's policy",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				p, err := c.GetServerPolicy(ctx, args[0])
				if err != nil {
					return err
				}
				return g.emitPolicy(p)
			})
		},
	}
	cmd.AddCommand(get, newPolicySetCmd(g))
	return cmd
}

func newPolicySetCmd(g *globals) *cobra.Command {
	var requireContract bool
	var reason string
	cmd := &cobra.Command{
		Use:   "set NAME --require-contract=true|false --reason TEXT",
		Short: "Replace a server's policy (admin or reviewer; audited)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(reason) == "" {
				return fmt.Errorf("--reason is required: it goes into the audit log")
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				p, err := c.UpdateServerPolicy(ctx, args[0], &mcpregv1.ServerPolicy{RequireContract: requireContract}, reason)
				if err != nil {
					return err
				}
				return g.emitPolicy(p)
			})
		},
	}
	cmd.Flags().BoolVar(&requireContract, "require-contract", false, "refuse submissions without a capability contract")
	cmd.Flags().StringVar(&reason, "reason", "", "why (required; recorded in the audit log)")
	return cmd
}

func (g *globals) emitPolicy(p *mcpregv1.ServerPolicy) error {
	return g.emit(p, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "server:           %s\nrequire contract: %t\nupdated by:       %s\n",
			p.GetName(), p.GetRequireContract(), p.GetUpdatedBy())
		return err
	})
}
