package registry

import "regexp"

var (
	serverNameRE = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	// versionRE keeps versions usable as one URL path segment.
	versionRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9.+_~-]{0,254}$`)
)
