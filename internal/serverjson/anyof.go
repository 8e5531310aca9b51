package serverjson

import (
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"
)

// The schema's unions (package transport, remote transport, argument) are
// anyOf lists of alternatives told apart by their "type" member. When every
// alternative fails, reporting all their leaves buries the cause: a stdio
// transport with a typo in "type" would also be told its "url" is missing.
// So, for a failed anyOf:
//   - alternatives whose "type" was accepted are the ones the author meant:
//     only their leaves are reported;
//   - if every alternative rejected "type", the "type" problems are
//     reported, the allowed values merged into one message, together with
//     the problems every alternative shares (a bad "url", say);
//   - otherwise (no "type" involved) every leaf is reported, except that
//     alternatives which each only miss a member become one
//     "needs one of" violation.

const tagMember = "type"

// leafErrors returns the leaves of the error tree under e.
func leafErrors(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if _, ok := e.ErrorKind.(*kind.AnyOf); ok {
		return anyOfLeaves(e)
	}
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leafErrors(c)...)
	}
	return out
}

// alternative is one failed branch of an anyOf, its leaves split by
// whether they are about the "type" member.
type alternative struct {
	tag, rest []*jsonschema.ValidationError
}

func alternatives(e *jsonschema.ValidationError) []alternative {
	tag := append(slices.Clip(e.InstanceLocation), tagMember)
	alts := make([]alternative, len(e.Causes))
	for i, c := range e.Causes {
		for _, l := range leafErrors(c) {
			if isAt(l, tag) {
				alts[i].tag = append(alts[i].tag, l)
			} else {
				alts[i].rest = append(alts[i].rest, l)
			}
		}
	}
	return alts
}

// anyOfLeaves applies the rules above to a failed anyOf (one cause per
// alternative).
func anyOfLeaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	alts := alternatives(e)
	var meant, tagged []*jsonschema.ValidationError
	for _, a := range alts {
		if len(a.tag) == 0 {
			meant = append(meant, a.rest...)
		}
		tagged = append(tagged, a.tag...)
	}
	switch {
	case len(tagged) == 0:
		return oneOfRequired(e, meant)
	case len(meant) > 0:
		return meant
	default:
		return append(mergeEnums(tagged), sharedLeaves(alts)...)
	}
}

// sharedLeaves returns the non-tag leaves of the first alternative that
// every other alternative also has (same location, same message).
func sharedLeaves(alts []alternative) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	for _, l := range alts[0].rest {
		if !slices.ContainsFunc(alts[1:], func(a alternative) bool { return !containsLeaf(a.rest, l) }) {
			out = append(out, l)
		}
	}
	return out
}

func containsLeaf(leaves []*jsonschema.ValidationError, l *jsonschema.ValidationError) bool {
	return slices.ContainsFunc(leaves, func(m *jsonschema.ValidationError) bool {
		return slices.Equal(m.InstanceLocation, l.InstanceLocation) &&
			m.ErrorKind.LocalizedString(english) == l.ErrorKind.LocalizedString(english)
	})
}

// isAt reports whether leaf l is located at loc, counting a missing member
// as located where it would be.
func isAt(l *jsonschema.ValidationError, loc []string) bool {
	if slices.Equal(l.InstanceLocation, loc) {
		return true
	}
	r, ok := l.ErrorKind.(*kind.Required)
	n := len(loc) - 1
	return ok && slices.Equal(l.InstanceLocation, loc[:n]) && slices.Contains(r.Missing, loc[n])
}

// mergeEnums folds the enum leaves into one listing every allowed value.
func mergeEnums(leaves []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	var merged *jsonschema.ValidationError
	var out []*jsonschema.ValidationError
	for _, l := range leaves {
		k, ok := l.ErrorKind.(*kind.Enum)
		switch {
		case !ok:
			out = append(out, l)
		case merged == nil:
			merged = &jsonschema.ValidationError{InstanceLocation: l.InstanceLocation, ErrorKind: &kind.Enum{Got: k.Got, Want: slices.Clone(k.Want)}}
			out = append(out, merged)
		default:
			merged.ErrorKind.(*kind.Enum).Want = append(merged.ErrorKind.(*kind.Enum).Want, k.Want...)
		}
	}
	return out
}

// oneOfRequired turns alternatives that each only miss members of the
// anyOf's own object into one violation; other leaves pass through.
func oneOfRequired(e *jsonschema.ValidationError, leaves []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	var names []string
	for _, l := range leaves {
		r, ok := l.ErrorKind.(*kind.Required)
		if !ok || !slices.Equal(l.InstanceLocation, e.InstanceLocation) {
			return leaves
		}
		names = append(names, r.Missing...)
	}
	return []*jsonschema.ValidationError{{InstanceLocation: e.InstanceLocation, ErrorKind: &needsOneOf{names: names}}}
}

// needsOneOf is the error kind of a merged "one of these members is
// required" violation.
type needsOneOf struct{ names []string }

func (*needsOneOf) KeywordPath() []string { return []string{"anyOf"} }

func (k *needsOneOf) LocalizedString(*message.Printer) string {
	quoted := make([]string, len(k.names))
	for i, n := range k.names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return "one of the properties " + strings.Join(quoted, ", ") + " is required"
}
