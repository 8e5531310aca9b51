// Command loadtest seeds a running mcpregd with many servers through the REST
// API, so a load tool (wrk) can measure reads against a realistic database.
// It is a development tool, not part of the product:
//
//	go run ./scripts/loadtest -server http://127.0.0.1:18080 -token mcpreg_... -servers 5000
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

const schemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

func main() {
	base := flag.String("server", "http://127.0.0.1:18080", "service URL")
	token := flag.String("token", "", "owner token for namespace io.github.load")
	approver := flag.String("approve-token", "", "reviewer token: approve each version after submitting it")
	n := flag.Int("servers", 5000, "servers to submit")
	workers := flag.Int("workers", 4, "concurrent submitters")
	flag.Parse()
	start := time.Now()
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(*n); i = next.Add(1) {
				err := submit(*base, *token, i)
				if err == nil && *approver != "" {
					err = approve(*base, *approver, i)
				}
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	fmt.Printf("seeded %d servers in %s (%.0f submits/s over REST, %d failed)\n", *n, el.Round(time.Millisecond), float64(*n)/el.Seconds(), failed.Load())
	if failed.Load() > 0 {
		os.Exit(1)
	}
}

func submit(base, token string, i int64) error {
	sj := fmt.Sprintf(`{"$schema":%q,"name":"io.github.load/server-%05d","description":"Load test server %d","version":"1.0.0",
 "remotes":[{"type":"streamable-http","url":"https://mcp%d.example.com/mcp"}]}`, schemaURL, i, i, i)
	tools := fmt.Sprintf(`{"tools":[{"name":"search_%d","description":"Search things.","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}},
 {"name":"fetch_%d","description":"Fetch one thing.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}}]}`, i, i)
	return post(base+"/v1/versions", token, map[string]string{"serverJson": sj, "tools": tools}, i)
}

func approve(base, token string, i int64) error {
	return post(fmt.Sprintf("%s/v1/servers/io.github.load/server-%05d/versions/1.0.0/approve", base, i), token,
		map[string]string{"reason": "load test"}, i)
}

func post(url, token string, v any, i int64) error {
	body, _ := json.Marshal(v)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("server %d: %d %s", i, resp.StatusCode, b)
	}
	return nil
}
