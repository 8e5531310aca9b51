package contract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func benchParse(b *testing.B, data []byte, wantErr bool) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, Limits{}); (err != nil) != wantErr {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseYAML(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(vectorDir, "ticketing", "contract.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	benchParse(b, data, false)
}

func BenchmarkParseJSON(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(vectorDir, "ticketing", "contract.json"))
	if err != nil {
		b.Fatal(err)
	}
	benchParse(b, data, false)
}

// BenchmarkParseAliasBomb: a document at the size cap made of aliases of
// aliases costs about as much as any other document of its size.
func BenchmarkParseAliasBomb(b *testing.B) {
	var s strings.Builder
	s.WriteString("x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; s.Len() < DefaultMaxBytes-200; i++ {
		fmt.Fprintf(&s, "x%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	benchParse(b, []byte(s.String()), true)
}

// BenchmarkParseManyTools: the largest contract the size cap allows.
func BenchmarkParseManyTools(b *testing.B) {
	var s strings.Builder
	s.WriteString(minimalYAML + "tools:\n")
	for i := 0; s.Len() < DefaultMaxBytes-200; i++ {
		fmt.Fprintf(&s, "  - {name: tool_%04d, riskTier: write, approval: always, timeout: 15s, idempotency: requires_key}\n", i)
	}
	benchParse(b, []byte(s.String()), false)
}
