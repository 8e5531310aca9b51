package pkgref

import (
	"errors"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ok := []struct{ typ, id, ver string }{
		{NPM, "@modelcontextprotocol/server-everything", "2026.8.31"},
		{NPM, "sigstore", "1.3.0"},
		{NPM, "left-pad", "1.0.0-beta.1+build.7"},
		{PyPI, "mcp-server-fetch", "2025.4.7"},
		{PyPI, "Django", "1!2.0rc1.post3.dev4+local.7"},
		{OCI, "ghcr.io/acme/weather:1.0.0", "1.0.0"},
		{OCI, "docker.io/acme/weather@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", ""},
		{NuGet, "Acme.Weather", "1.0.0"},
		{"mcpb", "https://github.com/acme/weather/releases/download/v1/weather.mcpb", "1.0.0"},
	}
	for _, c := range ok {
		if err := Validate(c.typ, c.id, c.ver); err != nil {
			t.Errorf("%s %q %q: %v", c.typ, c.id, c.ver, err)
		}
	}
	bad := []struct{ typ, id, ver, want string }{
		{NPM, "--call=id > /tmp/x; echo", "1.0.0", "leading '-'"},
		{NPM, "-y", "1.0.0", "leading '-'"},
		{NPM, "left-pad", "--call=id", "leading '-'"},
		{NPM, "Left-Pad", "1.0.0", "npm package name"},
		{NPM, "left-pad", "^1.0.0", "exact npm version"},
		{NPM, "left-pad", "latest", "exact npm version"},
		{NPM, "git+https://github.com/a/b", "1.0.0", "npm package name"},
		{NPM, "a b", "1.0.0", "no spaces"},
		{NPM, strings.Repeat("a", 215), "1.0.0", "npm package name"},
		{PyPI, "requests[security]", "2.0.0", "PEP 508"},
		{PyPI, "requests @ https://evil/x.whl", "2.0.0", "no spaces"},
		{PyPI, "requests;python_version<'3'", "2.0.0", "PEP 508"},
		{PyPI, "requests", ">=2.0", "exact PEP 440"},
		{PyPI, "requests", "2.0.*", "exact PEP 440"},
		{OCI, "-v/etc:/x", "", "leading '-'"},
		{OCI, "ghcr.io/Acme/Weather:1", "", "OCI image reference"},
		{OCI, "ghcr.io/acme/weather", "1.0;id", "OCI tag"},
		{NuGet, "../x", "1.0.0", "NuGet"},
		{"mcpb", "", "1.0.0", "non-empty"},
		{"mcpb", "x\x00y", "1.0.0", "control"},
	}
	for _, c := range bad {
		err := Validate(c.typ, c.id, c.ver)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q %q: got %v, want an error saying %q", c.typ, c.id, c.ver, err, c.want)
		}
	}
}

func FuzzValidate(f *testing.F) {
	f.Add("npm", "left-pad", "1.0.0")
	f.Add("pypi", "-x", "1.0")
	f.Fuzz(func(t *testing.T, typ, id, ver string) {
		if Validate(typ, id, ver) == nil && (strings.HasPrefix(id, "-") || strings.HasPrefix(ver, "-")) {
			t.Fatalf("accepted a leading '-': %q %q", id, ver)
		}
	})
}
