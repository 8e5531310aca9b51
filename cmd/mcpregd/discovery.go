package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/signing"
)

func newDiscoveryCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "discovery", Short: "Signed discovery documents: signing keys"}
	cmd.AddCommand(newDiscoveryKeygenCmd(), newDiscoveryPubkeyCmd())
	return cmd
}

// newDiscoveryPubkeyCmd prints the public key hosts verify discovery
// documents with, read from the signing key serve uses.
func newDiscoveryPubkeyCmd() *cobra.Command {
	var keyFile, out string
	cmd := &cobra.Command{
		Use:   "pubkey [--discovery-key FILE] [--out FILE]",
		Short: "Print the public key of the discovery signing key (PEM): what hosts pass to mcpreg discovery get --verify --key",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			k, err := signing.LoadKeyFile(keyFile)
			if err != nil {
				return fmt.Errorf("%w (mcpregd serve creates it on first start; --discovery-key names another)", err)
			}
			pub, err := signing.MarshalPublicKey(k.Public())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "discovery key %s (%s)\n", k.ID, keyFile)
			if out == "" {
				_, err = cmd.OutOrStdout().Write(pub)
				return err
			}
			if err := os.WriteFile(out, pub, 0o644); err != nil { // a public key, for hosts to read
				return fmt.Errorf("--out: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote the public key to %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&keyFile, "discovery-key", config.DefaultConfig().DiscoveryKey,
		"the discovery signing key serve uses (env MCPREG_DISCOVERY_KEY)")
	cmd.Flags().StringVar(&out, "out", "", "write the public key PEM to FILE instead of standard output")
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
