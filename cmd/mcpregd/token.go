package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func newTokenCmd(g *globalOpts) *cobra.Command {
	cmd := &cobra.Command{Use: "token", Short: "Create, list and revoke API tokens (works on the database directly)"}
	cmd.AddCommand(newTokenCreateCmd(g), newTokenListCmd(g), newTokenRevokeCmd(g))
	return cmd
}

func newTokenCreateCmd(g *globalOpts) *cobra.Command {
	var req identity.NewToken
	var role, label string
	cmd := &cobra.Command{
		Use:   "create --name PRINCIPAL --role ROLE [--namespace PATTERN]... [--env LABEL]...",
		Short: "Create a token (and its principal when new); the token is printed once, on the last line",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req.Role, req.Name = registry.Role(role), label
			return withApp(cmd, g, func(svcs *server.Services) error {
				issued, err := svcs.Identity.CreateToken(cmd.Context(), localCaller(), req)
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				t := issued.Token
				fmt.Fprintf(out, "created token %s for principal %s (role %s, expires %s)\n",
					t.GetId(), t.GetPrincipal(), t.GetRole(), expiry(t.GetExpiresAt()))
				fmt.Fprintln(out, "store it now: it is shown only once")
				if c, err := svcs.Identity.Authenticate(cmd.Context(), issued.Secret); err == nil &&
					c.Role == registry.RoleOwner && len(c.Namespaces) == 0 {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning: this owner has no namespace, so the token can submit nothing: "+
						"create the owner with --namespace PATTERN (e.g. io.github.acme)")
				}
				fmt.Fprintln(out, issued.Secret)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Principal, "name", "", "principal name (created if new)")
	f.StringVar(&role, "role", "", "role of a new principal: admin, reviewer, owner, host")
	f.StringArrayVar(&req.Namespaces, "namespace", nil, "namespace pattern an owner may use (repeatable): io.github.acme, com.acme.*, *")
	f.StringArrayVar(&req.EnvLabels, "env", nil, "host environment label (repeatable)")
	f.StringVar(&label, "label", "", "what the token is for, e.g. ci")
	f.DurationVar(&req.TTL, "ttl", 0, "token lifetime, e.g. 720h (0: no expiry)")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

func expiry(t *timestamppb.Timestamp) string {
	if t == nil {
		return "never"
	}
	return t.AsTime().UTC().Format(time.RFC3339)
}

func newTokenListCmd(g *globalOpts) *cobra.Command {
	var principal, output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd, g, func(svcs *server.Services) error {
				ts, err := svcs.Identity.ListTokens(cmd.Context(), localCaller(), principal)
				if err != nil {
					return err
				}
				return printTokens(cmd.OutOrStdout(), ts, output)
			})
		},
	}
	cmd.Flags().StringVar(&principal, "principal", "", "only this principal's tokens")
	cmd.Flags().StringVar(&output, "output", "table", "json or table")
	return cmd
}

func printTokens(w io.Writer, ts []*mcpregv1.Token, output string) error {
	if output == "json" {
		return json.NewEncoder(w).Encode(ts)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPRINCIPAL\tROLE\tLABEL\tCREATED\tEXPIRES\tREVOKED")
	for _, t := range ts {
		revoked := "-"
		if t.GetRevokedAt() != nil {
			revoked = t.GetRevokedAt().AsTime().UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.GetId(), t.GetPrincipal(), t.GetRole(),
			t.GetName(), t.GetCreatedAt().AsTime().UTC().Format(time.RFC3339), expiry(t.GetExpiresAt()), revoked)
	}
	return tw.Flush()
}

func newTokenRevokeCmd(g *globalOpts) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "revoke TOKEN_ID",
		Short: "Revoke a token at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withApp(cmd, g, func(svcs *server.Services) error {
				t, err := svcs.Identity.RevokeToken(cmd.Context(), localCaller(), args[0], reason)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked token %s of principal %s\n", t.GetId(), t.GetPrincipal())
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (recorded in the audit log)")
	return cmd
}

// withApp opens the database quietly (logs go to stderr at warn) for an
// admin command.
func withApp(cmd *cobra.Command, g *globalOpts, fn func(*server.Services) error, opts ...registry.Option) error {
	log, err := newLogger(cmd.ErrOrStderr(), "warn", g.logFormat)
	if err != nil {
		return err
	}
	st, svc, err := openApp(cmd.Context(), g, log, opts...)
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }()
	return fn(svc)
}
