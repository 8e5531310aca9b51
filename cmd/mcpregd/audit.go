package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/registry"
)

func newAuditCmd(g *globalOpts) *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "Inspect the hash-chained audit log"}
	verify := &cobra.Command{
		Use:   "verify",
		Short: "Walk the audit chain; exit non-zero naming the first broken link",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd, g, func(svc *registry.Service) error {
				rep, err := svc.VerifyAuditChain(cmd.Context())
				if err != nil {
					return err
				}
				if !rep.OK {
					return fmt.Errorf("audit chain broken at event %d: %s (%d events verified before it)",
						rep.FirstBrokenSeq, rep.Problem, rep.Events)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "audit chain ok: %d events, head %s\n", rep.Events, rep.HeadHash)
				return nil
			})
		},
	}
	cmd.AddCommand(verify)
	return cmd
}
