package scan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// rawConfig is a fixture server answering with canned raw JSON: what the
// SDK will not send by design (an "execution" member, duplicate members,
// instructions "", a cursor loop), or nothing at all. Byte slices, unlike
// json.RawMessage, survive the trip through the environment unchanged.
type rawConfig struct {
	Init []byte // the initialize result (defaultInit when nil)
	// Discover is the server/discover result (2026-07-28); nil: the method
	// is answered like any unknown one, with {}, which the SDK takes for
	// a server that does not speak 2026-07-28.
	Discover []byte
	Pages    map[string][]byte // the tools/list result for each cursor ("" first)
	// Lists are the results of the other list calls (prompts/list,
	// resources/list, resources/templates/list): method → cursor → result.
	Lists map[string]map[string][]byte
	// Prompts are the prompts/get results by prompt name.
	Prompts map[string][]byte
	Silent  bool // read everything, answer nothing
	SSE     bool // HTTP: answer as text/event-stream, data split over lines
}

const defaultInit = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"0.1"}}`

// reply returns the response line to the request msg, or nil.
func (c rawConfig) reply(msg []byte) (prefix, result []byte) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Cursor string `json:"cursor"`
			Name   string `json:"name"`
		} `json:"params"`
	}
	if c.Silent || json.Unmarshal(msg, &req) != nil || req.ID == nil {
		return nil, nil
	}
	prefix = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":`, req.ID)
	switch req.Method {
	case "initialize":
		result = c.Init
		if result == nil {
			result = []byte(defaultInit)
		}
	case "server/discover":
		result = c.Discover
		if result == nil {
			result = []byte(`{}`)
		}
	case "tools/list":
		result = c.Pages[req.Params.Cursor]
	case "prompts/get":
		result = c.Prompts[req.Params.Name]
	default:
		pages, ok := c.Lists[req.Method]
		if !ok {
			return prefix, []byte(`{}`)
		}
		result = pages[req.Params.Cursor]
	}
	if result == nil {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown cursor or name"}`, req.ID), nil
	}
	return prefix, bytes.TrimSpace(result)
}

// serveStdio answers one message per line until r ends.
func (c rawConfig) serveStdio(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		prefix, result := c.reply(sc.Bytes())
		if prefix == nil {
			continue
		}
		line := slices.Concat(prefix, result, []byte("}\n"))
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return sc.Err()
}

// ServeHTTP speaks the Streamable HTTP transport without sessions.
func (c rawConfig) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if c.Silent {
		<-r.Context().Done()
		return
	}
	prefix, result := c.reply(body)
	switch {
	case prefix == nil:
		w.WriteHeader(http.StatusAccepted)
	case c.SSE:
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = fmt.Fprintf(w, ": a comment\nevent: message\ndata: %s\ndata: %s\ndata: }\n\n", prefix, result)
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, "%s%s}", prefix, result)
	}
}

// page reads a raw tools/list result from testdata/scan.
func testPage(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(testkit.Testdata(t, "scan", name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(data)
}

// onePage is a raw fixture serving a single page.
func onePage(result []byte) rawConfig {
	return rawConfig{Pages: map[string][]byte{"": result}}
}
