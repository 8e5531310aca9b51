package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/hostclient"
)

// Export formats.
const (
	exportManagedSettings = "managed-settings"
	exportMCPServers      = "mcp-servers"
)

type hostExportOptions struct {
	format string
	out    string
	trust  trustFlags
}

func newHostExportCmd(g *globals) *cobra.Command {
	var o hostExportOptions
	cmd := &cobra.Command{
		Use:   "export --format managed-settings|mcp-servers [--key FILE]... [--state FILE] [--out FILE]",
		Short: "Write the approved set, as this host token sees it, as an allowlist hosts enforce",
		Long: "Reads the signed discovery document (verified: signature, expiry, sequence, with --key) and\n" +
			"writes what the host token may use in a form hosts enforce:\n\n" +
			"  managed-settings  {\"allowedMcpServers\": [{\"serverName\"}, {\"serverCommand\": [...]},\n" +
			"                    {\"serverUrl\"}], \"deniedMcpServers\": [...]}: every approved version's\n" +
			"                    package command (npx -y ID@VERSION, uvx ID==VERSION, docker run\n" +
			"                    -i --rm ID:VERSION) and remote URL; the quarantined and revoked\n" +
			"                    versions the token may know of (the official /v0.1 API with\n" +
			"                    include_deleted) are denied, and so is a server with no approved\n" +
			"                    version left.\n" +
			"  mcp-servers       {\"mcpServers\": {KEY: {...}}}: each approved server (its latest version)\n" +
			"                    wrapped in mcpreg gate --name NAME, KEY the name with '/' as '-'\n" +
			"                    (suffixed -2, -3... on collision). The entries carry MCPREG_SERVER;\n" +
			"                    MCPREG_TOKEN is never written: give it in the host's environment.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.format != exportManagedSettings && o.format != exportMCPServers {
				return fmt.Errorf("--format %q: want %s or %s", o.format, exportManagedSettings, exportMCPServers)
			}
			return g.hostExport(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "", "managed-settings or mcp-servers (required)")
	f.StringVar(&o.out, "out", "-", "file to write (mode 0644), - for standard output")
	o.trust.register(f)
	_ = cmd.MarkFlagRequired("format")
	return cmd
}

func (g *globals) hostExport(ctx context.Context, o hostExportOptions) error {
	if err := checkStdin(o.trust.keys...); err != nil {
		return err
	}
	c, err := g.hostClient()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	if err := g.trust(ctx, c, o.trust); err != nil {
		return err
	}
	doc, err := c.Resolve(ctx, hostclient.Query{})
	if err != nil {
		return verificationFailure(err)
	}
	var out any
	if o.format == exportManagedSettings {
		deleted, err := g.deletedVersions(ctx)
		if err != nil {
			return err
		}
		out = managedSettings(doc, deleted)
	} else {
		key := ""
		if len(o.trust.keys) > 0 {
			key = o.trust.keys[0]
		}
		out = mcpServers(doc, g.server, key)
	}
	if o.out == "-" || o.out == "" {
		return writeValueJSON(g.io.Out, out)
	}
	f, err := os.OpenFile(o.out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := writeValueJSON(f, out); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// mcpServerRule is one entry of allowedMcpServers or deniedMcpServers:
// exactly one member set.
type mcpServerRule struct {
	ServerName    string   `json:"serverName,omitempty"`
	ServerCommand []string `json:"serverCommand,omitempty"`
	ServerURL     string   `json:"serverUrl,omitempty"`
}

type managedSettingsFile struct {
	Allowed []mcpServerRule `json:"allowedMcpServers"`
	Denied  []mcpServerRule `json:"deniedMcpServers"`
}

// packageCommand is how a host starts a package of a registry type, pinned
// to its version; nil for a type hosts do not start by command.
func packageCommand(p discovery.Package) []string {
	switch p.RegistryType {
	case "npm":
		return []string{"npx", "-y", p.Identifier + "@" + p.Version}
	case "pypi":
		return []string{"uvx", p.Identifier + "==" + p.Version}
	case "oci":
		ref := p.Identifier
		if p.Version != "" && !strings.Contains(ref, "@") {
			ref += ":" + p.Version
		}
		return []string{"docker", "run", "-i", "--rm", ref}
	}
	return nil
}

// rulesOf are the command and URL rules of one version.
func rulesOf(packages []discovery.Package, remotes []discovery.Remote) []mcpServerRule {
	var out []mcpServerRule
	for _, p := range packages {
		if cmd := packageCommand(p); cmd != nil {
			out = append(out, mcpServerRule{ServerCommand: cmd})
		}
	}
	for _, r := range remotes {
		out = append(out, mcpServerRule{ServerURL: r.URL})
	}
	return out
}

func managedSettings(doc *discovery.Document, deleted []deletedVersion) managedSettingsFile {
	out := managedSettingsFile{Allowed: []mcpServerRule{}, Denied: []mcpServerRule{}}
	approved := map[string]bool{}
	seen := map[string]bool{}
	add := func(list *[]mcpServerRule, r mcpServerRule) {
		k := fmt.Sprintf("%q", r)
		if !seen[k] {
			seen[k] = true
			*list = append(*list, r)
		}
	}
	for _, e := range doc.Servers {
		if !approved[e.Name] {
			approved[e.Name] = true
			add(&out.Allowed, mcpServerRule{ServerName: e.Name})
		}
		for _, r := range rulesOf(e.Packages, e.Remotes) {
			add(&out.Allowed, r)
		}
	}
	for _, d := range deleted {
		if !approved[d.name] {
			add(&out.Denied, mcpServerRule{ServerName: d.name})
		}
		for _, r := range rulesOf(d.packages, d.remotes) {
			if !seen[fmt.Sprintf("%q", r)] { // never deny what an approved version uses
				add(&out.Denied, r)
			}
		}
	}
	return out
}

type mcpServerEntry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

type mcpServersFile struct {
	MCPServers map[string]mcpServerEntry `json:"mcpServers"`
}

// mcpServers wraps each approved server's latest version in the gate.
func mcpServers(doc *discovery.Document, server, key string) mcpServersFile {
	out := mcpServersFile{MCPServers: map[string]mcpServerEntry{}}
	used := map[string]bool{}
	names := map[string]bool{}
	var latest []discovery.Entry
	for _, e := range doc.Servers {
		if e.Latest && !names[e.Name] {
			names[e.Name] = true
			latest = append(latest, e)
		}
	}
	slices.SortFunc(latest, func(a, b discovery.Entry) int { return strings.Compare(a.Name, b.Name) })
	for _, e := range latest {
		args := []string{"gate", "--name", e.Name}
		if key != "" {
			args = append(args, "--key", key)
		}
		switch {
		case len(e.Packages) > 0 && packageCommand(e.Packages[0]) != nil:
			args = append(append(args, "--"), packageCommand(e.Packages[0])...)
		case len(e.Remotes) > 0:
			args = append(args, "--url", e.Remotes[0].URL)
		default:
			continue // nothing a host can start
		}
		base := strings.ReplaceAll(e.Name, "/", "-")
		k := base
		for n := 2; used[k]; n++ {
			k = base + "-" + strconv.Itoa(n)
		}
		used[k] = true
		out.MCPServers[k] = mcpServerEntry{Command: "mcpreg", Args: args, Env: map[string]string{"MCPREG_SERVER": server}}
	}
	return out
}

// deletedVersion is a version /v0.1 lists as deleted.
type deletedVersion struct {
	name     string
	packages []discovery.Package
	remotes  []discovery.Remote
}

// maxExportPages bounds the /v0.1 walk (100 per page).
const maxExportPages = 10000

// deletedVersions walks /v0.1/servers?include_deleted=true with the
// token and keeps the versions whose official status is deleted.
func (g *globals) deletedVersions(ctx context.Context) ([]deletedVersion, error) {
	hc := &http.Client{Timeout: g.timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var out []deletedVersion
	cursor := ""
	for range maxExportPages {
		q := url.Values{"limit": {"100"}, "include_deleted": {"true"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(g.server, "/")+"/v0.1/servers?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+g.token)
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		_ = resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET /v0.1/servers: %d %s", resp.StatusCode, strings.TrimSpace(string(body)))
		}
		var page struct {
			Servers []struct {
				Server struct {
					Name     string `json:"name"`
					Packages []struct {
						RegistryType string `json:"registryType"`
						Identifier   string `json:"identifier"`
						Version      string `json:"version"`
					} `json:"packages"`
					Remotes []discovery.Remote `json:"remotes"`
				} `json:"server"`
				Meta map[string]struct {
					Status string `json:"status"`
				} `json:"_meta"`
			} `json:"servers"`
			Metadata struct {
				NextCursor string `json:"nextCursor"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, fmt.Errorf("GET /v0.1/servers: %w", err)
		}
		for _, s := range page.Servers {
			if s.Meta["io.modelcontextprotocol.registry/official"].Status != "deleted" {
				continue
			}
			d := deletedVersion{name: s.Server.Name, remotes: s.Server.Remotes}
			for _, p := range s.Server.Packages {
				d.packages = append(d.packages, discovery.Package{RegistryType: p.RegistryType, Identifier: p.Identifier, Version: p.Version})
			}
			out = append(out, d)
		}
		if page.Metadata.NextCursor == "" || len(page.Servers) == 0 {
			return out, nil
		}
		cursor = page.Metadata.NextCursor
	}
	return nil, errors.New("GET /v0.1/servers: more pages than an export reads")
}
