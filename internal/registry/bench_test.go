package registry_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// toolsFile builds a realistic tools/list result with n tools.
func toolsFile(n int) []byte {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"name":"tool_%03d","description":"Does thing %d with the given arguments and returns a summary.",
"inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"]},
"annotations":{"readOnlyHint":true}}`, i, i)
	}
	return []byte(`{"tools":[` + strings.Join(parts, ",") + `]}`)
}

// BenchmarkSubmit measures end-to-end submissions (strict parse, schema
// validation, pins, one transaction with audit append) on an SQLite file.
func BenchmarkSubmit(b *testing.B) {
	for _, n := range []int{5, 50} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			svc, err := registry.New(context.Background(), storetest.Open(b, "sqlite3"))
			if err != nil {
				b.Fatal(err)
			}
			tl := toolsFile(n)
			var seq atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				i := seq.Add(1)
				_, err := svc.Review.Submit(context.Background(), owner, registry.Submission{
					ServerJSON: serverJSON(fmt.Sprintf("io.github.acme/b%d", i), "1.0.0"), Tools: tl})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submits/s")
		})
	}
}
