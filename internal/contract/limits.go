package contract

// Limits bound the resources spent reading a contract document. A zero or
// negative field means its default.
type Limits struct {
	// MaxBytes is the largest accepted document; default 64 KiB.
	MaxBytes int
	// MaxDepth is the deepest accepted nesting of objects and arrays (the
	// document itself has depth 1); default 16. Valid contracts nest 4
	// deep.
	MaxDepth int
}

// Defaults of Limits.
const (
	DefaultMaxBytes = 64 << 10
	DefaultMaxDepth = 16
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}
