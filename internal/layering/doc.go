// Package layering holds the tests that keep the repository's shape: which
// packages are public, that no public API mentions an internal type, and
// which layers may import which (see docs/architecture.md).
package layering
