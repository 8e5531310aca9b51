package diffreview_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/pin"
)

func hundredTools(desc string) []byte {
	parts := make([]string, 100)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"name":"tool_%03d","description":"%s %d.","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"what to look for"},"n":{"type":"integer"}}},"annotations":{"readOnlyHint":true}}`, i, desc, i)
	}
	return []byte(`{"tools":[` + strings.Join(parts, ",") + `]}`)
}

// BenchmarkReviewPipeline100Tools is the CPU cost of what a scan of a
// 100-tool server computes: strict parse and pins of the live list, drift
// against the approved list (every description changed), and poisoning
// findings over all model-visible text.
func BenchmarkReviewPipeline100Tools(b *testing.B) {
	approved, err := pin.ParseToolsList(hundredTools("Searches the catalogue for item"), pin.DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	live := hundredTools("Searches the catalogue and the archive for item")
	b.ReportAllocs()
	for b.Loop() {
		l, err := pin.ParseToolsList(live, pin.DefaultLimits())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := pin.Compute(l); err != nil {
			b.Fatal(err)
		}
		if n := len(diffreview.Drift(approved, l, nil, nil)); n != 100 {
			b.Fatalf("changes = %d", n)
		}
		diffreview.Poisoning(l.Tools, l.Instructions)
	}
}

// BenchmarkContent4KiBResult is what the runtime gate spends on each tool
// result: the text detectors over 4 KiB of ordinary prose.
func BenchmarkContent4KiBResult(b *testing.B) {
	text := strings.Repeat("The forecast for the region is mild with light winds; rain is expected after noon. ", 60)[:4096]
	texts := []diffreview.Text{{Pointer: "/content/0/text", Text: text}}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if fs := diffreview.Content(texts); len(fs) != 0 {
			b.Fatalf("findings on benign text: %v", fs)
		}
	}
}
