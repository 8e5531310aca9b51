package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/timestamppb"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// listPage is a list page of n versions as the service answers it: each
// with its server.json, contract and pins.
func listPage(n int) *mcpregv1.ListVersionsResponse {
	out := &mcpregv1.ListVersionsResponse{NextPageToken: "djE6dmVyc2lvbnM6MTIzNDU"}
	for i := range n {
		name := fmt.Sprintf("io.github.fleet-%04d/server-%06d", i/20, i)
		sj := fmt.Sprintf(`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json","name":%q,`+
			`"description":"Reads \"weather\" forecasts\nfor a city. %s","version":"1.2.0","packages":[{"registryType":"npm",`+
			`"identifier":"@fleet/server-%06d","version":"1.2.0","transport":{"type":"stdio"}}]}`, name, strings.Repeat("Lorem ipsum dolor sit amet. ", 30), i)
		v := &mcpregv1.Version{Name: name, Version: "1.2.0", State: "approved", SubmittedBy: "fleet-owner",
			SubmittedAt: timestamppb.Now(), StateChangedAt: timestamppb.Now(), Owner: "fleet-owner", ServerJson: sj,
			Description: "Reads weather forecasts", Contract: strings.Repeat(`{"name":"tool","riskTier":"read"},`, 25), ContractSource: "default",
			Pins: &mcpregv1.Pins{SpecVersion: "mcpreg-pin-v2", Revision: 1, ToolDefinitionHash: "sha256:" + strings.Repeat("ab", 32)}}
		for j := range 4 {
			v.Pins.Tools = append(v.Pins.Tools, &mcpregv1.ToolPin{Name: fmt.Sprintf("tool_%d", j), Hash: "sha256:" + strings.Repeat("cd", 32)})
		}
		out.Versions = append(out.Versions, v)
	}
	return out
}

// TestJSONMarshalerMatchesJSONPb: the gateway's marshaller writes the
// very bytes runtime.JSONPb does, for messages large and empty, with maps
// and unpopulated fields, and for values that are not messages.
func TestJSONMarshalerMatchesJSONPb(t *testing.T) {
	m := newJSONMarshaler()
	for _, v := range []any{
		listPage(30), listPage(0), &mcpregv1.Version{},
		&mcpregv1.UpstreamSyncResult{Counts: map[string]int64{"imported": 3, "pages": 1}, Errors: []string{"a \"b\"\n"}, Running: true},
		"text", map[string]int{"n": 1}, int64(7),
	} {
		want, err := m.JSONPb.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%T: %d bytes differ from JSONPb's %d:\n%s\n%s", v, len(got), len(want), got, want)
		}
	}
}

// BenchmarkGatewayMarshalListPage is the JSON of a list page of 30
// versions (about 60 KB), by runtime.JSONPb and by the gateway's
// marshaller.
func BenchmarkGatewayMarshalListPage(b *testing.B) {
	page := listPage(30)
	m := newJSONMarshaler()
	for name, marshal := range map[string]func(any) ([]byte, error){"jsonpb": m.JSONPb.Marshal, "gateway": m.Marshal} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := marshal(page)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(out)))
			}
		})
	}
}
