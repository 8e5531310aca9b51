package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/hostclient"
	"github.com/mcpreg/mcpreg/scan"
)

func newHostCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "host", Short: "Check a host's MCP configuration against the registry, or export the allowlist it enforces"}
	cmd.AddCommand(newHostCheckCmd(g), newHostExportCmd(g))
	return cmd
}

type hostCheckOptions struct {
	config    string
	blockWarn bool
	trust     trustFlags
}

func newHostCheckCmd(g *globals) *cobra.Command {
	var o hostCheckOptions
	cmd := &cobra.Command{
		Use:   "check --config FILE [--key FILE]... [--state FILE] [--block-warn] [--timeout D]",
		Short: "Check every server of a host configuration: approved, drifted, unapproved or unreachable",
		Long: "Resolve the signed allowlist (verified like discovery get --verify), then for every server of the\n" +
			"host configuration ({\"mcpServers\": {...}} or VS Code's {\"servers\": {...}}):\n" +
			"  - match it to an allowlist entry: its name is the registry name, its URL one of the entry's\n" +
			"    remotes, or its command line names the entry's npm or PyPI package (pkg@VERSION);\n" +
			"  - connect (start a stdio server with its command, args and env, in a scrubbed environment\n" +
			"    with your PATH; or reach its URL, loopback and private addresses included since the\n" +
			"    configuration names them), list its tools and compare them with the pins;\n" +
			"  - on a difference, ask the registry: quarantine-class drift is blocked, warn-class drift is a\n" +
			"    warning (blocked with --block-warn), and a failed check blocks.\n" +
			"Servers without a matching entry are reported unapproved and never started or contacted; when\n" +
			"such a server's name is a registry name, the registry is asked why (quarantined since when,\n" +
			"revoked, not approved) and its answer is in the detail and in registryStatus.\n" +
			"Exits non-zero when any server is unapproved, blocked or unreachable. Needs a host token.\n" +
			"--timeout bounds each server's connection and each registry request (default " + scan.DefaultDeadline.String() + " here).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("timeout") {
				g.timeout = scan.DefaultDeadline
			}
			return g.hostCheck(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "host configuration JSON file (- for standard input)")
	f.BoolVar(&o.blockWarn, "block-warn", false, "block warn-class drift too")
	o.trust.register(f)
	_ = cmd.MarkFlagRequired("config")
	return cmd
}

// hostCheckResult is the JSON output of host check.
type hostCheckResult struct {
	Registry  string                    `json:"registry"`
	Sequence  int64                     `json:"sequence"`
	IssuedAt  time.Time                 `json:"issuedAt"`
	ExpiresAt time.Time                 `json:"expiresAt"`
	Servers   []hostclient.ServerResult `json:"servers"`
}

func (g *globals) hostCheck(ctx context.Context, o hostCheckOptions) error {
	if err := checkStdin(append([]string{o.config}, o.trust.keys...)...); err != nil {
		return err
	}
	data, err := g.readInput("--config", o.config)
	if err != nil {
		return err
	}
	servers, err := hostclient.ParseHostConfig(data)
	if err != nil {
		return fmt.Errorf("--config %s: %w", o.config, err)
	}
	c, err := g.hostClient()
	if err != nil {
		return err
	}
	if err := g.trust(ctx, c, o.trust); err != nil {
		return err
	}
	doc, err := c.Resolve(ctx, hostclient.Query{})
	if err != nil {
		return verificationFailure(err)
	}
	path, _ := g.io.LookupEnv("PATH")
	results := c.CheckServers(ctx, doc, servers, hostclient.CheckOptions{Policy: hostclient.Policy{BlockWarn: o.blockWarn},
		Limits: scan.Limits{Deadline: g.timeout}, Path: path})
	if err := g.emitHostCheck(doc, results); err != nil {
		return err
	}
	return hostCheckFailure(results)
}

func (g *globals) emitHostCheck(doc *discovery.Document, results []hostclient.ServerResult) error {
	if g.output == "json" {
		return writeValueJSON(g.io.Out, hostCheckResult{Registry: g.server, Sequence: doc.Sequence,
			IssuedAt: doc.IssuedAt, ExpiresAt: doc.ExpiresAt, Servers: results})
	}
	return printHostCheck(g.io.Out, results)
}

func printHostCheck(w io.Writer, results []hostclient.ServerResult) error {
	t := newTable(w)
	t.row("SERVER", "REGISTRY NAME@VERSION", "VERDICT", "DETAIL")
	for _, r := range results {
		entry := ""
		if r.Name != "" {
			entry = r.Name + "@" + r.Version
		}
		t.row(r.Server, entry, r.Status, r.Detail)
	}
	return t.flush()
}

// hostCheckFailure counts the servers a host must not expose, or not
// with every tool.
func hostCheckFailure(results []hostclient.ServerResult) error {
	counts := map[string]int{}
	failed := 0
	for _, r := range results {
		if !r.Exposable() || len(r.BlockedTools) > 0 {
			counts[r.Status]++
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	var parts []string
	for _, s := range []string{hostclient.StatusUnapproved, hostclient.StatusBlocked, hostclient.StatusPartial, hostclient.StatusUnreachable} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	return fmt.Errorf("host check: %d of %d servers must not be used: %s", failed, len(results), strings.Join(parts, ", "))
}
