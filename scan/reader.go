package scan

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/pin"
)

// Reader reads live MCP servers under fixed limits. It is safe for
// concurrent use; each Read is independent.
type Reader struct {
	limits Limits
	allow  AllowList
}

// NewReader returns a Reader with lim (zero fields take their defaults) that
// lets HTTP scans dial the restricted addresses allow names.
func NewReader(lim Limits, allow AllowList) (*Reader, error) {
	if err := lim.Verify(); err != nil {
		return nil, err
	}
	return &Reader{limits: lim.withDefaults(), allow: allow}, nil
}

// Limits returns the reader's limits with defaults filled in.
func (r *Reader) Limits() Limits { return r.limits }

// Target is a server to read: a StdioTarget or an HTTPTarget.
type Target interface {
	// open prepares a connection for s; the scan closes it with link.close.
	open(ctx context.Context, s *session) (*link, error)
}

// Snapshot is what a server served during one scan.
type Snapshot struct {
	// ProtocolVersion, ServerInfo and Instructions come from the raw
	// initialize result. ServerInfo is the raw "serverInfo" value (nil when
	// absent).
	ProtocolVersion string          `json:"protocolVersion"`
	ServerInfo      json.RawMessage `json:"serverInfo,omitempty"`
	// Instructions is nil when the member is absent or null;
	// InstructionsPresent tells those apart from each other ("" is a
	// string, and pins differently from absent).
	Instructions        *string `json:"instructions"`
	InstructionsPresent bool    `json:"instructionsPresent"`
	// InitializeResult is the raw initialize result.
	InitializeResult json.RawMessage `json:"initializeResult,omitempty"`

	// Tools, ToolsFile, Pins and Pages describe the first listing.
	// ToolsFile is a tools file as the pin specification defines it
	// ({"tools":[...]} plus "instructions" when the server sent them), built
	// from the raw bytes of every tool of every page without re-encoding;
	// pin.ParseToolsList and pin.Compute reproduce Tools and Pins from it.
	Tools     *pin.ToolsList  `json:"-"`
	ToolsFile json.RawMessage `json:"toolsFile,omitempty"`
	Pins      pin.Pins        `json:"pins"`
	Pages     int             `json:"pages"`
	// Lists counts the listings; Listings holds each of them. More than one
	// distinct listing is a scan.list_inconsistent finding.
	Lists    int               `json:"lists"`
	Listings []Listing         `json:"listings"`
	Findings []finding.Finding `json:"findings"`

	// Stderr is the start of a stdio server's standard error (at most
	// Limits.MaxStderrBytes); StderrTruncated says more was dropped.
	Stderr          string        `json:"stderr,omitempty"`
	StderrTruncated bool          `json:"stderrTruncated,omitempty"`
	Duration        time.Duration `json:"-"`

	instructionsJSON []byte // the raw "instructions" string
}

// Listing is one complete tools/list walk over all pages.
type Listing struct {
	Tools     *pin.ToolsList  `json:"-"`
	ToolsFile json.RawMessage `json:"toolsFile"`
	Pins      pin.Pins        `json:"pins"`
	Pages     int             `json:"pages"`
}

// Read starts or connects to the server t names, initializes an MCP session
// with a fixed client profile, lists its tools Limits.Lists times (following
// nextCursor) and stops the server. The returned Snapshot is never nil: on
// error it still carries Stderr and Duration for diagnostics, and what was
// read before the failure, but no Tools or Pins.
func (r *Reader) Read(ctx context.Context, t Target) (*Snapshot, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, r.limits.Deadline)
	defer cancel()
	s := newSession(r.limits, r.allow)
	snap := &Snapshot{}
	l, err := t.open(ctx, s)
	if err == nil {
		err = withSandboxLimit(s.run(ctx, l, snap), l)
		snap.Stderr, snap.StderrTruncated = l.stderr()
	}
	snap.Duration = time.Since(start)
	if err != nil {
		snap.Tools, snap.ToolsFile, snap.Pins = nil, nil, pin.Pins{}
	}
	return snap, err
}
