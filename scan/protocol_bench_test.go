package scan

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkScanByProtocolVersion: one scan (two listings) of a server with
// 100 tools, 50 prompts and 50 resources that speaks only the given
// protocol version, over stateless Streamable HTTP on loopback, and of one
// that speaks both (read twice), with its prompts (each got twice) and
// resources.
func BenchmarkScanByProtocolVersion(b *testing.B) {
	for _, versions := range [][]string{{"2025-11-25"}, {"2026-07-28"}, nil} {
		name := "both"
		if versions != nil {
			name = versions[0]
		}
		b.Run(name, func(b *testing.B) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, &mcp.ServerOptions{SupportedProtocolVersions: versions, PageSize: 1000})
			for i := range 100 {
				srv.AddTool(fixtureTool(sdkConfig{}, i, fmt.Sprintf("Tool number %d: tells the weather for a city, in metric or imperial units.", i)), noResult)
			}
			for i := range 50 {
				srv.AddPrompt(&mcp.Prompt{Name: fmt.Sprintf("prompt%d", i), Description: "Summarize the forecast."},
					staticPrompt("Summarize the forecast for the city."))
				srv.AddResource(&mcp.Resource{Name: fmt.Sprintf("resource%d", i), URI: fmt.Sprintf("file:///data/%d.txt", i), MIMEType: "text/plain"},
					noResource)
			}
			ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
			defer ts.Close()
			allow, err := ParseAllowList("127.0.0.1/32")
			if err != nil {
				b.Fatal(err)
			}
			r, err := NewReader(Limits{}, allow)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				snap, err := r.Read(context.Background(), HTTPTarget{URL: ts.URL})
				if err != nil || len(snap.Tools.Tools) != 100 || len(snap.Prompts) != 50 || len(snap.Resources) != 50 {
					b.Fatalf("scan: %v", err)
				}
			}
		})
	}
}
