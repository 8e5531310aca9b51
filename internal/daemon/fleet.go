package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Fleet serves n MCP servers (Go SDK, Streamable HTTP), server i at /s/i,
// each with one tool. Every POST waits delay first, standing in for the
// network and the server's own work, so a scan takes a few delays.
func Fleet(n int, delay time.Duration) http.Handler {
	mux := http.NewServeMux()
	for i := range n {
		s := mcp.NewServer(&mcp.Implementation{Name: fmt.Sprintf("fleet-%d", i), Version: "1.0.0"}, nil)
		s.AddTool(&mcp.Tool{Name: "look_up", Description: fmt.Sprintf("Look things up in store %d.", i),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		mux.Handle(fmt.Sprintf("/s/%d", i), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && delay > 0 {
				time.Sleep(delay)
			}
			h.ServeHTTP(w, r)
		}))
	}
	return mux
}

// FleetServerJSON is the server.json of fleet server i at base.
func FleetServerJSON(name string, base string, i int) string {
	return fmt.Sprintf(`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json","name":%q,"description":"Store %d","version":"1.0.0","remotes":[{"type":"streamable-http","url":"%s/s/%d"}]}`,
		name, i, base, i)
}
