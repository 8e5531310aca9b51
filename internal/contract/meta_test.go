package contract

import (
	"errors"
	"testing"
)

func TestFromServerJSONMeta(t *testing.T) {
	const head = `{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json","name":"io.github.acme/weather","version":"1.0.0"`
	const c = `{"contractVersion":"mcpreg.contract/v1","owner":"team","auth":{"mode":"none"},"isolation":"container"}`
	for _, tc := range []struct {
		name, doc string
		found     bool
		raw, ptr  string // ptr of the violation when an error is expected
	}{
		{"no _meta", head + `}`, false, "", ""},
		{"other _meta members only", head + `,"_meta":{"io.example/x":{}}}`, false, "", ""},
		{"direct", head + `,"_meta":{"io.mcpreg/contract":` + c + `}}`, true, c, ""},
		{"publisher-provided", head + `,"_meta":{"io.modelcontextprotocol.registry/publisher-provided":{"io.mcpreg/contract":` + c + `}}}`, true, c, ""},
		{"both places", head + `,"_meta":{"io.mcpreg/contract":` + c + `,"io.modelcontextprotocol.registry/publisher-provided":{"io.mcpreg/contract":` + c + `}}}`,
			false, "", "/_meta/io.modelcontextprotocol.registry~1publisher-provided/io.mcpreg~1contract"},
		{"string instead of object", head + `,"_meta":{"io.mcpreg/contract":"contractVersion: x"}}`, false, "", "/_meta/io.mcpreg~1contract"},
		{"_meta not an object", head + `,"_meta":[]}`, false, "", "/_meta"},
		{"duplicate member", head + `,"_meta":{"io.mcpreg/contract":{},"io.mcpreg/contract":{}}}`, false, "", "/_meta/io.mcpreg~1contract"},
		{"not an object", `[]`, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, found, err := FromServerJSONMeta([]byte(tc.doc))
			if tc.ptr != "" || tc.name == "not an object" {
				var verr *ValidationError
				if !errors.As(err, &verr) || verr.Violations[0].Pointer != tc.ptr {
					t.Fatalf("want a violation at %q, got %v", tc.ptr, err)
				}
				return
			}
			if err != nil || found != tc.found || string(raw) != tc.raw {
				t.Fatalf("got %q, %v, %v; want %q, %v", raw, found, err, tc.raw, tc.found)
			}
			if found {
				if _, err := Parse(raw, Limits{}); err != nil {
					t.Errorf("Parse of the extracted contract: %v", err)
				}
			}
		})
	}
}
