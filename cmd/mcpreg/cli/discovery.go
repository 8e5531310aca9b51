package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/hostclient"
)

func newDiscoveryCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "discovery", Short: "Read the signed allowlist hosts resolve"}
	cmd.AddCommand(newDiscoveryGetCmd(g))
	return cmd
}

type discoveryGetOptions struct {
	query  hostclient.Query
	verify bool
	trust  trustFlags
}

var errTrustWithoutVerify = errors.New("--key and --state apply with --verify")

func newDiscoveryGetCmd(g *globals) *cobra.Command {
	var o discoveryGetOptions
	cmd := &cobra.Command{
		Use:   "get [--verify [--key FILE]... [--state FILE]] [--name N [--version V]] [--namespace NS] [--owner O]",
		Short: "Fetch the discovery document (every page), optionally verified as a host would",
		Long: "Fetch every page of the discovery document the token may read (hosts, reviewers, admins) and\n" +
			"print its entries, or with --output json the merged document.\n\n" +
			"--verify checks what a host checks and fails on any problem: each page's signature (with the\n" +
			"--key PEM files; without --key, with the keys the registry publishes, which proves little and is\n" +
			"warned about), its validity period, and that its sequence is not lower than the last one\n" +
			"accepted from this registry (recorded in --state, default " + "<config dir>/" + stateFileName + ").\n" +
			"Without --verify nothing is checked: never decide what to run from that output.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !o.verify && (len(o.trust.keys) > 0 || o.trust.state != "") {
				return errTrustWithoutVerify
			}
			return g.discoveryGet(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.verify, "verify", false, "verify signature, expiry and sequence")
	o.trust.register(f)
	f.StringVar(&o.query.Name, "name", "", "only this server (NAMESPACE/NAME)")
	f.StringVar(&o.query.Version, "version", "", "this version of --name instead of the latest")
	f.StringVar(&o.query.Namespace, "namespace", "", "only servers in this namespace")
	f.StringVar(&o.query.Owner, "owner", "", "only servers of this owner")
	return cmd
}

func (g *globals) discoveryGet(ctx context.Context, o discoveryGetOptions) error {
	if o.query.Version != "" && o.query.Name == "" {
		return fmt.Errorf("--version %q needs --name", o.query.Version)
	}
	if err := checkStdin(o.trust.keys...); err != nil {
		return err
	}
	c, err := g.hostClient()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	var doc *discovery.Document
	if o.verify {
		if err := g.trust(ctx, c, o.trust); err != nil {
			return err
		}
		doc, err = c.Resolve(ctx, o.query)
		err = verificationFailure(err)
	} else {
		doc, err = c.ResolveUnverified(ctx, o.query)
	}
	if err != nil {
		return err
	}
	if g.output == "json" {
		return writeValueJSON(g.io.Out, doc)
	}
	return printDiscovery(g.io.Out, doc, o.verify)
}

// writeValueJSON writes v indented, HTML unescaped.
func writeValueJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := buf.WriteTo(w)
	return err
}

func printDiscovery(w io.Writer, doc *discovery.Document, verified bool) error {
	t := newTable(w)
	t.row("Sequence:", strconv.FormatInt(doc.Sequence, 10))
	t.row("Issued:", doc.IssuedAt.UTC().Format(time.RFC3339))
	t.row("Expires:", doc.ExpiresAt.UTC().Format(time.RFC3339))
	t.row("Environments:", environments(doc))
	t.row("Verified:", map[bool]string{true: "yes (signature, expiry, sequence)", false: "no (pass --verify)"}[verified])
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	t = newTable(w)
	t.row("NAME", "VERSION", "LATEST", "DIGEST/REMOTE", "TOOLS", "APPROVED BY")
	for _, e := range doc.Servers {
		t.row(e.Name, e.Version, map[bool]string{true: "yes", false: "no"}[e.Latest], artifacts(e),
			strconv.Itoa(len(e.Pins.Tools)), e.Approval.ApprovedBy)
	}
	return t.flush()
}

func environments(doc *discovery.Document) string {
	if doc.AllEnvironments {
		return "all"
	}
	return list(doc.Environments)
}

// artifacts lists how to obtain an entry: each package with its digest,
// each remote URL.
func artifacts(e discovery.Entry) string {
	var out []string
	for _, p := range e.Packages {
		s := p.RegistryType + ":" + p.Identifier
		if p.Version != "" {
			s += "@" + p.Version
		}
		if p.Digest != "" {
			s += " " + p.Digest
		}
		out = append(out, s)
	}
	for _, r := range e.Remotes {
		out = append(out, r.URL)
	}
	return strings.Join(out, ", ")
}
