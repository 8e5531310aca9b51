package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/internal/store"
)

func newMigrateCmd(g *globalOpts) *cobra.Command {
	cmd := &cobra.Command{Use: "migrate", Short: "Database schema migrations"}
	up := &cobra.Command{
		Use:   "up",
		Short: "Apply every pending migration",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := store.Open(cmd.Context(), g.db, g.pool()...)
			if err != nil {
				return err
			}
			defer func() { _ = st.Close() }()
			if err := st.MigrateUp(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "migrations applied")
			return nil
		},
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "List migrations and whether each is applied",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := store.Open(cmd.Context(), g.db, g.pool()...)
			if err != nil {
				return err
			}
			defer func() { _ = st.Close() }()
			infos, err := st.MigrationStatus(cmd.Context())
			if err != nil {
				return err
			}
			for _, m := range infos {
				fmt.Fprintf(cmd.OutOrStdout(), "%+v\n", m)
			}
			return nil
		},
	}
	cmd.AddCommand(up, status)
	return cmd
}
