package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server"
	"github.com/mcpreg/mcpreg/internal/wiring"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func newUpstreamCmd(g *globalOpts) *cobra.Command {
	cmd := &cobra.Command{Use: "upstream", Short: "Register upstream registries (official /v0.1 API) and sync their servers into review (works on the database directly)"}
	cmd.AddCommand(newUpstreamAddCmd(g), newUpstreamListCmd(g), newUpstreamRemoveCmd(g), newUpstreamSyncCmd(g))
	return cmd
}

// withServiceApp is withApp with the services configured as serve
// configures them (the secrets key, scanning), for the admin commands
// that seal secrets or read servers.
func withServiceApp(cmd *cobra.Command, g *globalOpts, cfg config.Config, fn func(*server.Services) error) error {
	cfg.DB, cfg.LogLevel, cfg.LogFormat = g.db, "warn", g.logFormat
	log, err := newLogger(cmd.ErrOrStderr(), "warn", g.logFormat)
	if err != nil {
		return err
	}
	opts, err := wiring.ServiceOptions(cfg, log)
	if err != nil {
		return err
	}
	return withApp(cmd, g, fn, opts...)
}

func newUpstreamAddCmd(g *globalOpts) *cobra.Command {
	cfg := config.DefaultConfig()
	var in registry.UpstreamInput
	var tokenFile string
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "add NAME --url URL --namespace PATTERN... [--interval 1h] [--token-file FILE] [--allow HOST]... [--tools live|none]",
		Short: "Register an upstream registry; its servers in the namespaces given are imported into review by upstream:NAME",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Name = args[0]
			if cmd.Flags().Changed("interval") {
				in.Interval = &interval
			}
			if tokenFile != "" {
				b, err := os.ReadFile(tokenFile)
				if err != nil {
					return fmt.Errorf("--token-file: %w", err)
				}
				in.Token = strings.TrimRight(string(b), "\r\n")
				if in.Token == "" {
					return fmt.Errorf("--token-file %s is empty", tokenFile)
				}
			}
			return withServiceApp(cmd, g, cfg, func(svcs *server.Services) error {
				u, err := svcs.Registry.Upstreams.AddUpstream(cmd.Context(), localCaller(), in)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "registered upstream %s (%s); its imports are submitted by %s\n", u.GetName(), u.GetUrl(), u.GetPrincipal())
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.URL, "url", "", "base URL of a registry serving the official /v0.1 API")
	f.StringArrayVar(&in.Namespaces, "namespace", nil, "namespace pattern to import (repeatable): io.github.acme, com.acme.*, *")
	f.DurationVar(&interval, "interval", time.Hour, "sync this often (0: only with mcpregd upstream sync or the API)")
	f.StringVar(&tokenFile, "token-file", "", "file holding a bearer token for the upstream (sealed with the secrets key)")
	f.StringArrayVar(&in.Allow, "allow", nil, "restricted address the sync may dial for this upstream (repeatable): a CIDR, an address or a host name, e.g. 127.0.0.1")
	f.StringVar(&in.Tools, "tools", registry.UpstreamToolsLive, "live: read each imported version's tools under the scanner's rules; none: import without a tool snapshot")
	f.StringVar(&cfg.SecretsKey, "secrets-key", cfg.SecretsKey, "the secrets key file serve uses (env MCPREG_SECRETS_KEY)")
	_ = cmd.MarkFlagRequired("url")
	_ = cmd.MarkFlagRequired("namespace")
	return cmd
}

func newUpstreamListCmd(g *globalOpts) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List upstream registries and their sync state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd, g, func(svcs *server.Services) error {
				ups, err := svcs.Registry.Upstreams.ListUpstreams(cmd.Context(), localCaller())
				if err != nil {
					return err
				}
				return printUpstreams(cmd.OutOrStdout(), ups, output)
			})
		},
	}
	cmd.Flags().StringVar(&output, "output", "table", "json or table")
	return cmd
}

func printUpstreams(w io.Writer, ups []*mcpregv1.Upstream, output string) error {
	if output == "json" {
		out := make([]json.RawMessage, len(ups))
		for i, u := range ups {
			b, err := protojson.Marshal(u)
			if err != nil {
				return err
			}
			out[i] = b
		}
		return json.NewEncoder(w).Encode(out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tURL\tNAMESPACES\tINTERVAL\tLAST SUCCESS\tRESUMES\tLAST ERROR")
	for _, u := range ups {
		last, resumes := "-", "-"
		if u.GetLastSuccessAt() != nil {
			last = u.GetLastSuccessAt().AsTime().UTC().Format(time.RFC3339)
		}
		if u.GetResumeCursor() != "" {
			resumes = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", u.GetName(), u.GetUrl(), strings.Join(u.GetNamespaces(), ","),
			time.Duration(u.GetIntervalSeconds())*time.Second, last, resumes, u.GetLastError())
	}
	return tw.Flush()
}

func newUpstreamRemoveCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Stop syncing an upstream (the versions it imported stay, with their provenance)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withApp(cmd, g, func(svcs *server.Services) error {
				u, err := svcs.Registry.Upstreams.RemoveUpstream(cmd.Context(), localCaller(), args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "removed upstream %s (%s)\n", u.GetName(), u.GetUrl())
				return nil
			})
		},
	}
}

func newUpstreamSyncCmd(g *globalOpts) *cobra.Command {
	cfg := config.DefaultConfig()
	var output string
	cmd := &cobra.Command{
		Use:   "sync NAME",
		Short: "Run a sync pass now, in this process, with serve's scanning settings (a pass cut short resumes where it stopped)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServiceApp(cmd, g, cfg, func(svcs *server.Services) error {
				res, err := svcs.Registry.Upstreams.SyncUpstream(cmd.Context(), localCaller(), args[0])
				if err != nil {
					return err
				}
				return printSync(cmd.OutOrStdout(), res, output)
			})
		},
	}
	cmd.Flags().StringVar(&output, "output", "table", "json or table")
	addServiceFlags(cmd.Flags(), &cfg)
	return cmd
}

func printSync(w io.Writer, res *registry.SyncResult, output string) error {
	if output == "json" {
		b, err := protojson.Marshal(server.SyncResultProto(res))
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		if err == nil && res.Stopped != "" {
			err = fmt.Errorf("the pass stopped early: %s", res.Stopped)
		}
		return err
	}
	c := res.Counts
	fmt.Fprintf(w, "upstream %s: %d pages, %d listed, %d imported, %d unchanged, %d outside the namespaces, %d invalid, %d conflicts, %d status changes\n",
		res.Upstream.GetName(), c["pages"], c["listed"], c["imported"], c["unchanged"], c["skipped"], c["invalid"], c["conflicts"], c["status_changes"])
	for _, e := range res.Errors {
		fmt.Fprintln(w, "  "+e)
	}
	if res.Stopped != "" {
		return fmt.Errorf("the pass stopped early (the next pass resumes from its last good page): %s", res.Stopped)
	}
	return nil
}
