package scan

import (
	"context"
	"encoding/json"
	"errors"
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
//
// A scan reads the server over each protocol version it speaks
// (Readings): 2026-07-28 (server/discover; stateless) and 2025-11-25
// (initialize). The snapshot's own fields are those of the primary
// reading: 2025-11-25 when the server speaks it, else 2026-07-28. A tool
// list, instructions, or a list of prompts, resources or resource
// templates that differ by protocol version are a scan.protocol_variance
// finding.
type Snapshot struct {
	// ProtocolVersion, ServerInfo and Instructions come from the raw
	// initialize (or server/discover) result. ServerInfo is the raw
	// "serverInfo" value (nil when absent; under 2026-07-28 the result's
	// _meta serverInfo).
	ProtocolVersion string          `json:"protocolVersion"`
	ServerInfo      json.RawMessage `json:"serverInfo,omitempty"`
	// Instructions is nil when the member is absent or null;
	// InstructionsPresent tells those apart from each other ("" is a
	// string, and pins differently from absent).
	Instructions        *string `json:"instructions"`
	InstructionsPresent bool    `json:"instructionsPresent"`
	// InitializeResult is the raw initialize (or server/discover) result.
	InitializeResult json.RawMessage `json:"initializeResult,omitempty"`
	// Readings are the server as read over each protocol version, the
	// primary one first.
	Readings []Reading `json:"readings,omitempty"`

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

	// Prompts, Resources and ResourceTemplates are the primary reading's
	// (see Reading); ModelFile joins them with the tools.
	Prompts           []json.RawMessage `json:"prompts,omitempty"`
	Resources         []json.RawMessage `json:"resources,omitempty"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates,omitempty"`

	// Auth is the OAuth metadata an HTTP server publishes (RFC 9728, and
	// RFC 8414 for its authorization servers), read after its readings.
	// It is nil for other targets, for a server that publishes none, and
	// for one whose metadata cannot be read (an auth.* finding says why).
	Auth *AuthMetadata `json:"auth,omitempty"`

	// Stderr is the start of a stdio server's standard error (at most
	// Limits.MaxStderrBytes); StderrTruncated says more was dropped.
	Stderr          string        `json:"stderr,omitempty"`
	StderrTruncated bool          `json:"stderrTruncated,omitempty"`
	Duration        time.Duration `json:"-"`

	instructionsJSON []byte // the raw "instructions" string
}

// Reading is what the server served over one protocol version: the raw
// answer that opened the session, each listing of its tools, and its
// prompts, resources and resource templates.
type Reading struct {
	ProtocolVersion     string          `json:"protocolVersion"`
	ServerInfo          json.RawMessage `json:"serverInfo,omitempty"`
	Instructions        *string         `json:"instructions"`
	InstructionsPresent bool            `json:"instructionsPresent"`
	// Result is the raw initialize (2025-11-25) or server/discover
	// (2026-07-28) result.
	Result   json.RawMessage `json:"result,omitempty"`
	Listings []Listing       `json:"listings"`
	// ServerInfos are the distinct serverInfo values the reading saw: the
	// opening result's, and under 2026-07-28 each result's _meta one.
	ServerInfos []json.RawMessage `json:"serverInfos,omitempty"`

	// Prompts are the prompts of every prompts/list page, each object as
	// received; a prompt without required arguments has the "messages" of
	// its first prompts/get result (called without arguments) added as a
	// last member "messages". Resources and ResourceTemplates are the
	// objects of every resources/list and resources/templates/list page as
	// received. Each is nil when the server does not advertise its
	// capability ("prompts", "resources"), and is then not asked.
	Prompts           []json.RawMessage `json:"prompts,omitempty"`
	Resources         []json.RawMessage `json:"resources,omitempty"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates,omitempty"`

	instructionsJSON []byte
	caps             capabilities
	promptChanges    []promptChange // prompts whose two prompts/get reads differ
}

// Listing is one complete tools/list walk over all pages.
type Listing struct {
	Tools     *pin.ToolsList  `json:"-"`
	ToolsFile json.RawMessage `json:"toolsFile"`
	Pins      pin.Pins        `json:"pins"`
	Pages     int             `json:"pages"`
}

// Read starts or connects to the server t names and reads it over each
// protocol version it speaks (see Snapshot): for each, it opens a session
// with a fixed client profile, lists its tools Limits.Lists times
// (following nextCursor), reads its prompts and resources as far as its
// capabilities advertise them, and stops the server; for an HTTPTarget it
// then reads the server's OAuth metadata (Snapshot.Auth). Limits.Deadline
// covers the whole scan (every reading); the byte limits hold for each
// reading. The returned Snapshot is never nil: on error it still carries
// Stderr and Duration for diagnostics, and what was read before the
// failure, but no Tools or Pins.
func (r *Reader) Read(ctx context.Context, t Target) (*Snapshot, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, r.limits.Deadline)
	defer cancel()
	snap := &Snapshot{}
	err := r.readAll(ctx, t, snap)
	if err == nil {
		r.readAuth(ctx, t, snap)
	}
	snap.Duration = time.Since(start)
	if err != nil {
		snap.Tools, snap.ToolsFile, snap.Pins = nil, nil, pin.Pins{}
	}
	return snap, err
}

// readAll asks for 2026-07-28 first; a server that does not speak it
// answers the SDK's fallback initialize, and that reading is its only one
// (one that ignores server/discover is read again over 2025-11-25). A
// server that does speak it is read again over 2025-11-25, which it may
// refuse.
func (r *Reader) readAll(ctx context.Context, t Target, snap *Snapshot) error {
	first, err := r.reading(ctx, t, statelessVersion, snap)
	if errors.Is(err, errNoDiscover) {
		first, err = r.reading(ctx, t, legacyVersion, snap)
	}
	if err != nil {
		return err
	}
	readings := []Reading{*first}
	if first.ProtocolVersion >= statelessVersion {
		legacy, err := r.reading(ctx, t, legacyVersion, snap)
		switch {
		case err == nil:
			readings = []Reading{*legacy, *first}
		case !errors.Is(err, ErrProtocol):
			return err
		}
	}
	snap.setReadings(readings)
	return nil
}

// reading reads the server once over version (the one the client asks
// for; the SDK may fall back), keeping its standard error in snap.
func (r *Reader) reading(ctx context.Context, t Target, version string, snap *Snapshot) (*Reading, error) {
	s := newSession(r.limits, r.allow)
	rd := &Reading{}
	l, err := t.open(ctx, s)
	if err != nil {
		return nil, err
	}
	err = withSandboxLimit(s.run(ctx, l, version, rd), l)
	snap.addStderr(l.stderr())
	if err != nil {
		return nil, err
	}
	return rd, nil
}

// addStderr keeps a reading's standard error, within MaxStderrBytes in
// all.
func (snap *Snapshot) addStderr(text string, truncated bool) {
	if text == "" {
		snap.StderrTruncated = snap.StderrTruncated || truncated
		return
	}
	if snap.Stderr != "" {
		snap.Stderr += "\n"
	}
	snap.Stderr += text
	snap.StderrTruncated = snap.StderrTruncated || truncated
}
