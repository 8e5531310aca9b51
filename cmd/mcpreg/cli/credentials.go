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

func newCredentialsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scan-credentials",
		Short: "Credentials the registry's scanner reads a server with (admins set them; values are never shown)",
	}
	cmd.AddCommand(newCredentialsSetCmd(g), newCredentialsListCmd(g), newCredentialsDeleteCmd(g))
	return cmd
}

func newCredentialsSetCmd(g *globals) *cobra.Command {
	var headers, env, scopes []string
	var origin, pkg string
	cmd := &cobra.Command{
		Use:   "set NAME LABEL (--header NAME=@FILE... --origin URL | --env NAME=@FILE... --package ID) [--scope SCOPE]...",
		Short: "Store (or replace) a credential set of a server, sealed with the registry's secrets key",
		Long: "Store a set of credentials the scanner reads server NAME with: HTTP headers sent to its remote's\n" +
			"own origin, or environment variables given to its package inside the sandbox, and the OAuth\n" +
			"scopes they carry. The scanner reads the server once per set and pins the union of the tools,\n" +
			"each with the scopes of the sets that saw it. Values are read from files (@FILE, or @- for\n" +
			"standard input; a trailing newline is dropped), never from the command line, and never shown\n" +
			"again. Headers go to --origin only and variables to --package only: a version whose remote or\n" +
			"package is another is not read with them.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := &mcpregv1.SetScanCredentialRequest{Scopes: scopes, Origin: origin, Package: pkg}
			var err error
			if in.Headers, err = g.secretValues("--header", headers); err != nil {
				return err
			}
			if in.Env, err = g.secretValues("--env", env); err != nil {
				return err
			}
			if len(in.Headers)+len(in.Env) == 0 {
				return fmt.Errorf("give at least one --header or --env")
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				out, err := c.SetScanCredential(ctx, args[0], args[1], in)
				if err != nil {
					return err
				}
				return g.emit(out, func(w io.Writer) error { return printCredentials(w, out) })
			})
		},
	}
	cmd.Flags().StringArrayVar(&headers, "header", nil, "HTTP header NAME=@FILE (repeatable)")
	cmd.Flags().StringArrayVar(&env, "env", nil, "environment variable NAME=@FILE (repeatable)")
	cmd.Flags().StringArrayVar(&scopes, "scope", nil, "an OAuth scope the credentials carry (repeatable)")
	cmd.Flags().StringVar(&origin, "origin", "", "scheme://host[:port] the headers may be sent to (required with --header)")
	cmd.Flags().StringVar(&pkg, "package", "", "identifier of the package whose process gets the variables (required with --env)")
	return cmd
}

// secretValues reads NAME=@FILE pairs; a value given inline is refused,
// since command lines show in process lists and shell histories.
func (g *globals) secretValues(flag string, pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		name, src, ok := strings.Cut(p, "=")
		if !ok || name == "" || !strings.HasPrefix(src, "@") || len(src) < 2 {
			return nil, fmt.Errorf("%s %q: want NAME=@FILE or NAME=@- (values are never given on the command line)", flag, strings.SplitN(p, "=", 2)[0])
		}
		data, err := g.readInput(flag+" "+name, src[1:])
		if err != nil {
			return nil, err
		}
		out[name] = strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	}
	return out, nil
}

func newCredentialsListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list NAME",
		Short: "Name a server's credential sets (labels, scopes, header and variable names)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				out, err := c.ListScanCredentials(ctx, args[0])
				if err != nil {
					return err
				}
				return g.emit(out, func(w io.Writer) error { return printCredentials(w, out.GetCredentials()...) })
			})
		},
	}
}

func newCredentialsDeleteCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME LABEL",
		Short: "Remove a credential set",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				out, err := c.DeleteScanCredential(ctx, args[0], args[1])
				if err != nil {
					return err
				}
				return g.emit(out, func(w io.Writer) error { return printCredentials(w, out) })
			})
		},
	}
}

func printCredentials(w io.Writer, cs ...*mcpregv1.ScanCredential) error {
	t := newTable(w)
	t.row("LABEL", "SCOPES", "HEADERS", "ORIGIN", "ENVIRONMENT", "PACKAGE", "KEY", "SET BY")
	for _, c := range cs {
		t.row(cell(c.GetLabel()), cell(strings.Join(c.GetScopes(), " ")), cell(strings.Join(c.GetHeaderNames(), ", ")), cell(c.GetOrigin()),
			cell(strings.Join(c.GetEnvNames(), ", ")), cell(c.GetPackage()), cell(c.GetKeyId()), cell(c.GetCreatedBy()))
	}
	return t.flush()
}
