package attest

import (
	"fmt"
	"regexp/syntax"
)

// checkAnchored wants a valid regexp that can only match a whole value.
// sigstore-go matches regexps as substrings, so "https://github.com/acme/"
// would also accept "https://evil.example/?https://github.com/acme/".
// Anchored means every way through the pattern starts at ^ and ends at $
// (not the multi-line (?m) forms): "^a|b$" is rejected, "^(?:a|b)$" is not.
func checkAnchored(pattern string) error {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return fmt.Errorf("invalid regexp: %w", err)
	}
	if !anchoredStart(re) || !anchoredEnd(re) {
		return fmt.Errorf("regexp %q must be anchored as ^...$ (sigstore matches substrings)", pattern)
	}
	return nil
}

func anchoredStart(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText:
		return true
	case syntax.OpConcat:
		return len(re.Sub) > 0 && anchoredStart(re.Sub[0])
	case syntax.OpCapture:
		return anchoredStart(re.Sub[0])
	case syntax.OpAlternate:
		return allSubs(re, anchoredStart)
	}
	return false
}

func anchoredEnd(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEndText:
		return true
	case syntax.OpConcat:
		return len(re.Sub) > 0 && anchoredEnd(re.Sub[len(re.Sub)-1])
	case syntax.OpCapture:
		return anchoredEnd(re.Sub[0])
	case syntax.OpAlternate:
		return allSubs(re, anchoredEnd)
	}
	return false
}

func allSubs(re *syntax.Regexp, pred func(*syntax.Regexp) bool) bool {
	for _, sub := range re.Sub {
		if !pred(sub) {
			return false
		}
	}
	return len(re.Sub) > 0
}
