package cli

import (
	"context"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func newServersCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "servers", Short: "List and show servers"}
	cmd.AddCommand(newServersListCmd(g), newServersGetCmd(g))
	return cmd
}

func newServersListCmd(g *globals) *cobra.Command {
	req := &mcpregv1.ListServersRequest{}
	var page pageFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List servers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := page.check(); err != nil {
				return err
			}
			req.PageSize = page.size
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				servers, next, err := collect(&page, func(token string) ([]*mcpregv1.Server, string, error) {
					req.PageToken = token
					resp, err := c.ListServers(ctx, req)
					return resp.GetServers(), resp.GetNextPageToken(), err
				})
				if err != nil {
					return err
				}
				g.moreHint(next)
				resp := &mcpregv1.ListServersResponse{Servers: servers, NextPageToken: next}
				return g.emit(resp, func(w io.Writer) error { return printServers(w, servers) })
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.State, "state", "", "only servers with a version in this state")
	f.StringVar(&req.Owner, "owner", "", "only servers of this owner")
	f.StringVar(&req.Namespace, "namespace", "", "only servers in this namespace")
	f.StringVar(&req.Query, "query", "", "substring of the name or description")
	page.register(cmd)
	return cmd
}

func printServers(w io.Writer, servers []*mcpregv1.Server) error {
	t := newTable(w)
	t.row("NAME", "OWNER", "LATEST", "APPROVED", "VERSIONS", "UPDATED")
	for _, s := range servers {
		t.row(s.GetName(), s.GetOwner(), s.GetLatestVersion(), s.GetLatestApprovedVersion(),
			strconv.Itoa(int(s.GetVersionCount())), timestamp(s.GetUpdatedAt()))
	}
	return t.flush()
}

func newServersGetCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "get NAME",
		Short: "Show one server",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				s, err := c.GetServer(ctx, args[0])
				if err != nil {
					return err
				}
				return g.emit(s, func(w io.Writer) error { return printServer(w, s) })
			})
		},
	}
}

func printServer(w io.Writer, s *mcpregv1.Server) error {
	t := newTable(w)
	t.row("Name:", s.GetName())
	t.row("Title:", s.GetTitle())
	t.row("Namespace:", s.GetNamespace())
	t.row("Owner:", s.GetOwner())
	t.row("Description:", s.GetDescription())
	t.row("Latest version:", s.GetLatestVersion())
	t.row("Latest approved:", s.GetLatestApprovedVersion())
	t.row("Versions:", strconv.Itoa(int(s.GetVersionCount())))
	t.row("Created:", timestamp(s.GetCreatedAt()))
	t.row("Updated:", timestamp(s.GetUpdatedAt()))
	return t.flush()
}
