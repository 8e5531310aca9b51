package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func newPolicyCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "Read or set what a server's versions must satisfy"}
	get := &cobra.Command{
		Use:   "get NAME",
		Short: "Show a server's policy",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				p, err := c.GetServerPolicy(ctx, args[0])
				if err != nil {
					return err
				}
				return g.emitPolicy(p)
			})
		},
	}
	cmd.AddCommand(get, newPolicySetCmd(g), newPolicyConfirmCmd(g))
	return cmd
}

func newPolicyConfirmCmd(g *globals) *cobra.Command {
	var digest, reason string
	cmd := &cobra.Command{
		Use:   "confirm NAME --digest DIGEST --reason TEXT",
		Short: "Put a server's pending policy change in force (another reviewer than its proposer; audited)",
		Long: "A policy change that does not provably narrow the policy (a signer added or edited, a\n" +
			"restriction removed, requireContract turned off) is pending until a reviewer or admin other\n" +
			"than its proposer confirms it. --digest names the pending change as `mcpreg policy get NAME`\n" +
			"shows it, so a newer proposal is never confirmed unseen.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(reason) == "" {
				return errors.New("--reason is required: it goes into the audit log")
			}
			if strings.TrimSpace(digest) == "" {
				return fmt.Errorf("--digest is required: the pending change's digest, as `mcpreg policy get %s` shows it", args[0])
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				p, err := c.ConfirmServerPolicy(ctx, args[0], strings.TrimSpace(digest), reason)
				if err != nil {
					return err
				}
				return g.emitPolicy(p)
			})
		},
	}
	cmd.Flags().StringVar(&digest, "digest", "", "the pending change's digest (required; see policy get)")
	cmd.Flags().StringVar(&reason, "reason", "", "why (required; recorded in the audit log)")
	return cmd
}

// policyFlags are the options of policy set; a flag not given keeps the
// server's current value.
type policyFlags struct {
	requireContract   bool
	attestationPolicy string
	reason            string
}

var errNothingToSet = errors.New("nothing to change: pass --require-contract and/or --attestation-policy")

func newPolicySetCmd(g *globals) *cobra.Command {
	var f policyFlags
	cmd := &cobra.Command{
		Use:   "set NAME [--require-contract=true|false] [--attestation-policy FILE|none] --reason TEXT",
		Short: "Change a server's policy (admin or reviewer; audited)",
		Long: "Change a server's policy. The current policy is read first and only what the flags name\n" +
			"changes; the rest is kept. --attestation-policy reads a JSON attestation policy in the API's\n" +
			"shape ({\"required\":true,\"trustedRoot\":\"...\",\"identities\":[{\"issuer\":\"...\",\"sanRegexp\":\"^...$\"}],\n" +
			"\"sourceRepository\":\"...\",\"publicKeys\":[...],\"predicateTypes\":[...]}); none removes it.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			edit, err := g.policyEdit(cmd, f)
			if err != nil {
				return err
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				return g.setPolicy(ctx, c, args[0], edit, f.reason)
			})
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.requireContract, "require-contract", false, "refuse submissions without a capability contract")
	fl.StringVar(&f.attestationPolicy, "attestation-policy", "", "attestation policy JSON file (- for standard input), or none to remove it")
	fl.StringVar(&f.reason, "reason", "", "why (required; recorded in the audit log)")
	return cmd
}

// policyEdit is a change to apply to the current policy.
type policyEdit func(p *mcpregv1.ServerPolicy)

// policyEdit checks the flags and reads the files before any network call.
func (g *globals) policyEdit(cmd *cobra.Command, f policyFlags) (policyEdit, error) {
	if strings.TrimSpace(f.reason) == "" {
		return nil, errors.New("--reason is required: it goes into the audit log")
	}
	setContract, setAttest := cmd.Flags().Changed("require-contract"), cmd.Flags().Changed("attestation-policy")
	if !setContract && !setAttest {
		return nil, errNothingToSet
	}
	var att *mcpregv1.AttestationPolicy
	if setAttest {
		var err error
		if att, err = g.readAttestationPolicy(f.attestationPolicy); err != nil {
			return nil, err
		}
	}
	return func(p *mcpregv1.ServerPolicy) {
		if setContract {
			p.RequireContract = f.requireContract
		}
		if setAttest {
			p.Attestation = att
		}
	}, nil
}

// setPolicy reads the current policy, applies edit and replaces it.
func (g *globals) setPolicy(ctx context.Context, c *client.Client, name string, edit policyEdit, reason string) error {
	cur, err := c.GetServerPolicy(ctx, name)
	if err != nil {
		return fmt.Errorf("reading the current policy: %w", err)
	}
	next := &mcpregv1.ServerPolicy{RequireContract: cur.GetRequireContract(), Attestation: cur.GetAttestation()}
	edit(next)
	p, err := c.UpdateServerPolicy(ctx, name, next, reason)
	if err != nil {
		return err
	}
	return g.emitPolicy(p)
}

func (g *globals) emitPolicy(p *mcpregv1.ServerPolicy) error {
	return g.emit(p, func(w io.Writer) error { return printPolicy(w, p) })
}

func printPolicy(w io.Writer, p *mcpregv1.ServerPolicy) error {
	t := newTable(w)
	t.row("Server:", p.GetName())
	t.row("Require contract:", strconv.FormatBool(p.GetRequireContract()))
	if p.GetUpdatedAt() != nil {
		t.row("Updated:", timestamp(p.GetUpdatedAt())+" by "+cell(p.GetUpdatedBy()))
	}
	printAttestPolicy(t, p.GetAttestation(), p.GetAttestationDigest())
	if pp := p.GetPending(); pp != nil {
		t.row("Pending change:", pp.GetDigest()+" proposed "+timestamp(pp.GetProposedAt())+" by "+cell(pp.GetProposedBy()))
		t.row("  Reason:", cell(pp.GetReason()))
		for _, w := range pp.GetWeakenings() {
			t.row("  Weakens:", w)
		}
		t.row("  Require contract:", strconv.FormatBool(pp.GetRequireContract()))
		printAttestPolicy(t, pp.GetAttestation(), pp.GetAttestationDigest())
		t.row("  Confirm:", "another reviewer: mcpreg policy confirm "+p.GetName()+" --digest "+pp.GetDigest()+" --reason TEXT")
	}
	return t.flush()
}

func printAttestPolicy(t *table, a *mcpregv1.AttestationPolicy, digest string) {
	if a == nil {
		t.row("Attestation:", "none")
		return
	}
	t.row("Attestation:", "required="+strconv.FormatBool(a.GetRequired())+" "+cell(digest))
	t.row("  Trusted root:", orDefault(a.GetTrustedRoot(), "public-good (default)"))
	for i, id := range a.GetIdentities() {
		t.row("  Identity "+strconv.Itoa(i)+":", identityText(id))
	}
	if a.GetSourceRepository() != "" {
		t.row("  Source:", a.GetSourceRepository()+" "+a.GetSourceRepositoryRef())
	}
	t.row("  Public keys:", strconv.Itoa(len(a.GetPublicKeys())))
	t.row("  Predicate types:", list(a.GetPredicateTypes()))
	if a.GetAllowUnfetchedDigests() {
		t.row("  Unfetched digests:", "count (allowUnfetchedDigests: the owner's word is accepted)")
	}
}

// identityText is "issuer ISSUER san SAN", each marked ~ when a regexp.
func identityText(id *mcpregv1.AttestationIdentity) string {
	issuer, san := "issuer "+id.GetIssuer(), "san "+id.GetSan()
	if id.GetIssuerRegexp() != "" {
		issuer = "issuer ~ " + id.GetIssuerRegexp()
	}
	if id.GetSanRegexp() != "" {
		san = "san ~ " + id.GetSanRegexp()
	}
	return issuer + ", " + san
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
