package diffreview

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// argument is one element of a prompt's "arguments" array.
type argument struct {
	name  string
	index int // in the array as received
	proj  projection
}

// argumentsDrift reports changed prompt arguments: each added, removed or
// changed argument by name when both sides list objects with distinct
// string names, else (or when only the order changed) the arguments as a
// whole with a structural diff.
func argumentsDrift(a, b projection) []Change {
	p, changed := pair("arguments", a, b)
	if !changed {
		return nil
	}
	var out []Change
	before, okA := namedArguments(p.before)
	after, okB := namedArguments(p.after)
	if okA && okB {
		out = argumentChanges(before, after)
	}
	if len(out) == 0 {
		out = schemaChange(ClassPromptArgumentsChanged, "arguments", a, b)
	}
	return out
}

// namedArguments reads an arguments value (absent and null read as none)
// and reports whether every element is an object with a distinct string
// name.
func namedArguments(v jsontext.Value) ([]argument, bool) {
	if v == nil || v.Kind() == 'n' {
		return nil, true
	}
	if v.Kind() != '[' {
		return nil, false
	}
	var out []argument
	seen := map[string]bool{}
	for i, el := range elements(v) {
		proj := project(el, nil)
		name, ok := proj.members["name"]
		if !ok || name.Kind() != '"' || seen[stringValue(name)] {
			return nil, false
		}
		seen[stringValue(name)] = true
		out = append(out, argument{name: stringValue(name), index: i, proj: proj})
	}
	return out, true
}

// argumentChanges compares arguments by name.
func argumentChanges(before, after []argument) []Change {
	var out []Change
	for _, arg := range after {
		i := slices.IndexFunc(before, func(o argument) bool { return o.name == arg.name })
		if i < 0 {
			out = append(out, argumentAddedOrRemoved(arg, false))
			continue
		}
		out = append(out, argumentChanged(before[i], arg)...)
	}
	for _, arg := range before {
		if !slices.ContainsFunc(after, func(o argument) bool { return o.name == arg.name }) {
			out = append(out, argumentAddedOrRemoved(arg, true))
		}
	}
	return out
}

// argumentAddedOrRemoved describes a whole argument added or removed.
func argumentAddedOrRemoved(arg argument, removed bool) Change {
	c := Change{Class: ClassPromptArgumentsChanged, Pointer: argumentPointer(arg)}
	kind := "optional"
	if isTrue(arg.proj.members["required"]) {
		kind = "required"
	}
	if removed {
		c.Before, c.Message = Visible(arg.proj.text()), fmt.Sprintf("%s argument %q removed", kind, arg.name)
	} else {
		c.After, c.Message = Visible(arg.proj.text()), fmt.Sprintf("%s argument %q added", kind, arg.name)
	}
	return c
}

// argumentChanged compares one argument member by member: description and
// title with a word diff, required saying which way it flipped, anything
// else with a structural diff.
func argumentChanged(a, b argument) []Change {
	var out []Change
	for _, m := range unionNames(a.proj.members, b.proj.members) {
		switch m {
		case "description", "title":
			out = append(out, textChange(ClassPromptArgumentsChanged, m, a.proj, b.proj)...)
		case "required":
			out = append(out, requiredChange(a.proj, b.proj)...)
		default:
			out = append(out, schemaChange(ClassPromptArgumentsChanged, m, a.proj, b.proj)...)
		}
	}
	for i := range out {
		out[i].Pointer = argumentPointer(b) + out[i].Pointer
		out[i].Message = fmt.Sprintf("argument %q: %s", b.name, out[i].Message)
	}
	return out
}

// requiredChange reports a changed "required" member of an argument,
// saying so when the argument became required or optional.
func requiredChange(a, b projection) []Change {
	cs := schemaChange(ClassPromptArgumentsChanged, "required", a, b)
	switch was, is := isTrue(a.members["required"]), isTrue(b.members["required"]); {
	case len(cs) == 0 || was == is:
	case is:
		cs[0].Message = "now required (prompts/get needs it, so the prompt's messages are no longer pinned)"
	default:
		cs[0].Message = "no longer required"
	}
	return cs
}

// argumentPointer points at arg in its prompt.
func argumentPointer(arg argument) string {
	return "/arguments/" + strconv.Itoa(arg.index)
}

// isTrue reports the JSON literal true, as pin reads "required".
func isTrue(v jsontext.Value) bool { return v.Kind() == 't' }
