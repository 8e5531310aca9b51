package domain

import "regexp"

var (
	namespaceRE     = regexp.MustCompile(`^[a-zA-Z0-9.-]+$`)
	principalNameRE = regexp.MustCompile(`^[a-zA-Z0-9._@-]{1,128}$`)
	labelRE         = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,63}$`)
)

// ValidPrincipalName reports whether name is 1-128 letters, digits and
// . _ @ -.
func ValidPrincipalName(name string) bool { return principalNameRE.MatchString(name) }

// ValidLabel reports whether l is an environment label: 1-63 letters,
// digits and . _ -.
func ValidLabel(l string) bool { return labelRE.MatchString(l) }
