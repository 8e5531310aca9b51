package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func newVersionsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "versions", Short: "List and show server versions"}
	cmd.AddCommand(newVersionsListCmd(g), newVersionsGetCmd(g), newVersionsDiffCmd(g))
	return cmd
}

func newVersionsListCmd(g *globals) *cobra.Command {
	req := &mcpregv1.ListVersionsRequest{}
	var page pageFlags
	cmd := &cobra.Command{
		Use:   "list [NAME]",
		Short: "List versions of one server, or of all servers, newest submission first",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := page.check(); err != nil {
				return err
			}
			if len(args) == 1 {
				req.Name = args[0]
			}
			req.PageSize = page.size
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				versions, next, err := collect(&page, func(token string) ([]*mcpregv1.Version, string, error) {
					req.PageToken = token
					resp, err := c.ListVersions(ctx, req)
					return resp.GetVersions(), resp.GetNextPageToken(), err
				})
				if err != nil {
					return err
				}
				g.moreHint(next)
				resp := &mcpregv1.ListVersionsResponse{Versions: versions, NextPageToken: next}
				return g.emit(resp, func(w io.Writer) error { return printVersions(w, versions) })
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.State, "state", "", "only versions in this state (pending_review, approved, rejected, quarantined, revoked)")
	f.StringVar(&req.Owner, "owner", "", "only versions of this owner's servers")
	f.StringVar(&req.Namespace, "namespace", "", "only versions of servers in this namespace")
	f.StringVar(&req.Query, "query", "", "substring of the server name or description")
	page.register(cmd)
	return cmd
}

func printVersions(w io.Writer, versions []*mcpregv1.Version) error {
	t := newTable(w)
	t.row("NAME", "VERSION", "STATE", "SUBMITTED BY", "SUBMITTED", "TOOLS", "TOOL DEFINITION HASH")
	for _, v := range versions {
		t.row(v.GetName(), v.GetVersion(), v.GetState(), v.GetSubmittedBy(), timestamp(v.GetSubmittedAt()),
			strconv.Itoa(len(v.GetPins().GetTools())), v.GetPins().GetToolDefinitionHash())
	}
	return t.flush()
}

func newVersionsGetCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "get NAME VERSION",
		Short: "Show one version: state, submitter, pins, tools and decisions",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				v, err := c.GetVersion(ctx, args[0], args[1])
				if err != nil {
					return err
				}
				return g.emitVersion(v)
			})
		},
	}
}

// emitVersion prints a version as the API's JSON or as a report.
func (g *globals) emitVersion(v *mcpregv1.Version) error {
	return g.emit(v, func(w io.Writer) error { return printVersion(w, v) })
}

func printVersion(w io.Writer, v *mcpregv1.Version) error {
	t := newTable(w)
	t.row("Name:", v.GetName())
	t.row("Version:", v.GetVersion())
	t.row("State:", v.GetState())
	if v.GetStateReason() != "" {
		t.row("State reason:", v.GetStateReason())
	}
	t.row("State changed:", timestamp(v.GetStateChangedAt()))
	t.row("Submitted by:", v.GetSubmittedBy())
	t.row("Submitted:", timestamp(v.GetSubmittedAt()))
	t.row("Owner:", v.GetOwner())
	t.row("Description:", v.GetDescription())
	if err := t.flush(); err != nil {
		return err
	}
	if err := printVersionPins(w, v.GetPins()); err != nil {
		return err
	}
	if err := printVersionFindings(w, v); err != nil {
		return err
	}
	if err := printVersionAttestations(w, v.GetAttestations()); err != nil {
		return err
	}
	return printDecisions(w, v.GetDecisions())
}

// printVersionFindings lists what reviewers must see; contract widenings carry the
// id that `mcpreg approve --ack` takes.
func printVersionFindings(w io.Writer, v *mcpregv1.Version) error {
	if v.GetPins().GetContractHash() != "" {
		fmt.Fprintf(w, "\nContract (%s): %s\n", cell(v.GetContractSource()), cell(v.GetPins().GetContractHash()))
	}
	if len(v.GetFindings()) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nFindings (%d):\n", len(v.GetFindings()))
	t := newTable(w)
	for _, f := range v.GetFindings() {
		what := f.GetMessage()
		if f.GetWideningId() != "" {
			what += " [ack: " + f.GetWideningId() + "]"
		}
		t.row("  "+f.GetSeverity(), f.GetKind(), f.GetTool(), what)
	}
	return t.flush()
}

func printVersionPins(w io.Writer, p *mcpregv1.Pins) error {
	if p == nil {
		_, err := fmt.Fprintln(w, "\nPins: none")
		return err
	}
	fmt.Fprintf(w, "\nPins (%s, revision %d, %s by %s):\n", cell(p.GetSpecVersion()), p.GetRevision(),
		cell(timestamp(p.GetCreatedAt())), cell(p.GetCreatedBy()))
	return printPins(w, pinRows(p.GetToolDefinitionHash(), p.GetSchemaHash(), p.GetInstructionsHash(), p.GetPromptsHash(), p.GetResourcesHash()),
		toolPins(p.GetTools()))
}

func toolPins(tools []*mcpregv1.ToolPin) [][2]string {
	out := make([][2]string, len(tools))
	for i, tp := range tools {
		out[i] = [2]string{tp.GetName(), tp.GetHash()}
	}
	return out
}

// pinRows labels a version's hashes; the prompts and resources hashes
// only when set (mcpreg-pin-v2).
func pinRows(toolDef, schema, instructions, prompts, resources string) [][2]string {
	rows := [][2]string{{"Tool definitions:", toolDef}, {"Schema:", schema}, {"Instructions:", instructions}}
	if prompts != "" || resources != "" {
		rows = append(rows, [2]string{"Prompts:", prompts}, [2]string{"Resources:", resources})
	}
	return rows
}

// printPins lists the version hashes, then each tool and its hash.
func printPins(w io.Writer, rows [][2]string, tools [][2]string) error {
	t := newTable(w)
	for _, r := range rows {
		t.row("  "+r[0], r[1])
	}
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nTools (%d):\n", len(tools))
	t = newTable(w)
	for _, tp := range tools {
		t.row("  "+cell(tp[0]), tp[1])
	}
	return t.flush()
}

func printDecisions(w io.Writer, ds []*mcpregv1.Decision) error {
	if len(ds) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nDecisions:")
	t := newTable(w)
	t.row("  WHEN", "ACTION", "FROM", "TO", "ACTOR", "REASON")
	for _, d := range ds {
		t.row("  "+cell(timestamp(d.GetCreatedAt())), d.GetAction(), d.GetFromState(), d.GetToState(), d.GetActor(), d.GetReason())
	}
	return t.flush()
}
