package pin

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"testing"
)

// The published examples of RFC 8785 checked against canonicalJSON, so that
// a change in the underlying library cannot silently change the pins.

func TestJCSRFC8785Values(t *testing.T) {
	// RFC 8785 section 3.2.2.
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	assertCanonical(t, in, want)
}

func TestJCSRFC8785Sorting(t *testing.T) {
	// RFC 8785 section 3.2.3: names sort by UTF-16 code units, so the emoji
	// (U+1F600, D83D DE00) sorts before U+FB33, unlike in UTF-8 byte order.
	in := `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`
	want := "{" +
		`"\r":"Carriage Return",` +
		`"1":"One",` +
		"\"\u0080\":\"Control\"," +
		"\"\u00f6\":\"Latin Small Letter O With Diaeresis\"," +
		"\"\u20ac\":\"Euro Sign\"," +
		"\"\U0001F600\":\"Emoji: Grinning Face\"," +
		"\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"" +
		"}"
	assertCanonical(t, in, want)
}

func TestJCSStrings(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"short escapes kept", `"\b\f\n\r\t"`, `"\b\f\n\r\t"`},
		{"other controls lowercase hex", `"\u001F\u0000"`, `"\u001f\u0000"`},
		{"DEL and C1 literal", `"\u007f\u0080"`, "\"\u007f\u0080\""},
		{"solidus unescaped", `"\/"`, `"/"`},
		{"html characters literal", `"\u003c\u003e\u0026"`, `"<>&"`},
		{"line separators literal", `"\u2028\u2029"`, "\"\u2028\u2029\""},
		{"surrogate pair to UTF-8", `"\uD83D\uDE00"`, "\"\U0001F600\""},
		{"no normalization", `"e\u0301"`, "\"e\u0301\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assertCanonical(t, tt.in, tt.want) })
	}
}

func TestJCSNumbers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1.0", "1"}, {"1e2", "100"}, {"-0", "0"}, {"-0.0", "0"}, {"0.1", "0.1"},
		{"1E30", "1e+30"}, {"1e21", "1e+21"}, {"1e20", "100000000000000000000"},
		{"0.000001", "0.000001"}, {"1e-7", "1e-7"}, {"12345678901234567890", "12345678901234567000"},
		{"9007199254740993", "9007199254740992"}, {"1e-400", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assertCanonical(t, tt.in, tt.want) })
	}
}

func TestJCSRFC8785AppendixB(t *testing.T) {
	// RFC 8785 appendix B: IEEE 754 bit patterns and their JCS text.
	tests := []struct{ bits, want string }{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"},
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
	}
	for _, tt := range tests {
		t.Run(tt.bits, func(t *testing.T) {
			assertCanonical(t, strconv.FormatFloat(floatFromHex(t, tt.bits), 'g', -1, 64), tt.want)
		})
	}
}

func floatFromHex(t *testing.T, s string) float64 {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b))
}

func assertCanonical(t *testing.T, in, want string) {
	t.Helper()
	if err := Validate([]byte(in), Limits{}); err != nil {
		t.Fatalf("Validate(%s): %v", in, err)
	}
	got, err := canonicalJSON([]byte(in))
	if err != nil {
		t.Fatalf("canonicalJSON(%s): %v", in, err)
	}
	if string(got) != want {
		t.Errorf("canonicalJSON(%s)\n got %s\nwant %s", in, got, want)
	}
}
