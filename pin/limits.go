package pin

import "math"

// Limits bound the resources spent reading untrusted input. A zero or
// negative field means its default (see DefaultLimits).
type Limits struct {
	// MaxBytes is the largest accepted input, in bytes.
	MaxBytes int
	// MaxDepth is the deepest accepted nesting of objects and arrays; the
	// top-level value has depth 1.
	MaxDepth int
	// MaxTools is the largest accepted number of tools in a tools file. It
	// also bounds its prompts, its resources and its resource templates,
	// each counted on its own.
	MaxTools int
}

const (
	defaultMaxBytes = 4 << 20
	defaultMaxDepth = 64
	defaultMaxTools = 1000
)

// DefaultLimits returns 4 MiB, depth 64 and 1000 tools.
func DefaultLimits() Limits {
	return Limits{MaxBytes: defaultMaxBytes, MaxDepth: defaultMaxDepth, MaxTools: defaultMaxTools}
}

// withDefaults replaces zero and negative fields by their defaults.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxTools <= 0 {
		l.MaxTools = d.MaxTools
	}
	return l
}

// unlimited keeps the strictness rules but no resource bounds; hashing uses
// it on bytes that were bounded when they were first read.
var unlimited = Limits{MaxBytes: math.MaxInt, MaxDepth: math.MaxInt, MaxTools: math.MaxInt}
