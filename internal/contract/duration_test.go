package contract

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDurationSeconds(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want int64
		err  string
	}{
		{json.Number("900"), 900, ""},
		{json.Number("900.0"), 900, ""},
		{json.Number("1e3"), 1000, ""},
		{"15m", 900, ""},
		{"1h30m", 5400, ""},
		{"90s", 90, ""},
		{"1500ms", 0, "not a whole number of seconds"},
		{"2000ms", 2, ""},
		{"PT15M", 900, ""},
		{"P1D", 86400, ""},
		{"PT2H3M4S", 7384, ""},
		{"PT0S", 0, "at least 1 second"},
		{"P", 0, "does not parse"},
		{"PT", 0, "does not parse"},
		{"P1DT", 0, "does not parse"},
		{"P1W", 0, "does not parse"},
		{"P1M", 0, "does not parse"},
		{"PT1.5S", 0, "does not parse"},
		{"15", 0, "does not parse"},
		{"15 m", 0, "does not parse"},
		{" 15m", 0, "does not parse"},
		{"1d", 0, "does not parse"},
		{"-1m", 0, "at least 1 second"},
		{"0s", 0, "at least 1 second"},
		{"25h", 0, "over the limit of 86400"},
		{"P2D", 0, "over the limit of 86400"},
		{json.Number("1.5"), 0, "not a whole number"},
		{json.Number("0"), 0, "at least 1 second"},
		{"9999999999h", 0, "does not parse"},
		{true, 0, "integer or a string"},
		{strings.Repeat("9", 100) + "s", 0, "does not parse"},
	} {
		got, msg := durationSeconds(tc.in, MaxTimeoutSeconds)
		switch {
		case tc.err == "" && (msg != "" || got != tc.want):
			t.Errorf("durationSeconds(%v) = %d, %q; want %d", tc.in, got, msg, tc.want)
		case tc.err != "" && !strings.Contains(msg, tc.err):
			t.Errorf("durationSeconds(%v) = %d, %q; want an error containing %q", tc.in, got, msg, tc.err)
		}
	}
}

func TestDurationMessagesAreShort(t *testing.T) {
	_, msg := durationSeconds(strings.Repeat("x", 5000), MaxTimeoutSeconds)
	if len(msg) > 300 {
		t.Errorf("message quotes the whole input: %d bytes", len(msg))
	}
}
