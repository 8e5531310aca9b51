package registry

import (
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/pin"
)

// TestParseDiscoverResult: the initializeResult of a submission or a host
// check may be a 2026-07-28 server/discover result: its instructions read
// as in initialize, serverInfo from its _meta, the protocol version the
// newest it supports; a malformed one is refused naming where.
func TestParseDiscoverResult(t *testing.T) {
	f, err := ParseInitializeResult([]byte(`{"supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{"tools":{}},"instructions":"Be brief.",`+
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}}}`), pin.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if f.ProtocolVersion != "2026-07-28" || string(f.ServerInfo) != `{"name":"weather","version":"1.0.0"}` || f.Instructions == nil || *f.Instructions != "Be brief." {
		t.Errorf("facts %+v", f)
	}
	for body, want := range map[string]string{
		`{"supportedVersions":[]}`:  "/supportedVersions",
		`{"supportedVersions":"x"}`: "/supportedVersions",
		`{"supportedVersions":["2026-07-28"],"_meta":{"io.modelcontextprotocol/serverInfo":"weather"}}`: "/_meta/io.modelcontextprotocol/serverInfo",
		`{"supportedVersions":["2026-07-28"],"instructions":7}`:                                         "/instructions",
	} {
		if _, err := ParseInitializeResult([]byte(body), pin.DefaultLimits()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %s", body, err, want)
		}
	}
}
