package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server"
	"github.com/mcpreg/mcpreg/signing"
)

func newAuditCmd(g *globalOpts) *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "Inspect the hash-chained audit log"}
	var checkpoint string
	var keys []string
	verify := &cobra.Command{
		Use:   "verify [--checkpoint FILE --key PEMFILE...]",
		Short: "Walk the audit chain; exit non-zero naming the first broken link",
		Long: "Walk the audit chain in the database, recomputing every hash; exit non-zero naming the first broken link.\n\n" +
			"The chain alone cannot show a rewrite by someone who can write the database and recomputes every later\n" +
			"hash. --checkpoint FILE (a signed note from /.well-known/mcpreg/audit-checkpoint, kept somewhere else)\n" +
			"also requires the chain to reach the checkpoint's length with its hash there; the note must verify with\n" +
			"one of the --key files (the discovery public key, or a retired one, PEM; a private key file also works).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cp, err := readCheckpoint(checkpoint, keys)
			if err != nil {
				return err
			}
			return withApp(cmd, g, func(svcs *server.Services) error {
				svc := svcs.Registry
				rep, err := svc.Audit.VerifyAuditChainAgainst(cmd.Context(), cp)
				if err != nil {
					return err
				}
				return reportChain(cmd.OutOrStdout(), rep, cp)
			})
		},
	}
	verify.Flags().StringVar(&checkpoint, "checkpoint", "", "signed checkpoint note the log must not have been rewritten before")
	verify.Flags().StringArrayVar(&keys, "key", nil, "PEM key the checkpoint must be signed with (repeatable; with --checkpoint)")
	cmd.AddCommand(verify)
	return cmd
}

// readCheckpoint opens the --checkpoint note with the --key files; nil
// without --checkpoint.
func readCheckpoint(path string, keyFiles []string) (*auditchain.Checkpoint, error) {
	if path == "" {
		if len(keyFiles) > 0 {
			return nil, errors.New("--key applies with --checkpoint")
		}
		return nil, nil
	}
	if len(keyFiles) == 0 {
		return nil, errors.New("--checkpoint needs --key: the public key(s) the checkpoint must be signed with")
	}
	var keys []ed25519.PublicKey
	for _, f := range keyFiles {
		pub, err := readPublicKey(f)
		if err != nil {
			return nil, fmt.Errorf("--key %s: %w", f, err)
		}
		keys = append(keys, pub)
	}
	note, err := readLimited(path, auditchain.MaxNoteBytes)
	if err != nil {
		return nil, fmt.Errorf("--checkpoint: %w", err)
	}
	cp, _, err := auditchain.Open(note, keys)
	if err != nil {
		return nil, fmt.Errorf("--checkpoint %s: %w", path, err)
	}
	return cp, nil
}

// readPublicKey reads a PEM public key, or the public half of a private key.
func readPublicKey(path string) (ed25519.PublicKey, error) {
	data, err := readLimited(path, 64<<10)
	if err != nil {
		return nil, err
	}
	return signing.ParseAnyPublicKey(data)
}

func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, nil
}

func reportChain(w io.Writer, rep *registry.ChainReport, cp *auditchain.Checkpoint) error {
	if !rep.OK {
		return fmt.Errorf("audit chain broken at event %d: %s (%d events verified before it)",
			rep.FirstBrokenSeq, rep.Problem, rep.Events)
	}
	fmt.Fprintf(w, "audit chain ok: %d events, head %s\n", rep.Events, rep.HeadHash)
	if cp != nil {
		fmt.Fprintf(w, "checkpoint ok: %s, %d events at %s, head %s\n", cp.Origin, cp.Length, cp.Time.Format("2006-01-02T15:04:05Z07:00"), cp.Head)
	}
	return nil
}
