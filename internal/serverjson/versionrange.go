package serverjson

import (
	"fmt"
	"strings"
)

// rangeForm names the kind of version range v is, such as `comparator ">="`
// or "hyphen range", or returns "" when v may name one release. Versions
// need not be semantic ("2024.01.15", "v1.2", "1.0.0-rc.1" are single
// versions); what is refused is range syntax over version-like operands:
//   - alternatives: two or more ranges or versions joined by "||";
//   - a hyphen range: a version, whitespace, "-", a version;
//   - comparators: whitespace-separated terms, each an operator (^ ~ ~> ~=
//     = == != < <= > >=) before a version, such as "^1.2" or ">=1 <2";
//   - a wildcard: a version with a component x, X or *, such as "1.x" or
//     "1.2.*", or one of those alone.
//
// Surrounding whitespace is ignored. This covers every form the official
// registry refuses and, beyond it, comparator sets, operators before
// wildcard versions and a lone wildcard.
func rangeForm(v string) string {
	t := strings.TrimSpace(v)
	if t == "" {
		return ""
	}
	if alts := strings.Split(t, "||"); len(alts) > 1 && allRangeTerms(alts) {
		return `alternatives joined by "||"`
	}
	if isHyphenRange(t) {
		return "hyphen range"
	}
	if op := comparatorSet(t); op != "" {
		return fmt.Sprintf("comparator %q", op)
	}
	if ok, wild := partialVersion(t); ok && wild != "" {
		return fmt.Sprintf("wildcard %q", wild)
	}
	return ""
}

// allRangeTerms reports whether every alternative of a "||" list is a
// version or a range.
func allRangeTerms(alts []string) bool {
	for _, a := range alts {
		a = strings.TrimSpace(a)
		if ok, _ := partialVersion(a); !ok && !isHyphenRange(a) && comparatorSet(a) == "" {
			return false
		}
	}
	return true
}

// isHyphenRange reports whether t is "A - B" (or "A -B") for versions A
// and B.
func isHyphenRange(t string) bool {
	f := strings.Fields(t)
	var lo, hi string
	switch {
	case len(f) == 3 && f[1] == "-":
		lo, hi = f[0], f[2]
	case len(f) == 2 && strings.HasPrefix(f[1], "-"):
		lo, hi = f[0], f[1][1:]
	default:
		return false
	}
	okLo, _ := partialVersion(lo)
	okHi, _ := partialVersion(hi)
	return okLo && okHi
}

// operators are the comparison operators of npm, Ruby and PEP 440 ranges,
// two-character ones first so that ">=" is not read as ">".
var operators = []string{">=", "<=", "~>", "~=", "==", "!=", "^", "~", ">", "<", "="}

// comparatorSet returns the first operator of t when t is one or more
// whitespace-separated comparators (an operator, optionally followed by
// whitespace, then a version), and "" otherwise.
func comparatorSet(t string) string {
	f := strings.Fields(t)
	first := ""
	for i := 0; i < len(f); i++ {
		op, operand := splitOperator(f[i])
		if op == "" {
			return ""
		}
		if operand == "" { // ">= 1.0.0": the version is the next field
			if i+1 == len(f) {
				return ""
			}
			i++
			operand = f[i]
		}
		if ok, _ := partialVersion(operand); !ok {
			return ""
		}
		if first == "" {
			first = op
		}
	}
	return first
}

func splitOperator(s string) (op, rest string) {
	for _, o := range operators {
		if strings.HasPrefix(s, o) {
			return o, s[len(o):]
		}
	}
	return "", s
}

// partialVersion reports whether s is version-like: an optional "v" or
// "V", one to four dot-separated components each all digits or one of x,
// X, *, then optionally "-" and a pre-release and "+" and build metadata
// (letters, digits, "." and "-"). wild is the first wildcard component, or
// "" when there is none.
func partialVersion(s string) (ok bool, wild string) {
	if s != "" && (s[0] == 'v' || s[0] == 'V') {
		s = s[1:]
	}
	s, build, hasBuild := strings.Cut(s, "+")
	if hasBuild && !identifierChars(build) {
		return false, ""
	}
	s, pre, hasPre := strings.Cut(s, "-")
	if hasPre && !identifierChars(pre) {
		return false, ""
	}
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return false, ""
	}
	for _, p := range parts {
		switch {
		case p == "x" || p == "X" || p == "*":
			if wild == "" {
				wild = p
			}
		case p == "" || strings.Trim(p, "0123456789") != "":
			return false, ""
		}
	}
	return true, wild
}

// identifierChars reports whether s is non-empty and only ASCII letters,
// digits, "." and "-".
func identifierChars(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIIAlnum(s[i]) && s[i] != '.' && s[i] != '-' {
			return false
		}
	}
	return true
}
