package pin_test

// The RFC 8785 serializer of the second implementation (see
// independent_test.go): written from the RFC and ECMA-262, for values that
// encoding/json decoded with UseNumber.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

func hashOf(domain string, v any) string {
	var b strings.Builder
	writeJCS(&b, v)
	sum := sha256.Sum256([]byte(domain + "\n" + b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// writeJCS writes the RFC 8785 form of a value decoded by encoding/json
// with UseNumber.
func writeJCS(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case json.Number:
		f, _ := strconv.ParseFloat(v.String(), 64) // underflow rounds to 0
		b.WriteString(ecmaNumber(f))
	case string:
		writeJCSString(b, v)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJCS(b, e)
		}
		b.WriteByte(']')
	case []map[string]any:
		writeJCS(b, anySlice(v))
	case map[string]any:
		writeJCSObject(b, v)
	default:
		panic("unexpected type")
	}
}

func anySlice(objs []map[string]any) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

func writeJCSObject(b *strings.Builder, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int {
		return slices.Compare(utf16.Encode([]rune(x)), utf16.Encode([]rune(y)))
	})
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJCSString(b, k)
		b.WriteByte(':')
		writeJCS(b, m[k])
	}
	b.WriteByte('}')
}

// writeJCSString escapes only what RFC 8785 section 3.2.2.2 requires.
func writeJCSString(b *strings.Builder, s string) {
	short := map[rune]string{'\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`, '"': `\"`, '\\': `\\`}
	b.WriteByte('"')
	for _, r := range s {
		switch e, ok := short[r]; {
		case ok:
			b.WriteString(e)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteString(strconv.FormatInt(int64(r)>>4, 16) + strconv.FormatInt(int64(r)&0xf, 16))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// ecmaNumber formats f as ECMAScript's Number.prototype.toString does
// (ECMA-262, Number::toString), which RFC 8785 adopts.
func ecmaNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest digits that round-trip: d.ddde±x, so f = 0.digits × 10^n.
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	e := "e+" + strconv.Itoa(n-1)
	if n-1 < 0 {
		e = "e-" + strconv.Itoa(1-n)
	}
	if k == 1 {
		return sign + digits + e
	}
	return sign + digits[:1] + "." + digits[1:] + e
}

func TestECMANumber(t *testing.T) {
	for f, want := range map[float64]string{
		1: "1", 100: "100", 4.5: "4.5", 1e30: "1e+30", 1e21: "1e+21", 1e20: "100000000000000000000",
		1e-7: "1e-7", 0.000001: "0.000001", -1.5e-9: "-1.5e-9", 5e-324: "5e-324",
		math.MaxFloat64: "1.7976931348623157e+308", 333333333.3333333: "333333333.3333333", 123.456: "123.456",
	} {
		if got := ecmaNumber(f); got != want {
			t.Errorf("ecmaNumber(%v) = %s, want %s", f, got, want)
		}
	}
}
