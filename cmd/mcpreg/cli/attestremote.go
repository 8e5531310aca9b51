package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// withServiceAttest adds the attest subcommands that call the service to
// the offline attest group.
func withServiceAttest(g *globals, cmd *cobra.Command) *cobra.Command {
	cmd.Short = "Verify sigstore attestations offline, attach them to versions, re-verify them"
	cmd.AddCommand(newAttestAddCmd(g), newAttestConfirmCmd(g), newAttestReverifyCmd(g))
	return cmd
}

// attestAddFlags are the options of attest add.
type attestAddFlags struct {
	bundle, identifier, digest, artifact string
	index                                int32
}

func newAttestAddCmd(g *globals) *cobra.Command {
	var f attestAddFlags
	cmd := &cobra.Command{
		Use:   "add NAME VERSION --bundle FILE (--package INDEX | --identifier ID) [--digest ALG:HEX | --artifact FILE]",
		Short: "Attach a sigstore bundle to a submitted version's package (owner or admin; audited)",
		Long: "Attach a sigstore bundle about one server.json packages[] entry, named by its 0-based index or\n" +
			"its identifier, to a submitted version. The registry verifies it against the server's attestation\n" +
			"policy; a bundle that does not verify is stored with the reason. --digest (ALG:HEX or an npm\n" +
			"integrity sha512-BASE64) is used only when server.json gives no digest for the package.\n" +
			"--artifact uploads the artifact itself instead (size-capped; only its digest is kept, and it\n" +
			"must match the digest server.json gives).\n" +
			"Prints the version's attestations.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, err := g.attestationInput(f, cmd.Flags().Changed("package"))
			if err != nil {
				return err
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				v, err := c.AddAttestation(ctx, args[0], args[1], in)
				if err != nil {
					return err
				}
				return g.emit(v, func(w io.Writer) error { return printAttestations(w, v.GetAttestations()) })
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.bundle, "bundle", "", "sigstore bundle JSON file (- for standard input)")
	fl.Int32Var(&f.index, "package", 0, "0-based index of the attested entry in server.json packages[]")
	fl.StringVar(&f.identifier, "identifier", "", "identifier of the attested server.json package entry")
	fl.StringVar(&f.digest, "digest", "", "the artifact digest, when server.json gives none")
	fl.StringVar(&f.artifact, "artifact", "", "the artifact file, uploaded so the registry computes its digest")
	_ = cmd.MarkFlagRequired("bundle")
	cmd.MarkFlagsMutuallyExclusive("digest", "artifact")
	cmd.MarkFlagsMutuallyExclusive("package", "identifier")
	cmd.MarkFlagsOneRequired("package", "identifier")
	return cmd
}

// attestationInput reads the bundle before any network call.
func (g *globals) attestationInput(f attestAddFlags, byIndex bool) (*mcpregv1.AttestationInput, error) {
	if byIndex && f.index < 0 {
		return nil, fmt.Errorf("--package %d: want a 0-based index", f.index)
	}
	if err := checkStdin(f.bundle, f.artifact); err != nil {
		return nil, err
	}
	bundle, err := g.readText("--bundle", f.bundle)
	if err != nil {
		return nil, err
	}
	var artifact []byte
	if f.artifact != "" {
		if artifact, err = g.readInput("--artifact", f.artifact); err != nil {
			return nil, err
		}
	}
	return &mcpregv1.AttestationInput{PackageIndex: f.index, PackageIdentifier: f.identifier,
		Bundle: bundle, ArtifactDigest: f.digest, Artifact: artifact}, nil
}

func newAttestConfirmCmd(g *globals) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "confirm NAME VERSION ID --reason TEXT",
		Short: "Confirm a pending attestation of an approved version (reviewer or admin other than who added it; audited)",
		Long: "An attestation attached to an already approved version is pending: discovery, the scanner and\n" +
			"approval checks ignore it until a reviewer or admin other than the principal who added it\n" +
			"confirms it. ID is the attestation's id (shown as [pending, id N]). The version's state does not change.",
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[2], 10, 64)
			if err != nil || id <= 0 {
				return fmt.Errorf("attestation id %q: want a positive number", args[2])
			}
			if strings.TrimSpace(reason) == "" {
				return fmt.Errorf("--reason is required: say why you confirm attestation %d of %s %s (it goes into the audit log)", id, args[0], args[1])
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				v, err := c.ConfirmAttestation(ctx, args[0], args[1], id, strings.TrimSpace(reason))
				if err != nil {
					return err
				}
				return g.emit(v, func(w io.Writer) error { return printAttestations(w, v.GetAttestations()) })
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (recorded in the audit log)")
	return cmd
}

func newAttestReverifyCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "reverify",
		Short: "Re-verify every stored bundle against the current roots and policies (admin)",
		Long: "Re-verify every stored bundle against the service's current trusted roots and policies, e.g.\n" +
			"after a root rotation. Approved versions whose attestations no longer satisfy a required policy\n" +
			"are quarantined; they are listed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				r, err := c.ReverifyAttestations(ctx)
				if err != nil {
					return err
				}
				return g.emit(r, func(w io.Writer) error { return printReverify(w, r) })
			})
		},
	}
}

func printReverify(w io.Writer, r *mcpregv1.ReverifyAttestationsResponse) error {
	t := newTable(w)
	t.row("Checked:", strconv.Itoa(int(r.GetChecked())))
	t.row("Passed:", strconv.Itoa(int(r.GetPassed())))
	t.row("Failed:", strconv.Itoa(int(r.GetFailed())))
	t.row("Quarantined:", strconv.Itoa(len(r.GetQuarantined())))
	for _, v := range r.GetQuarantined() {
		t.row("", v)
	}
	return t.flush()
}
