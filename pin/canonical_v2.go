package pin

import (
	"slices"
	"strconv"
	"strings"
)

// Members of a prompt, a resource and a resource template that the v2 pins
// cover. A prompt with a required argument never carries "messages".
var (
	promptProjected   = []string{"name", "title", "description", "arguments", "messages"}
	resourceProjected = []string{"uri", "name", "title", "description", "mimeType"}
	templateProjected = []string{"uriTemplate", "name", "title", "description", "mimeType"}
)

// canonicalEntry holds the JCS projection of one prompt, resource or
// resource template.
type canonicalEntry struct {
	index      int    // position in its array as received
	key        string // name, uri or uriTemplate
	projection []byte
}

// canonicalListV2 holds every JCS text the v2 pins of a tools list hash.
type canonicalListV2 struct {
	*canonicalList                  // the v1 texts, unchanged
	prompts        []canonicalEntry // each sorted by key, byte order
	resources      []canonicalEntry
	templates      []canonicalEntry
}

// canonicalizeV2 prepares the v1 texts and every prompt, resource and
// resource template of l.
func canonicalizeV2(l *ToolsList) (*canonicalListV2, error) {
	v1, err := canonicalize(l)
	if err != nil {
		return nil, err
	}
	c := &canonicalListV2{canonicalList: v1}
	c.prompts, err = canonicalEntries(l.Prompts, promptsList, promptProjected, func(p Prompt) (string, []byte) { return p.Name, p.Raw })
	if err != nil {
		return nil, err
	}
	c.resources, err = canonicalEntries(l.Resources, resourcesList, resourceProjected, func(r Resource) (string, []byte) { return r.URI, r.Raw })
	if err != nil {
		return nil, err
	}
	c.templates, err = canonicalEntries(l.ResourceTemplates, templatesList, templateProjected,
		func(t ResourceTemplate) (string, []byte) { return t.URITemplate, t.Raw })
	return c, err
}

// canonicalEntries reads the Raw bytes of every item of the array s
// describes again, checks them against the item's key, projects them onto
// keep and sorts them by key.
func canonicalEntries[T any](items []T, s listSpec, keep []string, parts func(T) (string, []byte)) ([]canonicalEntry, error) {
	es := make([]canonicalEntry, 0, len(items))
	for i, it := range items {
		key, raw := parts(it)
		ptr := "/" + s.member + "/" + strconv.Itoa(i)
		e, err := newCanonicalEntry(raw, s, keep)
		if err != nil {
			return nil, rebase(err, ptr)
		}
		if e.key != key {
			return nil, invalidf(pointerTo(ptr, s.key), -1, "%s %q differs from the %s %q in Raw", s.field, key, s.key, e.key)
		}
		e.index = i
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b canonicalEntry) int { return strings.Compare(a.key, b.key) })
	return es, checkUniqueEntries(es, s)
}

// newCanonicalEntry strictly reads one raw element of the array s describes
// and projects it onto keep.
func newCanonicalEntry(raw []byte, s listSpec, keep []string) (canonicalEntry, error) {
	if err := validate(raw, unlimited); err != nil {
		return canonicalEntry{}, err
	}
	e, err := readElement(raw, s, "", -1)
	if err != nil {
		return canonicalEntry{}, err
	}
	proj, err := canonicalJSON(subset(e.members, keep))
	return canonicalEntry{key: e.key, projection: proj}, err
}

// checkUniqueEntries rejects two entries with the same key; es must be
// sorted.
func checkUniqueEntries(es []canonicalEntry, s listSpec) error {
	for i := 1; i < len(es); i++ {
		a, b := es[i-1], es[i]
		if a.key == b.key {
			first, second := min(a.index, b.index), max(a.index, b.index)
			return invalidf(pointerTo("/"+s.member+"/"+strconv.Itoa(second), s.key), -1,
				"duplicate %s %s %q (%s %d and %d)", s.singular, s.key, a.key, s.plural, first, second)
		}
	}
	return nil
}

// projectionOf returns the JCS projection of e.
func projectionOf(e canonicalEntry) []byte { return e.projection }

// promptsText returns JCS of the array of prompt projections sorted by name.
func (c *canonicalListV2) promptsText() []byte {
	return joinArray(c.prompts, projectionOf)
}

// resourcesText returns JCS of {"resourceTemplates":[...],"resources":[...]},
// each array of projections sorted by its key. JCS orders these two member
// names so: "resourceT" before "resources" ('T' < 's').
func (c *canonicalListV2) resourcesText() []byte {
	templates, resources := joinArray(c.templates, projectionOf), joinArray(c.resources, projectionOf)
	out := make([]byte, 0, len(templates)+len(resources)+40)
	out = append(out, `{"resourceTemplates":`...)
	out = append(out, templates...)
	out = append(out, `,"resources":`...)
	out = append(out, resources...)
	return append(out, '}')
}
