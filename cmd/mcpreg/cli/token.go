package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func newTokenCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "token", Short: "Create, list and revoke API tokens (admin)"}
	cmd.AddCommand(newTokenCreateCmd(g), newTokenListCmd(g), newTokenRevokeCmd(g))
	return cmd
}

func newTokenCreateCmd(g *globals) *cobra.Command {
	req := &mcpregv1.CreateTokenRequest{}
	var ttl time.Duration
	cmd := &cobra.Command{
		Use:   "create --principal NAME [--role ROLE] [--namespace PATTERN]... [--env LABEL]...",
		Short: "Create a token (and its principal when new); the secret is printed once, on the last line",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if ttl < 0 || ttl%time.Second != 0 {
				return fmt.Errorf("--ttl %s: want whole seconds, 0 or more", ttl)
			}
			req.TtlSeconds = int64(ttl / time.Second)
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				resp, err := c.CreateToken(ctx, req)
				if err != nil {
					return err
				}
				return g.emit(resp, func(w io.Writer) error { return printCreatedToken(w, resp) })
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Principal, "principal", "", "principal name (created if new)")
	f.StringVar(&req.Role, "role", "", "role of a new principal: admin, reviewer, owner, host")
	f.StringArrayVar(&req.Namespaces, "namespace", nil, "namespace pattern an owner may use (repeatable)")
	f.StringArrayVar(&req.EnvLabels, "env", nil, "host environment label (repeatable)")
	f.StringVar(&req.Name, "name", "", "what the token is for, e.g. ci")
	f.DurationVar(&ttl, "ttl", 0, "token lifetime, e.g. 720h (0: no expiry)")
	_ = cmd.MarkFlagRequired("principal")
	return cmd
}

func printCreatedToken(w io.Writer, r *mcpregv1.CreateTokenResponse) error {
	t := r.GetToken()
	fmt.Fprintf(w, "created token %s for principal %s (role %s, expires %s)\n",
		cell(t.GetId()), cell(t.GetPrincipal()), cell(t.GetRole()), cell(timestamp(t.GetExpiresAt())))
	fmt.Fprintln(w, "store it now: it is shown only once")
	_, err := fmt.Fprintln(w, r.GetSecret())
	return err
}

func newTokenListCmd(g *globals) *cobra.Command {
	req := &mcpregv1.ListTokensRequest{}
	cmd := &cobra.Command{
		Use:   "list [--principal NAME]",
		Short: "List tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				resp, err := c.ListTokens(ctx, req)
				if err != nil {
					return err
				}
				return g.emit(resp, func(w io.Writer) error { return printTokens(w, resp.GetTokens()) })
			})
		},
	}
	cmd.Flags().StringVar(&req.Principal, "principal", "", "only this principal's tokens")
	return cmd
}

func printTokens(w io.Writer, tokens []*mcpregv1.Token) error {
	t := newTable(w)
	t.row("ID", "PRINCIPAL", "ROLE", "NAME", "CREATED", "EXPIRES", "REVOKED", "LAST USED")
	for _, tk := range tokens {
		t.row(tk.GetId(), tk.GetPrincipal(), tk.GetRole(), tk.GetName(), timestamp(tk.GetCreatedAt()),
			timestamp(tk.GetExpiresAt()), timestamp(tk.GetRevokedAt()), timestamp(tk.GetLastUsedAt()))
	}
	return t.flush()
}

func newTokenRevokeCmd(g *globals) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "revoke ID [--reason TEXT]",
		Short: "Revoke a token at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				tk, err := c.RevokeToken(ctx, args[0], reason)
				if err != nil {
					return err
				}
				return g.emit(tk, func(w io.Writer) error { return printTokens(w, []*mcpregv1.Token{tk}) })
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (recorded in the audit log)")
	return cmd
}
