package registry

import "regexp"

var (
	namespaceRE     = regexp.MustCompile(`^[a-zA-Z0-9.-]+$`)
	principalNameRE = regexp.MustCompile(`^[a-zA-Z0-9._@-]{1,128}$`)
	labelRE         = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,63}$`)
	serverNameRE    = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	// versionRE keeps versions usable as one URL path segment.
	versionRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9.+_~-]{0,254}$`)
)
