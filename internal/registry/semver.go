package registry

import "github.com/Masterminds/semver/v3"

// higherVersion reports whether version a sorts above b: semantic versions by
// precedence, above any non-semver string; two non-semver strings by bytes.
func higherVersion(a, b string) bool {
	va, ea := semver.StrictNewVersion(a)
	vb, eb := semver.StrictNewVersion(b)
	switch {
	case ea == nil && eb == nil:
		return va.GreaterThan(vb)
	case ea == nil:
		return true
	case eb == nil:
		return false
	}
	return a > b
}

// latestOf returns the highest of versions, or "".
func latestOf(versions []string) string {
	best := ""
	for _, v := range versions {
		if best == "" || higherVersion(v, best) {
			best = v
		}
	}
	return best
}
