package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server"
	"github.com/mcpreg/mcpreg/internal/wiring"
)

func addTrustedRootFlag(f *pflag.FlagSet, roots *[]string) {
	f.StringArrayVar(roots, "trusted-root", nil, "sigstore trust domain NAME=PATH to a trusted_root.json (repeatable; the built-in public-good root is always loaded as public-good unless replaced; env MCPREG_TRUSTED_ROOT)")
}

func newAttestCmd(g *globalOpts) *cobra.Command {
	cmd := &cobra.Command{Use: "attest", Short: "Sigstore attestations stored in the registry (works on the database directly)"}
	cmd.AddCommand(newReverifyCmd(g))
	return cmd
}

func newReverifyCmd(g *globalOpts) *cobra.Command {
	var roots []string
	cmd := &cobra.Command{
		Use:   "reverify [--trusted-root NAME=PATH]...",
		Short: "Re-verify every stored bundle against the current trusted roots and policies; quarantine approved versions that no longer satisfy a required policy",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			verifier, err := wiring.VerifierFrom(config.Config{TrustedRoots: roots})
			if err != nil {
				return err
			}
			return withApp(cmd, g, func(svcs *server.Services) error {
				svc := svcs.Registry
				rep, err := svc.Attestations.Reverify(cmd.Context(), localCaller())
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "re-verified %d attestations: %d passed, %d failed; quarantined %d version(s)%s\n",
					rep.Checked, rep.Passed, rep.Failed, len(rep.Quarantined), listSuffix(rep.Quarantined))
				return nil
			}, registry.WithAttestation(verifier))
		},
	}
	addTrustedRootFlag(cmd.Flags(), &roots)
	return cmd
}

func listSuffix(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return ": " + strings.Join(items, ", ")
}
