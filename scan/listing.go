package scan

import (
	"bytes"
	"context"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/pin"
)

// page is one strictly read tools/list result.
type page struct {
	tools      []pin.Tool
	nextCursor string // "" when absent, null or empty: the last page
}

// listing walks every page of one tools/list, number n of the scan.
func (s *session) listing(ctx context.Context, cs *mcp.ClientSession, n int, snap *Reading) (Listing, error) {
	var tools []pin.Tool
	seen := map[string]int{}
	cursor := ""
	for pages := 1; ; pages++ {
		if pages > s.lim.MaxPages {
			return Listing{}, limitError("MaxPages", int64(s.lim.MaxPages), fmt.Sprintf("listing %d has more pages", n))
		}
		p, err := s.page(ctx, cs, cursor, fmt.Sprintf("tools/list listing %d page %d", n, pages))
		if err != nil {
			return Listing{}, err
		}
		if tools = append(tools, p.tools...); len(tools) > s.lim.MaxTools {
			return Listing{}, limitError("MaxTools", int64(s.lim.MaxTools), fmt.Sprintf("listing %d has more tools", n))
		}
		if p.nextCursor == "" {
			return s.combine(tools, pages, snap, n)
		}
		if first, ok := seen[p.nextCursor]; ok {
			return Listing{}, fmt.Errorf("%w: listing %d: page %d repeats the nextCursor %q of page %d (a cursor loop)",
				ErrProtocol, n, pages, abbreviate(p.nextCursor), first)
		}
		seen[p.nextCursor], cursor = pages, p.nextCursor
	}
}

// page calls tools/list once and reads the raw result strictly.
func (s *session) page(ctx context.Context, cs *mcp.ClientSession, cursor, what string) (page, error) {
	if _, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor}); err != nil {
		return page{}, s.failed(ctx, methodListTools, err)
	}
	raw, err := s.answer(ctx, methodListTools)
	if err != nil {
		return page{}, err
	}
	p, err := parsePage(raw, s.lim)
	if err != nil {
		return page{}, fmt.Errorf("%s: %w", what, err)
	}
	return p, nil
}

// parsePage reads a tools/list result: its "tools" go through
// pin.ParseToolsList as {"tools":[...]}, "nextCursor" must be a string or
// null, other members are ignored.
func parsePage(result []byte, lim Limits) (page, error) {
	var p page
	ms, err := members(result)
	if err != nil {
		return p, err
	}
	if p.nextCursor, err = optionalString(ms, "nextCursor"); err != nil {
		return p, err
	}
	tools, ok := ms["tools"]
	if !ok {
		return p, fmt.Errorf("%w: the tools/list result has no \"tools\" member", ErrInvalid)
	}
	doc := append(append([]byte(`{"tools":`), tools...), '}')
	list, err := pin.ParseToolsList(doc, lim.resultLimits())
	if err != nil {
		return p, fromPin("tools/list result", err)
	}
	p.tools = list.Tools
	return p, nil
}

// combine builds a listing from the tools of all its pages: a tools file of
// their raw bytes, read strictly again (names must be unique across pages)
// and pinned.
func (s *session) combine(tools []pin.Tool, pages int, snap *Reading, n int) (Listing, error) {
	doc := toolsFile(tools, snap.instructionsRaw())
	list, err := pin.ParseToolsList(doc, s.lim.listLimits(len(doc)))
	if err != nil {
		return Listing{}, fromPin(fmt.Sprintf("listing %d", n), err)
	}
	pins, err := pin.Compute(list)
	if err != nil {
		return Listing{}, fromPin(fmt.Sprintf("listing %d", n), err)
	}
	return Listing{Tools: list, ToolsFile: doc, Pins: pins, Pages: pages}, nil
}

// members returns the members of the JSON object v, which the recorder has
// read strictly, by name.
func members(v []byte) (map[string]jsontext.Value, error) {
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if d.PeekKind() != '{' {
		return nil, fmt.Errorf("%w: a result must be an object, got %s", ErrInvalid, d.PeekKind())
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	ms := map[string]jsontext.Value{}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		name := tok.String() // before the next read voids tok
		val, err := d.ReadValue()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		ms[name] = bytes.Clone(val) // the decoder reuses its buffer
	}
	return ms, nil
}

// optionalString returns the string member name of ms; "" when absent or
// null.
func optionalString(ms map[string]jsontext.Value, name string) (string, error) {
	v, ok := ms[name]
	if !ok || v.Kind() == 'n' {
		return "", nil
	}
	if v.Kind() != '"' {
		return "", fmt.Errorf("%w: %q must be a string, got %s at /%s", ErrInvalid, name, v.Kind(), name)
	}
	return unquoted(v), nil
}

// abbreviate shortens s for an error message.
func abbreviate(s string) string {
	const maxLen = 64
	if len(s) <= maxLen {
		return s
	}
	return s[:maxLen] + "…"
}
