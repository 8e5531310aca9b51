package serverjson

import (
	"fmt"
	"regexp"
	"strings"
)

// namePattern is the schema's pattern for ServerDetail.name; maxNameLen
// its maxLength (the pattern admits ASCII only, so bytes equal characters).
const (
	namePattern = `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`
	maxNameLen  = 200
)

var nameRE = regexp.MustCompile(namePattern)

// ValidName reports whether name is a server name the schema accepts:
// "namespace/server" matching ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$ and at most
// 200 characters long, such as "io.github.acme/weather".
func ValidName(name string) bool {
	return len(name) <= maxNameLen && nameRE.MatchString(name)
}

// Namespace returns the part of a server name before the slash, such as
// "io.github.acme" for "io.github.acme/weather". It fails with an error
// matching ErrInvalidName when ValidName(name) is false.
func Namespace(name string) (string, error) {
	if !ValidName(name) {
		return "", fmt.Errorf("%w: got %q", ErrInvalidName, name)
	}
	ns, _, _ := strings.Cut(name, "/")
	return ns, nil
}
