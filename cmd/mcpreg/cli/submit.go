package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// submitFiles are the submit command's inputs.
type submitFiles struct {
	serverJSON, tools, initialize, contract, idempotencyKey string
	live                                                    bool
	// attestations are PACKAGE=BUNDLEFILE pairs.
	attestations []string
}

var (
	errToolsMissing = errors.New(`required flag(s) "tools" not set: pass --tools FILE, or --live to have the registry read the tools from the server`)
	errLiveWithFile = errors.New("--live reads the tools and the initialize result from the server: do not pass --tools or --initialize with it")
)

// check covers the flag rules cobra cannot express.
func (in submitFiles) check() error {
	switch {
	case in.live && (in.tools != "" || in.initialize != ""):
		return errLiveWithFile
	case !in.live && in.tools == "":
		return errToolsMissing
	}
	return checkStdin(append([]string{in.serverJSON, in.tools, in.initialize, in.contract}, bundlePaths(in.attestations)...)...)
}

func newSubmitCmd(g *globals) *cobra.Command {
	var in submitFiles
	cmd := &cobra.Command{
		Use:   "submit --server-json FILE (--tools FILE [--initialize FILE] | --live) [--contract FILE] [--attestation PACKAGE=BUNDLEFILE]... [--idempotency-key KEY]",
		Short: "Submit a server version for review; prints the version with its pins",
		Long: "Submit a server version for review. FILE may be - for standard input (for one of them).\n" +
			"The tools file is a tools/list result ({\"tools\":[...]}) or a bare array of tools,\n" +
			"optionally with a top-level \"instructions\" member. The service reads every document strictly.\n\n" +
			"With --live the registry reads the tools and the initialize result from the server that\n" +
			"server.json names (its streamable-http remote, else its package through an admin-approved\n" +
			"launch template); --tools and --initialize must then be left out.\n\n" +
			"--attestation PACKAGE=BUNDLEFILE (repeatable) carries a sigstore bundle about a server.json\n" +
			"packages[] entry, named by its 0-based index or its identifier; the registry verifies it\n" +
			"against the server's attestation policy.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req, err := g.submitRequest(in)
			if err != nil {
				return err
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				v, err := c.SubmitVersion(ctx, req)
				if err != nil {
					return err
				}
				return g.emitVersion(v)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.serverJSON, "server-json", "", "server.json file (schema 2025-12-11)")
	f.StringVar(&in.tools, "tools", "", "tools file: a tools/list result or an array of tools (required without --live)")
	f.BoolVar(&in.live, "live", false, "have the registry read the tools from the server named by server.json")
	f.StringVar(&in.initialize, "initialize", "", "optional initialize result (protocolVersion, serverInfo, instructions)")
	f.StringVar(&in.contract, "contract", "", "capability contract, YAML or JSON (default: server.json _meta io.mcpreg/contract, else the default contract)")
	f.StringArrayVar(&in.attestations, "attestation", nil, "PACKAGE=BUNDLEFILE: a sigstore bundle about a package entry, by index or identifier (repeatable)")
	f.StringVar(&in.idempotencyKey, "idempotency-key", "", "makes retries safe: the same key and body return the first result")
	_ = cmd.MarkFlagRequired("server-json")
	return cmd
}

// submitRequest reads the files; it fails before any network call.
func (g *globals) submitRequest(in submitFiles) (*mcpregv1.SubmitVersionRequest, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	req := &mcpregv1.SubmitVersionRequest{IdempotencyKey: in.idempotencyKey, Live: in.live}
	var err error
	if req.ServerJson, err = g.readText("--server-json", in.serverJSON); err != nil {
		return nil, err
	}
	if in.tools != "" {
		if req.Tools, err = g.readText("--tools", in.tools); err != nil {
			return nil, err
		}
	}
	if in.initialize != "" {
		if req.InitializeResult, err = g.readText("--initialize", in.initialize); err != nil {
			return nil, err
		}
	}
	if in.contract != "" {
		if req.Contract, err = g.readText("--contract", in.contract); err != nil {
			return nil, err
		}
	}
	req.Attestations, err = g.submitAttestations(in.attestations)
	return req, err
}
