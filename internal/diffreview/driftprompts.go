package diffreview

import (
	"fmt"

	"github.com/mcpreg/mcpreg/pin"
)

// entryKind describes the items of one pin v2 list: prompts, resources or
// resource templates, compared by name, uri or uriTemplate.
type entryKind struct {
	label          string // "prompt", "resource", "resource template"
	added, removed Class
	// compare lists the changes of an item present on both sides.
	compare func(a, b projection) []Change
	// set records the item's key in a change.
	set func(c *Change, key string)
}

// entriesDrift compares the items of one list by key. Changes to an item
// are prefixed with its label and key, like `prompt "x": description
// changed`.
func entriesDrift(k entryKind, before, after map[string]projection) []Change {
	var out []Change
	for _, key := range unionNames(before, after) {
		label := fmt.Sprintf("%s %q", k.label, key)
		pa, inA := before[key]
		pb, inB := after[key]
		var cs []Change
		switch {
		case !inA:
			cs = []Change{{Class: k.added, After: Visible(pb.text()), Message: label + " added"}}
		case !inB:
			cs = []Change{{Class: k.removed, Before: Visible(pa.text()), Message: label + " removed"}}
		default:
			cs = k.compare(pa, pb)
			prefix(cs, label)
		}
		for i := range cs {
			k.set(&cs[i], key)
		}
		out = append(out, cs...)
	}
	return out
}

// prefix puts label before the message of each change.
func prefix(cs []Change, label string) {
	for i := range cs {
		cs[i].Message = label + ": " + cs[i].Message
	}
}

// prompts compares prompts by name.
var prompts = entryKind{label: "prompt", added: ClassPromptAdded, removed: ClassPromptRemoved,
	compare: comparePrompts, set: func(c *Change, key string) { c.Prompt = key }}

// promptsDrift compares the prompts of two lists by name. A prompt that
// disappears while a similar one appears is one removed and one added:
// prompts are not paired as renames.
func promptsDrift(a, b []pin.Prompt) []Change {
	parts := func(p pin.Prompt) (string, []byte) { return p.Name, p.Raw }
	return entriesDrift(prompts, projectByKey(a, promptMembers, parts), projectByKey(b, promptMembers, parts))
}

// comparePrompts lists the changes between two versions of one prompt.
func comparePrompts(a, b projection) []Change {
	if cs, unreadable := unreadableChange(ClassPromptMessagesChanged, "prompt", a, b); unreadable {
		return cs
	}
	out := textChange(ClassPromptDescriptionChanged, "description", a, b)
	out = append(out, textChange(ClassPromptDescriptionChanged, "title", a, b)...)
	out = append(out, argumentsDrift(a, b)...)
	return append(out, messagesDrift(a, b)...)
}

// messagesDrift reports changed messages with a word diff of the text the
// model reads (see messagesText). The pointer names the one value that
// changed, if only one did; a change outside the text also carries the
// structural diff, which alone shows it.
func messagesDrift(a, b projection) []Change {
	p, changed := pair("messages", a, b)
	if !changed {
		return nil
	}
	before, after := messagesText(p.before), messagesText(p.after)
	c := Change{Class: ClassPromptMessagesChanged, Pointer: "/messages", Before: Visible(before), After: Visible(after),
		Message: "messages " + p.verb(), Words: DescriptionDiff(before, after)}
	schema := SchemaDiff(p.before, p.after)
	if len(schema) == 1 {
		c.Pointer += schema[0].Pointer
	}
	switch {
	case p.inA && p.inB && before == after:
		c.Message = "messages changed outside their text (content type, data, or metadata)"
		c.Schema = schema
	case p.inA && p.inB:
		c.Message = "the text of its messages changed"
	}
	return []Change{c}
}
