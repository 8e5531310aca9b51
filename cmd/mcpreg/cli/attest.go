package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/attest"
)

// customRoot names a --trusted-root file in receipts.
const customRoot = "custom"

func newAttestCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "attest",
		Short: "Verify sigstore attestations offline",
	}
	cmd.AddCommand(newAttestVerifyCmd(g))
	return cmd
}

// attestFlags are the options of attest verify.
type attestFlags struct {
	bundle, artifact, digest     string
	identity, identityRE, issuer string
	key, trustedRoot             string
	predicateTypes               []string
}

func newAttestVerifyCmd(g *globals) *cobra.Command {
	var f attestFlags
	cmd := &cobra.Command{
		Use:   "verify --bundle FILE (--artifact FILE | --digest ALG:HEX) (--identity SAN | --identity-regexp RE) --issuer ISSUER | --key PEMFILE",
		Short: "Verify a sigstore bundle against an identity or key, offline",
		Long: "Verify a sigstore bundle (v0.1 to v0.3, message signature or DSSE) about an artifact, given as a\n" +
			"file or a digest (sha256:HEX, sha384:HEX, sha512:HEX or an npm integrity sha512-BASE64), signed\n" +
			"by a keyless identity (certificate SAN and OIDC issuer) or a public key, exactly as the registry\n" +
			"does. The trusted root defaults to a built-in snapshot of the Sigstore public-good root.\n" +
			"Needs no service and no token. Prints the verification receipt; fails with the reason.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return g.attestVerify(f) },
	}
	f.register(cmd)
	return cmd
}

func (f *attestFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.bundle, "bundle", "", "sigstore bundle JSON file (- for standard input)")
	fl.StringVar(&f.artifact, "artifact", "", "the artifact file")
	fl.StringVar(&f.digest, "digest", "", "the artifact digest, ALG:HEX or sha512-BASE64")
	fl.StringVar(&f.identity, "identity", "", "certificate SAN the signer must have, exactly")
	fl.StringVar(&f.identityRE, "identity-regexp", "", "regexp the certificate SAN must match, anchored ^...$")
	fl.StringVar(&f.issuer, "issuer", "", "OIDC issuer of the signer's certificate")
	fl.StringVar(&f.key, "key", "", "PEM public key file the bundle must be signed with")
	fl.StringVar(&f.trustedRoot, "trusted-root", "", "trusted_root.json file (default: built-in public-good)")
	fl.StringArrayVar(&f.predicateTypes, "predicate-type", nil, "accepted in-toto predicate type of a DSSE bundle (repeatable)")
	_ = cmd.MarkFlagRequired("bundle")
	cmd.MarkFlagsMutuallyExclusive("artifact", "digest")
	cmd.MarkFlagsOneRequired("artifact", "digest")
	cmd.MarkFlagsMutuallyExclusive("identity", "identity-regexp", "key")
	cmd.MarkFlagsOneRequired("identity", "identity-regexp", "key")
	cmd.MarkFlagsMutuallyExclusive("key", "issuer")
}

// check covers what cobra's flag groups cannot.
func (f attestFlags) check() error {
	if f.key == "" && f.issuer == "" {
		return errors.New("--issuer is required with --identity and --identity-regexp")
	}
	return checkStdin(f.bundle, f.artifact, f.key, f.trustedRoot)
}

// attestRequest is what attest verify hands to attest.Verify.
type attestRequest struct {
	verifier *attest.Verifier
	bundle   []byte
	artifact attest.Artifact
	policy   attest.Policy
}

func (g *globals) attestVerify(f attestFlags) error {
	if err := f.check(); err != nil {
		return err
	}
	req, err := g.attestRequest(f)
	if err != nil {
		return err
	}
	r, err := req.verifier.Verify(req.bundle, req.artifact, req.policy)
	if err != nil {
		return fmt.Errorf("%s: %w", inputName(f.bundle), err)
	}
	if g.output == "json" {
		return writeReceiptJSON(g.io.Out, r)
	}
	return printReceipt(g.io.Out, r)
}

func (g *globals) attestRequest(f attestFlags) (req attestRequest, err error) {
	if req.verifier, err = g.attestVerifier(f.trustedRoot); err != nil {
		return req, err
	}
	if req.policy, err = g.attestPolicy(f); err != nil {
		return req, err
	}
	if req.artifact, err = g.attestArtifact(f); err != nil {
		return req, err
	}
	req.bundle, err = g.readInput("--bundle", f.bundle)
	return req, err
}

// attestVerifier trusts the --trusted-root file, or the built-in public-good root.
func (g *globals) attestVerifier(path string) (*attest.Verifier, error) {
	name, doc := attest.PublicGood, attest.PublicGoodTrustedRoot()
	if path != "" {
		data, err := g.readInput("--trusted-root", path)
		if err != nil {
			return nil, err
		}
		name, doc = customRoot, data
	}
	roots, err := attest.NewTrustedRoots(map[string][]byte{name: doc})
	if err != nil {
		return nil, fmt.Errorf("--trusted-root: %w", err)
	}
	return attest.NewVerifier(roots, attest.Config{DefaultRoot: name})
}

func (g *globals) attestPolicy(f attestFlags) (attest.Policy, error) {
	p := attest.Policy{Required: true, PredicateTypes: f.predicateTypes}
	if f.key != "" {
		pemText, err := g.readText("--key", f.key)
		if err != nil {
			return p, err
		}
		p.PublicKeys = []string{pemText}
		if err := p.Validate(); err != nil {
			return p, fmt.Errorf("--key %s: %w", f.key, err)
		}
		return p, nil
	}
	p.Identities = []attest.Identity{{Issuer: f.issuer, SAN: f.identity, SANRegexp: f.identityRE}}
	return p, p.Validate()
}

func (g *globals) attestArtifact(f attestFlags) (attest.Artifact, error) {
	if f.digest != "" {
		d, err := attest.ParseDigest(f.digest)
		if err != nil {
			return attest.Artifact{}, fmt.Errorf("--digest: %w", err)
		}
		return attest.ArtifactDigest(d), nil
	}
	data, err := g.readInput("--artifact", f.artifact)
	return attest.ArtifactBytes(data), err
}

// writeReceiptJSON prints the receipt as the registry stores it, indented.
func writeReceiptJSON(w io.Writer, r *attest.Receipt) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := buf.WriteTo(w)
	return err
}

func printReceipt(w io.Writer, r *attest.Receipt) error {
	fmt.Fprintf(w, "Verified %s bundle (%s)\n", r.Content, r.BundleMediaType)
	t := newTable(w)
	printSigner(t, r)
	t.row("  Artifact:", r.ArtifactDigest)
	if r.Statement != nil {
		t.row("  Predicate type:", r.Statement.PredicateType)
	}
	for _, e := range r.TlogEntries {
		t.row("  Log index:", strconv.FormatInt(e.LogIndex, 10)+" ("+e.Kind+", log "+shortID(e.LogID)+")")
	}
	for _, ts := range r.Timestamps {
		t.row("  Observed ("+ts.Source+"):", ts.Time.Format(time.RFC3339)+" "+ts.URI)
	}
	t.row("  Trusted root:", r.Policy.TrustedRoot+" "+r.Policy.TrustedRootDigest)
	t.row("  Verified at:", r.VerifiedAt.Format(time.RFC3339))
	return t.flush()
}

func printSigner(t *table, r *attest.Receipt) {
	if r.KeyFingerprint != "" {
		t.row("  Key:", r.KeyFingerprint)
	}
	if id := r.Identity; id != nil {
		t.row("  Identity:", id.SAN)
		t.row("  Issuer:", id.Issuer)
		if id.SourceRepositoryURI != "" {
			t.row("  Source:", id.SourceRepositoryURI+" "+id.SourceRepositoryRef)
		}
	}
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
