package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server"
)

func newUserCmd(g *globalOpts) *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "Web UI users: reviewers and admins who sign in with a password (works on the database directly)"}
	cmd.AddCommand(newUserAddCmd(g))
	return cmd
}

func newUserAddCmd(g *globalOpts) *cobra.Command {
	var role string
	cmd := &cobra.Command{
		Use:   "add NAME --role reviewer|admin",
		Short: "Create principal NAME (or give an existing one) a web password, read from standard input",
		Long: "Create principal NAME with the role, or give an existing principal of that role a password for\n" +
			"the web UI. The password is the first line of standard input (at least 12 characters); it is\n" +
			"stored as an argon2id hash and never echoed. Setting a password ends the principal's web\n" +
			"sessions. Four-eyes compares principals, so a reviewer's CLI tokens and web sessions are one\n" +
			"person.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			password, err := readPassword(cmd.InOrStdin())
			if err != nil {
				return err
			}
			return withApp(cmd, g, func(svcs *server.Services) error {
				if err := svcs.Identity.SetPassword(cmd.Context(), localCaller(), args[0], registry.Role(role), password); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "principal %s (%s) can sign in to the web UI\n", args[0], role)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&role, "role", "", "reviewer or admin")
	_ = cmd.MarkFlagRequired("role")
	return cmd
}

// readPassword reads the first line of r.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the password from standard input: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("no password on standard input (echo the password | mcpregd user add NAME --role reviewer)")
	}
	return line, nil
}
