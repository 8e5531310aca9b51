// Package diffreview will compute what reviewers read: word-level
// description diffs, structural schema diffs by JSON pointer and invisible
// characters made visible (live-scanning and web UI issues).
package diffreview
