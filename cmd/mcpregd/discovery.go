package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/signing"
)

func newDiscoveryCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "discovery", Short: "Signed discovery documents: signing keys"}
	cmd.AddCommand(newDiscoveryKeygenCmd())
	return cmd
}

func newDiscoveryKeygenCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "keygen --out FILE",
		Short: "Make an Ed25519 discovery signing key: the private key goes to FILE (PKCS#8 PEM, mode 0600, never overwritten); the key id and public key PEM are printed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			k, err := signing.GenerateKey()
			if err != nil {
				return err
			}
			pub, err := signing.MarshalPublicKey(k.Public())
			if err != nil {
				return err
			}
			if err := signing.WriteKeyFile(out, k); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "key id: %s\n%s", k.ID, pub)
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote private key to %s (mode 0600); keep it secret\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "file to write the private key to (must not exist)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
