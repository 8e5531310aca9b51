package hostclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
)

// Transports of a configured server.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// ServerConfig is one MCP server of a host configuration.
type ServerConfig struct {
	// Name is the server's key in the configuration (its alias).
	Name string `json:"name"`
	// Type is as written: "stdio", "http", "streamable-http", "sse" or "".
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Transport is TransportStdio or TransportHTTP.
func (s ServerConfig) Transport() string {
	if s.URL != "" {
		return TransportHTTP
	}
	return TransportStdio
}

// configFile holds the shapes ParseHostConfig reads.
type configFile struct {
	MCPServers map[string]serverJSON `json:"mcpServers"`
	Servers    map[string]serverJSON `json:"servers"`
	MCP        *struct {
		Servers map[string]serverJSON `json:"servers"`
	} `json:"mcp"`
}

type serverJSON struct {
	Type      string            `json:"type"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	URL       string            `json:"url"`
	ServerURL string            `json:"serverUrl"`
	Headers   map[string]string `json:"headers"`
}

// maxConfigServers bounds a configuration.
const maxConfigServers = 1000

// ParseHostConfig reads a host configuration: {"mcpServers": {...}}
// (Claude Desktop, Cursor and most hosts), {"servers": {...}} (VS Code's
// mcp.json) or {"mcp": {"servers": {...}}} (VS Code settings). Each server
// is {"command", "args", "env"} for stdio or {"url", "type", "headers"}
// for HTTP ("serverUrl" is read as "url"); other members are ignored.
// Comments (JSONC) are not supported. Servers come back sorted by name.
func ParseHostConfig(data []byte) ([]ServerConfig, error) {
	var f configFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("host configuration: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("host configuration: data after the JSON object")
	}
	sections := []map[string]serverJSON{f.MCPServers, f.Servers}
	if f.MCP != nil {
		sections = append(sections, f.MCP.Servers)
	}
	var out []ServerConfig
	seen := map[string]bool{}
	for _, section := range sections {
		for name, raw := range section {
			if seen[name] {
				return nil, fmt.Errorf("host configuration: server %q is configured twice", name)
			}
			seen[name] = true
			s, err := raw.config(name)
			if err != nil {
				return nil, fmt.Errorf("host configuration: server %q: %w", name, err)
			}
			out = append(out, s)
		}
	}
	switch {
	case len(out) == 0:
		return nil, errors.New(`host configuration: no servers (want "mcpServers" or "servers")`)
	case len(out) > maxConfigServers:
		return nil, fmt.Errorf("host configuration: %d servers, limit %d", len(out), maxConfigServers)
	}
	slices.SortFunc(out, func(a, b ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// config checks one server's members and builds its ServerConfig.
func (r serverJSON) config(name string) (ServerConfig, error) {
	s := ServerConfig{Name: name, Type: r.Type, Command: r.Command, Args: r.Args, Env: r.Env, URL: r.URL, Headers: r.Headers}
	if s.URL == "" {
		s.URL = r.ServerURL
	}
	switch {
	case name == "":
		return s, errors.New("empty server name")
	case s.Command != "" && s.URL != "":
		return s, errors.New(`both "command" and "url": want one`)
	case s.Command == "" && s.URL == "":
		return s, errors.New(`neither "command" nor "url"`)
	}
	switch s.Type {
	case "", TransportStdio:
		if s.Type == TransportStdio && s.Command == "" {
			return s, errors.New(`type "stdio" needs "command"`)
		}
	case TransportHTTP, "streamable-http", "sse":
		if s.URL == "" {
			return s, fmt.Errorf(`type %q needs "url"`, s.Type)
		}
	default:
		return s, fmt.Errorf(`type %q: want stdio, http, streamable-http or sse`, s.Type)
	}
	if s.URL != "" {
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, fmt.Errorf("url %q: want an absolute http or https URL", s.URL)
		}
	}
	return s, nil
}
