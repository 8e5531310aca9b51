package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"
)

// Upper bounds of the durations a contract may declare, in seconds.
const (
	MaxTokenTTLSeconds = 365 * 24 * 3600 // one year
	MaxTimeoutSeconds  = 24 * 3600       // one day
)

const durationForms = `write whole seconds as an integer (900), a Go duration ("15m", "1h30m") or an ISO 8601 duration ("PT15M", "P1D")`

// isoDuration matches ISO 8601 durations of days and smaller, integers
// only; years and months have no fixed length.
var isoDuration = regexp.MustCompile(`^P(?:([0-9]{1,9})D)?(?:T(?:([0-9]{1,9})H)?(?:([0-9]{1,9})M)?(?:([0-9]{1,9})S)?)?$`)

// durationSeconds reads a duration member: an integer number of seconds
// (json.Number) or a string. It returns the whole seconds, or a message
// saying why the value is not a duration in [1, maxSecs] seconds.
func durationSeconds(v any, maxSecs int64) (int64, string) {
	var secs float64
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f != math.Trunc(f) {
			return 0, fmt.Sprintf("duration %s is not a whole number of seconds", v)
		}
		secs = f
	case string:
		s, msg := parseDurationString(v)
		if msg != "" {
			return 0, msg
		}
		secs = s
	default:
		return 0, "duration must be an integer or a string"
	}
	switch {
	case secs < 1:
		return 0, "duration must be at least 1 second"
	case secs > float64(maxSecs):
		return 0, fmt.Sprintf("duration is over the limit of %d seconds (%s)", maxSecs, time.Duration(maxSecs)*time.Second)
	}
	return int64(secs), ""
}

// parseDurationString reads a Go or ISO 8601 duration as whole seconds.
func parseDurationString(s string) (float64, string) {
	if m := isoDuration.FindStringSubmatch(s); m != nil && s != "P" && s[len(s)-1] != 'T' {
		var total float64
		for i, unit := range []float64{86400, 3600, 60, 1} {
			n, _ := strconv.ParseFloat(m[i+1], 64) // "" for a missing part: 0
			total += n * unit
		}
		return total, ""
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Sprintf("duration %q does not parse: %s", abbreviate(s, 40), durationForms)
	}
	if d%time.Second != 0 {
		return 0, fmt.Sprintf("duration %q is not a whole number of seconds", abbreviate(s, 40))
	}
	return d.Seconds(), ""
}

// abbreviate cuts s to at most n runes, marking a cut with "…".
func abbreviate(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}
