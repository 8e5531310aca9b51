package scan

import (
	"fmt"
	"time"

	"github.com/mcpreg/mcpreg/pin"
)

// Limits bound what one scan may cost. A zero field means its default; a
// negative one is an error (see Verify).
type Limits struct {
	// Deadline bounds the whole scan: start, handshake, every listing and
	// shutdown. Default 60s.
	Deadline time.Duration
	// MaxResponseBytes caps one message from the server (a stdio line, a
	// JSON body, an SSE event). Default 4 MiB.
	MaxResponseBytes int64
	// MaxTotalBytes caps everything the server sends during the scan.
	// Default 32 MiB.
	MaxTotalBytes int64
	// MaxPages caps the pages of one listing: of the tools (tools/list),
	// prompts (prompts/list), resources (resources/list) or resource
	// templates (resources/templates/list). Default 50.
	MaxPages int
	// MaxTools caps the tools of one listing, over all its pages. Default 1000.
	MaxTools int
	// MaxPrompts caps the prompts prompts/list lists, over all its pages;
	// each prompt without required arguments costs two prompts/get calls.
	// Default 1000.
	MaxPrompts int
	// MaxResources caps the resources resources/list lists, and the
	// templates resources/templates/list lists, each over all its pages.
	// Default 1000.
	MaxResources int
	// MaxSchemaDepth caps the nesting depth of a result (initialize,
	// server/discover, a list, prompts/get): the result object is depth 1,
	// so a tool's inputSchema object is depth 4. Default 64.
	MaxSchemaDepth int
	// Lists is how many times each scan lists the tools; different listings
	// are a finding. Default and minimum 2.
	Lists int
	// MaxStderrBytes caps the standard error of a stdio server kept for
	// diagnostics; the rest is read and dropped. Default 64 KiB.
	MaxStderrBytes int
}

// Defaults.
const (
	DefaultDeadline         = 60 * time.Second
	DefaultMaxResponseBytes = 4 << 20
	DefaultMaxTotalBytes    = 32 << 20
	DefaultMaxPages         = 50
	DefaultMaxTools         = 1000
	DefaultMaxPrompts       = 1000
	DefaultMaxResources     = 1000
	DefaultMaxSchemaDepth   = 64
	DefaultLists            = 2
	DefaultMaxStderrBytes   = 64 << 10
)

// Verify reports the first field that is negative, or Lists set to 1.
func (l Limits) Verify() error {
	fields := []struct {
		name  string
		value int64
	}{
		{"Deadline", int64(l.Deadline)}, {"MaxResponseBytes", l.MaxResponseBytes},
		{"MaxTotalBytes", l.MaxTotalBytes}, {"MaxPages", int64(l.MaxPages)},
		{"MaxTools", int64(l.MaxTools)}, {"MaxPrompts", int64(l.MaxPrompts)},
		{"MaxResources", int64(l.MaxResources)}, {"MaxSchemaDepth", int64(l.MaxSchemaDepth)},
		{"Lists", int64(l.Lists)}, {"MaxStderrBytes", int64(l.MaxStderrBytes)},
	}
	for _, f := range fields {
		if f.value < 0 {
			return fmt.Errorf("scan: limit %s is negative (%d)", f.name, f.value)
		}
	}
	if l.Lists == 1 {
		return fmt.Errorf("scan: limit Lists is 1: a scan lists at least %d times", DefaultLists)
	}
	return nil
}

// withDefaults replaces zero fields by their defaults.
func (l Limits) withDefaults() Limits {
	l.Deadline = orDefault(l.Deadline, DefaultDeadline)
	l.MaxResponseBytes = orDefault(l.MaxResponseBytes, DefaultMaxResponseBytes)
	l.MaxTotalBytes = orDefault(l.MaxTotalBytes, DefaultMaxTotalBytes)
	l.MaxPages = orDefault(l.MaxPages, DefaultMaxPages)
	l.MaxTools = orDefault(l.MaxTools, DefaultMaxTools)
	l.MaxPrompts = orDefault(l.MaxPrompts, DefaultMaxPrompts)
	l.MaxResources = orDefault(l.MaxResources, DefaultMaxResources)
	l.MaxSchemaDepth = orDefault(l.MaxSchemaDepth, DefaultMaxSchemaDepth)
	l.Lists = orDefault(l.Lists, DefaultLists)
	l.MaxStderrBytes = orDefault(l.MaxStderrBytes, DefaultMaxStderrBytes)
	return l
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// resultLimits are the pin limits for one result from the server.
func (l Limits) resultLimits() pin.Limits {
	return pin.Limits{MaxBytes: int(l.MaxResponseBytes), MaxDepth: l.MaxSchemaDepth, MaxTools: l.MaxTools}
}

// listLimits are the pin limits for the combined tools file of a listing,
// whose size is already bounded by MaxTotalBytes.
func (l Limits) listLimits(size int) pin.Limits {
	return pin.Limits{MaxBytes: size + 1, MaxDepth: l.MaxSchemaDepth, MaxTools: l.MaxTools}
}
