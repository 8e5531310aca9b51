package contract

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// credentialShapes are well-known shapes of credential values.
var credentialShapes = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*-----`), "PEM block"},
	{regexp.MustCompile(`^eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*$`), "JWT"},
	{regexp.MustCompile(`^(?:AKIA|ASIA)[A-Z0-9]{16}$`), "AWS access key ID"},
	{regexp.MustCompile(`^AIza[A-Za-z0-9_-]{35}$`), "Google API key"},
	{regexp.MustCompile(`^ya29\.[A-Za-z0-9_-]{20,}$`), "Google OAuth access token"},
	{regexp.MustCompile(`^sk-[A-Za-z0-9_-]{20,}$`), "API secret key (sk-)"},
	{regexp.MustCompile(`^[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}$`), "Stripe key"},
	{regexp.MustCompile(`^gh[pousr]_[A-Za-z0-9]{30,}$`), "GitHub token"},
	{regexp.MustCompile(`^github_pat_[A-Za-z0-9_]{20,}$`), "GitHub fine-grained token"},
	{regexp.MustCompile(`^glpat-[A-Za-z0-9_-]{20,}$`), "GitLab token"},
	{regexp.MustCompile(`^xox[abposr]-[A-Za-z0-9-]{10,}$`), "Slack token"},
	{regexp.MustCompile(`^xapp-[A-Za-z0-9-]{10,}$`), "Slack app token"},
	{regexp.MustCompile(`^npm_[A-Za-z0-9]{36}$`), "npm token"},
	{regexp.MustCompile(`^pypi-[A-Za-z0-9_-]{50,}$`), "PyPI token"},
	{regexp.MustCompile(`^hf_[A-Za-z0-9]{30,}$`), "Hugging Face token"},
	{regexp.MustCompile(`^(?:[0-9a-fA-F]{2}){16,}$`), "long hexadecimal string"},
	{regexp.MustCompile(`^[A-Za-z0-9+/]{32,}={1,2}$`), "padded base64"},
}

// valueLike returns why name looks like a credential value rather than a
// reference to one, or "" when it looks like a name.
func valueLike(name string) string {
	for _, s := range credentialShapes {
		if s.re.MatchString(name) {
			return s.what
		}
	}
	for _, seg := range strings.FieldsFunc(name, isPathSeparator) {
		if randomLooking(seg) {
			return "high-entropy string"
		}
	}
	return ""
}

// isPathSeparator splits reference-like names ("vault:kv/prod#key") into
// the parts a random value could hide in.
func isPathSeparator(r rune) bool {
	return r == '/' || r == ':' || r == '#' || r == '@' || r == '?' || r == '=' || unicode.IsSpace(r)
}

// randomLooking reports whether s reads like generated key material: at
// least 20 letters and digits, mixing upper case, lower case and digits,
// without much repetition, and switching between those classes often.
// Words switch rarely (at word starts), random strings at about every other
// character. Transitions are counted between adjacent letters and digits
// only, so "Ticketing-Api-Key-01" reads as four words.
func randomLooking(s string) bool {
	var alnum, pairs, switches int
	var upper, lower, digit bool
	prev := -1 // class of the previous character; -1 after a separator
	for _, r := range s {
		c := charClass(r)
		if c < 0 {
			prev = -1
			continue
		}
		alnum++
		upper, lower, digit = upper || c == 0, lower || c == 1, digit || c == 2
		if prev >= 0 {
			pairs++
			if c != prev {
				switches++
			}
		}
		prev = c
	}
	if alnum < 20 || !upper || !lower || !digit || pairs == 0 {
		return false
	}
	return float64(switches)/float64(pairs) >= 0.4 && entropy(s) >= 3.5
}

// charClass is 0 for an upper-case letter, 1 for a lower-case letter, 2
// for a digit and -1 for anything else.
func charClass(r rune) int {
	switch {
	case unicode.IsUpper(r):
		return 0
	case unicode.IsLower(r):
		return 1
	case unicode.IsDigit(r):
		return 2
	}
	return -1
}

// entropy is the Shannon entropy of s in bits per character.
func entropy(s string) float64 {
	counts := map[rune]int{}
	n := 0
	for _, r := range s {
		counts[r]++
		n++
	}
	var h float64
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h
}

// redact shows enough of a suspected value to find it, and no more.
func redact(s string) string {
	runes := []rune(s)
	if len(runes) <= 8 {
		return "…(" + strconv.Itoa(len(runes)) + " characters)"
	}
	return string(runes[:4]) + "…(" + strconv.Itoa(len(runes)) + " characters)"
}
