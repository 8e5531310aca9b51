package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
)

const schemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// serverJSON is a valid server.json for name and version.
func serverJSON(name, version string) string {
	return fmt.Sprintf(`{
  "$schema": %q,
  "name": %q,
  "description": "Weather forecasts for agents",
  "version": %q,
  "packages": [{"registryType": "npm", "identifier": "@acme/weather-mcp", "version": %q, "transport": {"type": "stdio"}}]
}`, schemaURL, name, version, version)
}

const toolsJSON = `{"tools":[
 {"name":"get_forecast","description":"Get the forecast for a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
 {"name":"get_alerts","title":"Alerts","description":"Weather alerts for a US state.","inputSchema":{"type":"object","properties":{"state":{"type":"string"}}},"annotations":{"readOnlyHint":true}}
]}`

type response struct {
	Status int
	Body   []byte
	Header http.Header
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not JSON (%d): %s", r.Status, r.Body)
	}
	return m
}

func (r response) message(t *testing.T) string {
	t.Helper()
	msg, _ := r.json(t)["message"].(string)
	return msg
}

func call(t testing.TB, method, url, token string, body any) response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return response{Status: resp.StatusCode, Body: raw, Header: resp.Header}
}

func submitBody(name, version, tools string) map[string]any {
	return map[string]any{"serverJson": serverJSON(name, version), "tools": tools}
}
