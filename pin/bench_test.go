package pin

import (
	"fmt"
	"strings"
	"testing"
)

// benchTools returns a tools/list result with n tools of realistic size.
func benchTools(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"name":"tool_%03d","title":"Tool %d","description":"Does thing %d with the given arguments and returns a summary. Use it only when the user asks.",`+
			`"inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"File path"},"limit":{"type":"integer","minimum":1,"maximum":1000,"default":100},`+
			`"mode":{"type":"string","enum":["fast","safe","thorough"]},"tags":{"type":"array","items":{"type":"string"}}},"required":["path"]},`+
			`"outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"},"count":{"type":"number"}}},`+
			`"annotations":{"readOnlyHint":%t,"openWorldHint":false},"_meta":{"io.example/rev":%d}}`, i, i, i, i%2 == 0, i)
	}
	b.WriteString(`],"instructions":"Use the tools carefully."}`)
	return []byte(b.String())
}

func BenchmarkCompute(b *testing.B) {
	data := benchTools(200)
	l, err := ParseToolsList(data, Limits{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compute(l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseToolsList(b *testing.B) {
	data := benchTools(200)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseToolsList(data, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
