package diffreview

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Candidate encoded blobs. Base64 is at least 32 characters (24 with
// padding), hex at least 40 digits, and a data: URI any length.
var (
	base64Re  = regexp.MustCompile(`[A-Za-z0-9+/_-]{32,}={0,2}|[A-Za-z0-9+/]{20,}={1,2}`)
	hexRe     = regexp.MustCompile(`\b(?:0x)?[0-9a-fA-F]{40,}\b`)
	dataURIRe = regexp.MustCompile(`(?i)\bdata:[a-z]+/[a-z0-9.+-]+(?:;[a-z0-9=.+-]+)*,[A-Za-z0-9+/=%._~!$&'()*:@-]*`)
)

// payload is one encoded blob found in text.
type payload struct {
	start, end int    // in the prepared text
	encoding   string // "base64", "hex" or "data URI"
	decoded    string // the decoded text when it is readable, else ""
}

// Thresholds for blobs that do not decode to text.
const (
	opaqueBase64Min = 80
	opaqueHexMin    = 130 // longer than a SHA-512 digest
	minDecodedText  = 12
)

// findPayloads lists encoded blobs worth a reviewer's look: those that
// decode to readable text, data: URIs, and long opaque blobs. Hashes (40
// or 64 hex digits) and identifiers are left alone.
func findPayloads(text string) []payload {
	var out []payload
	if strings.Contains(strings.ToLower(text), "data:") {
		out = dataURIs(text)
	}
	if !hasRun(text, 20) {
		return out
	}
	for _, loc := range base64Re.FindAllStringIndex(text, -1) {
		if p, ok := base64Payload(text, loc); ok && !inside(out, p) {
			out = append(out, p)
		}
	}
	for _, loc := range hexRe.FindAllStringIndex(text, -1) {
		if p, ok := hexPayload(text, loc); ok && !inside(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// dataURIs lists the data: URIs in text.
func dataURIs(text string) []payload {
	var out []payload
	for _, loc := range dataURIRe.FindAllStringIndex(text, -1) {
		out = append(out, payload{loc[0], loc[1], "data URI", decodeDataURI(text[loc[0]:loc[1]])})
	}
	return out
}

// hasRun reports whether text holds n or more base64 characters in a row,
// which every base64 and hex candidate needs.
func hasRun(text string, n int) bool {
	run := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-' {
			if run++; run >= n {
				return true
			}
			continue
		}
		run = 0
	}
	return false
}

// inside reports whether p overlaps a payload already found.
func inside(found []payload, p payload) bool {
	for _, f := range found {
		if p.start < f.end && f.start < p.end {
			return true
		}
	}
	return false
}

// base64Payload judges one base64 candidate.
func base64Payload(text string, loc []int) (payload, bool) {
	blob := text[loc[0]:loc[1]]
	p := payload{start: loc[0], end: loc[1], encoding: "base64"}
	if s, ok := decodeBase64(blob); ok && readable(s) {
		p.decoded = s
		return p, true
	}
	return p, len(blob) >= opaqueBase64Min && looksRandom(blob)
}

// hexPayload judges one hex candidate.
func hexPayload(text string, loc []int) (payload, bool) {
	blob := strings.TrimPrefix(strings.TrimPrefix(text[loc[0]:loc[1]], "0x"), "0X")
	p := payload{start: loc[0], end: loc[1], encoding: "hex"}
	if b, err := hex.DecodeString(blob); err == nil && readable(string(b)) {
		p.decoded = string(b)
		return p, true
	}
	return p, len(blob) >= opaqueHexMin
}

// decodeBase64 tries the standard and URL alphabets, padded or not.
func decodeBase64(s string) (string, bool) {
	trimmed := strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(trimmed); err == nil {
			return string(b), true
		}
	}
	return "", false
}

// decodeDataURI returns the text a data: URI carries, when readable.
func decodeDataURI(uri string) string {
	head, data, _ := strings.Cut(uri, ",")
	var s string
	if strings.HasSuffix(strings.ToLower(head), ";base64") {
		s, _ = decodeBase64(data)
	} else {
		s, _ = url.PathUnescape(data)
	}
	if readable(s) {
		return s
	}
	return ""
}

// readable reports text: valid UTF-8, long enough, nearly all printable,
// and with some letters and spaces, as hidden instructions would be.
func readable(s string) bool {
	if len(s) < minDecodedText || !utf8.ValidString(s) {
		return false
	}
	var printable, letters, spaces, total int
	for _, r := range s {
		total++
		switch {
		case unicode.IsLetter(r):
			letters++
			printable++
		case r == ' ':
			spaces++
			printable++
		case unicode.IsPrint(r) || r == '\n' || r == '\t':
			printable++
		}
	}
	return printable*100 >= total*95 && letters*2 >= total && spaces > 0
}

// looksRandom reports a blob mixing upper case, lower case and digits with
// few slashes, unlike paths and identifiers.
func looksRandom(s string) bool {
	var upper, lower, digit, slash int
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			upper++
		case r >= 'a' && r <= 'z':
			lower++
		case r >= '0' && r <= '9':
			digit++
		case r == '/':
			slash++
		}
	}
	return upper > 0 && lower > 0 && digit > 0 && slash*16 <= len(s)
}
