// Package pkgref validates the package references a server.json names
// (identifier and version, per registry type) before anything uses them to
// build a command line or a URL. A submitted identifier is hostile input:
// one that starts with "-" is an option to the tool it is handed to.
package pkgref
