package hostclient_test

import (
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/hostclient"
)

func TestParseHostConfig(t *testing.T) {
	claude := `{"mcpServers": {
	  "weather": {"command": "npx", "args": ["-y", "@acme/weather-mcp@1.2.3"], "env": {"API_KEY": "k"}},
	  "remote": {"url": "https://tools.acme.example/mcp", "type": "http", "headers": {"Authorization": "Bearer x"}},
	  "legacy": {"serverUrl": "https://old.acme.example/sse", "type": "sse"}},
	  "globalShortcut": "Ctrl+Space"}`
	got, err := hostclient.ParseHostConfig([]byte(claude))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Name != "legacy" || got[1].Name != "remote" || got[2].Name != "weather" {
		t.Fatalf("servers, by name: %+v", got)
	}
	if got[0].URL != "https://old.acme.example/sse" || got[0].Transport() != hostclient.TransportHTTP {
		t.Fatalf("serverUrl: %+v", got[0])
	}
	if got[1].Headers["Authorization"] != "Bearer x" || got[2].Env["API_KEY"] != "k" || got[2].Args[1] != "@acme/weather-mcp@1.2.3" ||
		got[2].Transport() != hostclient.TransportStdio {
		t.Fatalf("members: %+v", got)
	}
	for name, doc := range map[string]string{
		"vscode mcp.json":      `{"inputs": [], "servers": {"w": {"type": "stdio", "command": "uvx", "args": ["weather-mcp"]}}}`,
		"vscode settings.json": `{"editor.fontSize": 12, "mcp": {"servers": {"w": {"type": "http", "url": "http://127.0.0.1:3000/mcp"}}}}`,
	} {
		if got, err := hostclient.ParseHostConfig([]byte(doc)); err != nil || len(got) != 1 || got[0].Name != "w" {
			t.Errorf("%s: %v %+v", name, err, got)
		}
	}
}

func TestParseHostConfigRejects(t *testing.T) {
	for _, tt := range []struct{ doc, says string }{
		{`{"mcpServers": {}}`, "no servers"},
		{`{}`, "no servers"},
		{`[]`, "cannot unmarshal"},
		{`{"mcpServers": {"a": {"command": "x"}}} {}`, "data after"},
		{`{"mcpServers": {"a": {"command": "x", "url": "https://a.example"}}}`, `server "a": both`},
		{`{"mcpServers": {"a": {"env": {}}}}`, `server "a": neither`},
		{`{"mcpServers": {"a": {"type": "stdio", "url": "https://a.example"}}}`, `type "stdio" needs "command"`},
		{`{"mcpServers": {"a": {"type": "http", "command": "x"}}}`, `type "http" needs "url"`},
		{`{"mcpServers": {"a": {"type": "websocket", "url": "wss://a.example"}}}`, `type "websocket"`},
		{`{"mcpServers": {"a": {"url": "file:///etc/passwd"}}}`, "absolute http or https URL"},
		{`{"mcpServers": {"a": {"command": "x"}}, "servers": {"a": {"command": "y"}}}`, "configured twice"},
		{`{"mcpServers": {"a": {"command": "x", "args": "-y"}}}`, "cannot unmarshal"},
	} {
		if _, err := hostclient.ParseHostConfig([]byte(tt.doc)); err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: error %v, want one saying %q", tt.doc, err, tt.says)
		}
	}
}

func FuzzParseHostConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"w": {"command": "npx", "args": ["-y", "@acme/w@1.0.0"]}}}`))
	f.Add([]byte(`{"servers": {"w": {"type": "http", "url": "http://[::1]:3000/mcp"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := hostclient.ParseHostConfig(data)
		if err != nil {
			return
		}
		for _, s := range servers {
			if (s.Command == "") == (s.URL == "") || s.Name == "" {
				t.Fatalf("accepted %+v", s)
			}
		}
	})
}
