package hostclient_test

import (
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/hostclient"
)

func matchDoc() *discovery.Document {
	weather := entry("io.github.acme/weather")
	weather.Remotes = []discovery.Remote{{Type: "streamable-http", URL: "https://Weather.Acme.example:443/mcp/"}}
	npmPkg := entry("io.github.acme/files")
	npmPkg.Version = "1.2.3"
	npmPkg.Packages = []discovery.Package{{RegistryType: "npm", Identifier: "@acme/files-mcp", Version: "1.2.3"}}
	pyPkg := entry("io.github.acme/py")
	pyPkg.Packages = []discovery.Package{{RegistryType: "pypi", Identifier: "Acme_Py.Server", Version: "0.4.0"}}
	hosted := entry("io.github.acme/selfhosted")
	return &discovery.Document{Servers: []discovery.Entry{npmPkg, pyPkg, hosted, weather}}
}

func TestMatch(t *testing.T) {
	doc := matchDoc()
	stdio := func(alias, cmd string, args ...string) hostclient.ServerConfig {
		return hostclient.ServerConfig{Name: alias, Command: cmd, Args: args}
	}
	remote := func(alias, url string) hostclient.ServerConfig { return hostclient.ServerConfig{Name: alias, URL: url} }
	tests := []struct {
		name   string
		server hostclient.ServerConfig
		entry  string // "" = unapproved
		by     string
		detail string
	}{
		{"alias and remote", remote("io.github.acme/weather", "https://weather.acme.example/mcp"), "io.github.acme/weather", hostclient.MatchByName, ""},
		{"remote only", remote("wx", "HTTPS://weather.acme.example/mcp"), "io.github.acme/weather", hostclient.MatchByRemote, ""},
		{"alias, another URL", remote("io.github.acme/weather", "https://evil.example/mcp"), "", "", "not one of its approved remotes"},
		{"alias of a server without remotes", remote("io.github.acme/selfhosted", "http://127.0.0.1:9000/mcp"), "io.github.acme/selfhosted",
			hostclient.MatchByName, "lists no remote"},
		{"unknown URL", remote("other", "https://other.example/mcp"), "", "", "has the remote https://other.example/mcp"},
		{"npx pinned", stdio("files", "npx", "-y", "@acme/files-mcp@1.2.3"), "io.github.acme/files", hostclient.MatchByPackage, ""},
		{"npx --package", stdio("files", "npx", "--package=@acme/files-mcp@1.2.3", "files"), "io.github.acme/files", hostclient.MatchByPackage, ""},
		{"npx unpinned", stdio("files", "npx", "-y", "@acme/files-mcp"), "io.github.acme/files", hostclient.MatchByPackage, "names no version"},
		{"npx other version", stdio("files", "npx", "-y", "@acme/files-mcp@1.2.2"), "", "", "runs @acme/files-mcp version 1.2.2; the approved version"},
		{"alias, other version", stdio("io.github.acme/files", "npx", "@acme/files-mcp@2.0.0"), "", "", "version 2.0.0"},
		{"alias, other command", stdio("io.github.acme/files", "node", "/opt/files/index.js"), "io.github.acme/files",
			hostclient.MatchByName, "does not name its package"},
		{"uvx PEP 503 name", stdio("py", "uvx", "acme-py-server==0.4.0"), "io.github.acme/py", hostclient.MatchByPackage, ""},
		{"uvx extras and @", stdio("py", "uvx", "ACME.py_server[cli]@0.4.0"), "io.github.acme/py", hostclient.MatchByPackage, ""},
		{"npm name is not a prefix", stdio("x", "npx", "@acme/files-mcp-extra@1.2.3"), "", "", `runs the npm package @acme/files-mcp-extra@1.2.3`},
		{"unregistered npx, flags first", stdio("x", "npx", "-y", "--quiet", "@other/mcp@1.0.0", "--port", "1"), "", "", `runs the npm package @other/mcp@1.0.0`},
		{"unregistered npx -p", stdio("x", "/usr/bin/npx", "-p", "@other/mcp@2", "other-mcp"), "", "", `runs the npm package @other/mcp@2`},
		{"unregistered uvx --from", stdio("x", "uvx", "--from=other-mcp==1.0", "other"), "", "", `runs the pypi package other-mcp==1.0`},
		{"unregistered pipx run", stdio("x", "pipx", "run", "other-mcp"), "", "", `runs the pypi package other-mcp`},
		{"nothing", stdio("x", "/usr/bin/thing"), "", "", `no approved server is named "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := hostclient.Match(doc, tt.server)
			got := ""
			if m.Entry != nil {
				got = m.Entry.Name
			}
			if got != tt.entry || m.By != tt.by || !strings.Contains(m.Detail, tt.detail) || (tt.detail == "" && m.Detail != "") {
				t.Fatalf("matched %q by %q (%q); want %q by %q (%q)", got, m.By, m.Detail, tt.entry, tt.by, tt.detail)
			}
		})
	}
}
