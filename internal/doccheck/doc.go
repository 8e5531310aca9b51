// Package doccheck holds the tests of the repository's documentation: every
// relative link in a Markdown file resolves to a file inside the
// repository, and the README's first steps run as written.
package doccheck
