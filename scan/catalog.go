package scan

import (
	"bytes"
	"context"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A catalog is one of the lists a server offers beside its tools: its
// prompts, resources or resource templates. Each is read once per reading,
// over every page, when the server advertises its capability; every item
// is an object named by a string member that is unique in the list.
type catalog struct {
	method string // the list call
	member string // the result member holding the items
	key    string // the member naming an item
	noun   string // what an item is called in messages
	limit  string // the Limits field capping the items
	// projection are the members the pin specification pins
	// (mcpreg-pin-v2 rules 4 and 5); the others are kept, not compared.
	projection []string
	max        func(Limits) int // its value
	list       func(ctx context.Context, cs *mcp.ClientSession, cursor string) error
	// check applies further rules to an item with members ms at ptr, or
	// is nil.
	check func(ms map[string]jsontext.Value, ptr string) error
}

var (
	promptsCatalog = catalog{
		method: methodListPrompts, member: "prompts", key: "name", noun: "prompt",
		projection: []string{"name", "title", "description", "arguments", "messages"},
		limit:      "MaxPrompts", max: func(l Limits) int { return l.MaxPrompts },
		list: func(ctx context.Context, cs *mcp.ClientSession, cursor string) error {
			_, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			return err
		},
		check: checkPrompt,
	}
	resourcesCatalog = catalog{
		method: methodListResources, member: "resources", key: "uri", noun: "resource",
		projection: []string{"uri", "name", "title", "description", "mimeType"},
		limit:      "MaxResources", max: func(l Limits) int { return l.MaxResources },
		list: func(ctx context.Context, cs *mcp.ClientSession, cursor string) error {
			_, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			return err
		},
	}
	templatesCatalog = catalog{
		method: methodListTemplates, member: "resourceTemplates", key: "uriTemplate", noun: "resource template",
		projection: []string{"uriTemplate", "name", "title", "description", "mimeType"},
		limit:      "MaxResources", max: func(l Limits) int { return l.MaxResources },
		list: func(ctx context.Context, cs *mcp.ClientSession, cursor string) error {
			_, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			return err
		},
		check: checkTemplate,
	}
)

// catalogByMethod finds the catalog listed by method.
func catalogByMethod(method string) (catalog, bool) {
	for _, c := range []catalog{promptsCatalog, resourcesCatalog, templatesCatalog} {
		if c.method == method {
			return c, true
		}
	}
	return catalog{}, false
}

// item is one listed object, as received.
type item struct {
	key     string
	raw     jsontext.Value
	members map[string]jsontext.Value
}

// catalogPage is one strictly read page of a catalog.
type catalogPage struct {
	items      []item
	nextCursor string // "" when absent, null or empty: the last page
}

// walk reads every page of catalog c, following nextCursor under the same
// rules as the tools: at most MaxPages pages, no repeated cursor, at most
// c.max items in all, each key once.
func (s *session) walk(ctx context.Context, cs *mcp.ClientSession, c catalog) ([]item, error) {
	var items []item
	cursors, keys := map[string]int{}, map[string]int{}
	cursor := ""
	for pages := 1; ; pages++ {
		if pages > s.lim.MaxPages {
			return nil, limitError("MaxPages", int64(s.lim.MaxPages), c.method+" has more pages")
		}
		p, err := s.catalogPage(ctx, cs, c, cursor, pages)
		if err != nil {
			return nil, err
		}
		for i, it := range p.items {
			if first, dup := keys[it.key]; dup {
				return nil, fmt.Errorf("%s page %d: %w: %s %q at /%s/%d/%s is listed twice (first as %s %d of the listing)",
					c.method, pages, ErrInvalid, c.key, abbreviate(it.key), c.member, i, c.key, c.noun, first)
			}
			keys[it.key] = len(items)
			items = append(items, it)
		}
		if len(items) > c.max(s.lim) {
			return nil, limitError(c.limit, int64(c.max(s.lim)), fmt.Sprintf("%s lists more %ss", c.method, c.noun))
		}
		if p.nextCursor == "" {
			return items, nil
		}
		if first, ok := cursors[p.nextCursor]; ok {
			return nil, fmt.Errorf("%w: %s: page %d repeats the nextCursor %q of page %d (a cursor loop)",
				ErrProtocol, c.method, pages, abbreviate(p.nextCursor), first)
		}
		cursors[p.nextCursor], cursor = pages, p.nextCursor
	}
}

// catalogPage calls c's list method once and reads the raw result
// strictly.
func (s *session) catalogPage(ctx context.Context, cs *mcp.ClientSession, c catalog, cursor string, n int) (catalogPage, error) {
	if err := c.list(ctx, cs, cursor); err != nil {
		return catalogPage{}, fmt.Errorf("%s page %d: %w", c.method, n, s.failed(ctx, c.method, err))
	}
	raw, err := s.answer(ctx, c.method)
	if err != nil {
		return catalogPage{}, err
	}
	p, err := parseCatalogPage(raw, c)
	if err != nil {
		return catalogPage{}, fmt.Errorf("%s page %d: %w", c.method, n, err)
	}
	return p, nil
}

// parseCatalogPage reads a list result of catalog c: its items member must
// be an array of objects, each with a string key; "nextCursor" must be a
// string or null; other members are ignored.
func parseCatalogPage(result []byte, c catalog) (catalogPage, error) {
	var p catalogPage
	ms, err := members(result)
	if err != nil {
		return p, err
	}
	if p.nextCursor, err = optionalString(ms, "nextCursor"); err != nil {
		return p, err
	}
	list, ok := ms[c.member]
	if !ok {
		return p, fmt.Errorf("%w: the %s result has no %q member", ErrInvalid, c.method, c.member)
	}
	values, err := elements(list, "/"+c.member)
	if err != nil {
		return p, err
	}
	for i, v := range values {
		it, err := parseItem(v, c, fmt.Sprintf("/%s/%d", c.member, i))
		if err != nil {
			return p, err
		}
		p.items = append(p.items, it)
	}
	return p, nil
}

// parseItem reads the listed object v at ptr.
func parseItem(v jsontext.Value, c catalog, ptr string) (item, error) {
	if v.Kind() != '{' {
		return item{}, fmt.Errorf("%w: a %s must be an object, got %s at %s", ErrInvalid, c.noun, kindName(v.Kind()), ptr)
	}
	ms, err := members(v)
	if err != nil {
		return item{}, err
	}
	k, ok := ms[c.key]
	if !ok {
		return item{}, fmt.Errorf("%w: a %s must have a %q member at %s", ErrInvalid, c.noun, c.key, ptr)
	}
	if k.Kind() != '"' {
		return item{}, fmt.Errorf("%w: a %s's %q must be a string, got %s at %s/%s", ErrInvalid, c.noun, c.key, kindName(k.Kind()), ptr, c.key)
	}
	if c.check != nil {
		if err := c.check(ms, ptr); err != nil {
			return item{}, err
		}
	}
	return item{key: unquoted(k), raw: v, members: ms}, nil
}

// elements returns the values of the JSON array v found at ptr.
func elements(v jsontext.Value, ptr string) ([]jsontext.Value, error) {
	if v.Kind() != '[' {
		return nil, fmt.Errorf("%w: %s must be an array, got %s", ErrInvalid, ptr, kindName(v.Kind()))
	}
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := d.ReadToken(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	var out []jsontext.Value
	for d.PeekKind() != ']' {
		e, err := d.ReadValue()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		out = append(out, bytes.Clone(e)) // the decoder reuses its buffer
	}
	return out, nil
}

// kindName names a JSON kind for a message.
func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "nothing"
}
