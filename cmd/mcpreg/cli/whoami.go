package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func newWhoAmICmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "whoami",
		Short: "Show the principal holding the token",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				p, err := c.WhoAmI(ctx)
				if err != nil {
					return err
				}
				return g.emit(p, func(w io.Writer) error { return printPrincipal(w, p) })
			})
		},
	}
}

func printPrincipal(w io.Writer, p *mcpregv1.Principal) error {
	t := newTable(w)
	t.row("Principal:", p.GetName())
	t.row("Role:", p.GetRole())
	t.row("Namespaces:", list(p.GetNamespaces()))
	t.row("Environment labels:", list(p.GetEnvLabels()))
	t.row("Created:", timestamp(p.GetCreatedAt()))
	return t.flush()
}
