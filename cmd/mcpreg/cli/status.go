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

// newStatusCmds are deprecate and undeprecate: the lifecycle status hosts
// see beside the review state.
func newStatusCmds(g *globals) []*cobra.Command {
	var message string
	dep := &cobra.Command{
		Use:   "deprecate NAME [VERSION] --message TEXT",
		Short: "Deprecate a version, or every version of a server: it stays approved and resolvable, and hosts see the message",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(message) == "" {
				return fmt.Errorf("--message is required: say why, or what to use instead")
			}
			return setStatus(cmd, g, args, "deprecated", message)
		},
	}
	dep.Flags().StringVar(&message, "message", "", "why, or what to use instead (required; hosts and the official API show it)")
	undep := &cobra.Command{
		Use:   "undeprecate NAME [VERSION]",
		Short: "Make a deprecated version (or every version of a server) active again",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return setStatus(cmd, g, args, "active", "")
		},
	}
	return []*cobra.Command{dep, undep}
}

func setStatus(cmd *cobra.Command, g *globals, args []string, status, message string) error {
	ver := ""
	if len(args) == 2 {
		ver = args[1]
	}
	return g.run(cmd, func(ctx context.Context, c *client.Client) error {
		vs, err := c.SetStatus(ctx, args[0], ver, status, message)
		if err != nil {
			return err
		}
		out := &mcpregv1.SetVersionStatusResponse{Versions: vs}
		return g.emit(out, func(w io.Writer) error { return printStatuses(w, vs) })
	})
}

func printStatuses(w io.Writer, vs []*mcpregv1.Version) error {
	t := newTable(w)
	t.row("NAME", "VERSION", "STATE", "STATUS", "MESSAGE")
	for _, v := range vs {
		t.row(v.GetName(), v.GetVersion(), v.GetState(), v.GetStatus(), v.GetStatusMessage())
	}
	return t.flush()
}
