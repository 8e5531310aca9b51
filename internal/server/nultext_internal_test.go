package server

import (
	"testing"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// TestNulFieldFindsNestedText: the NUL check reaches strings in repeated
// fields of nested messages and names them by their JSON path.
func TestNulFieldFindsNestedText(t *testing.T) {
	clean := &mcpregv1.PostReceiptsRequest{Receipts: []*mcpregv1.CallReceipt{{Server: "a/b", Findings: []string{"x"}}}}
	if p := nulField(clean.ProtoReflect(), ""); p != "" {
		t.Fatalf("clean request: %q", p)
	}
	nested := &mcpregv1.PostReceiptsRequest{Receipts: []*mcpregv1.CallReceipt{{Server: "a/b"}, {Findings: []string{"ok", "b\x00d"}}}}
	if p := nulField(nested.ProtoReflect(), ""); p != "receipts.findings" {
		t.Fatalf("NUL in a nested list: path %q, want receipts.findings", p)
	}
	top := &mcpregv1.ResolveServersRequest{Namespace: "io.github.acme\x00"}
	if p := nulField(top.ProtoReflect(), ""); p != "namespace" {
		t.Fatalf("NUL in a top-level field: path %q", p)
	}
}
