// Package web will hold the reviewer web UI: server-rendered templates and
// assets embedded in the binary (web UI issue).
package web
