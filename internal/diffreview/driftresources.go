package diffreview

import (
	"github.com/mcpreg/mcpreg/pin"
)

// resourceTextMembers are the members of a resource or template besides
// its key that pin v2 covers.
var resourceTextMembers = []string{"name", "title", "description", "mimeType"}

// setResource records a resource's uri or a template's uriTemplate.
func setResource(c *Change, key string) { c.Resource = key }

// Resources added or removed are their own classes (lists are often
// data); templates are capabilities, so every template change is
// resource_changed.
var (
	resources = entryKind{label: "resource", added: ClassResourceAdded, removed: ClassResourceRemoved,
		compare: compareResources, set: setResource}
	resourceTemplates = entryKind{label: "resource template", added: ClassResourceChanged, removed: ClassResourceChanged,
		compare: compareResources, set: setResource}
)

// resourcesDrift compares the resources of two lists by uri and their
// resource templates by uriTemplate.
func resourcesDrift(a, b *pin.ToolsList) []Change {
	res := func(r pin.Resource) (string, []byte) { return r.URI, r.Raw }
	tpl := func(t pin.ResourceTemplate) (string, []byte) { return t.URITemplate, t.Raw }
	out := entriesDrift(resources, projectByKey(a.Resources, resourceMembers, res), projectByKey(b.Resources, resourceMembers, res))
	return append(out, entriesDrift(resourceTemplates,
		projectByKey(a.ResourceTemplates, templateMembers, tpl), projectByKey(b.ResourceTemplates, templateMembers, tpl))...)
}

// compareResources lists the changed members of a resource or template,
// each with a word diff.
func compareResources(a, b projection) []Change {
	if cs, unreadable := unreadableChange(ClassResourceChanged, "resource", a, b); unreadable {
		return cs
	}
	var out []Change
	for _, m := range resourceTextMembers {
		out = append(out, textChange(ClassResourceChanged, m, a, b)...)
	}
	return out
}
