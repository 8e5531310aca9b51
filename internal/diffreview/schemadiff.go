package diffreview

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// SchemaOp says what happened at a JSON pointer.
type SchemaOp string

// Schema change operations.
const (
	SchemaAdded   SchemaOp = "added"
	SchemaRemoved SchemaOp = "removed"
	SchemaChanged SchemaOp = "changed"
)

// SchemaChange is one structural difference between two JSON documents.
type SchemaChange struct {
	// Pointer is an RFC 6901 pointer: into the old document for removed
	// values, into the new one otherwise.
	Pointer string   `json:"pointer"`
	Op      SchemaOp `json:"op"`
	// Before and After are compact canonical JSON (RFC 8785) with hidden
	// characters made visible (see Visible); empty when the value is
	// absent on that side. Pointers stay exact, for addressing.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// SchemaDiff compares two JSON documents structurally: objects member by
// member (so key order never matters), arrays by a longest common
// subsequence of their elements, scalars by canonical value (1.0 equals 1).
// Empty input means absent. Input that is not valid JSON is compared as
// text and reported as one change of the whole document.
func SchemaDiff(before, after []byte) []SchemaChange {
	a, okA := canonicalOrAbsent(before)
	b, okB := canonicalOrAbsent(after)
	switch {
	case !okA || !okB:
		if bytes.Equal(before, after) {
			return nil
		}
		return []SchemaChange{{Pointer: "", Op: SchemaChanged, Before: Visible(string(before)), After: Visible(string(after))}}
	case a == nil && b == nil:
		return nil
	case a == nil:
		return []SchemaChange{{Pointer: "", Op: SchemaAdded, After: Visible(string(b))}}
	case b == nil:
		return []SchemaChange{{Pointer: "", Op: SchemaRemoved, Before: Visible(string(a))}}
	}
	var d schemaDiffer
	d.value("", a, b)
	return d.out
}

// canonicalOrAbsent returns the JCS form of doc, nil for empty input, and
// false when doc is not valid JSON.
func canonicalOrAbsent(doc []byte) (jsontext.Value, bool) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, true
	}
	v := jsontext.Value(bytes.Clone(doc))
	if err := v.Canonicalize(); err != nil {
		return nil, false
	}
	return v, true
}

// schemaDiffer walks two canonical documents; every sub-value of a
// canonical document is canonical, so equal sub-values are equal bytes.
type schemaDiffer struct {
	out []SchemaChange
}

// value compares two canonical values at ptr.
func (d *schemaDiffer) value(ptr string, a, b jsontext.Value) {
	switch {
	case bytes.Equal(a, b):
	case a.Kind() == '{' && b.Kind() == '{':
		d.object(ptr, members(a), members(b))
	case a.Kind() == '[' && b.Kind() == '[':
		d.array(ptr, elements(a), elements(b))
	default:
		d.out = append(d.out, SchemaChange{Pointer: ptr, Op: SchemaChanged, Before: Visible(string(a)), After: Visible(string(b))})
	}
}

// object compares members; canonical objects list names in sorted order.
func (d *schemaDiffer) object(ptr string, a, b []jsonMember) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && jcsLess(a[i].name, b[j].name):
			d.removed(ptr+"/"+escapePointer(a[i].name), a[i].value)
			i++
		case i == len(a) || jcsLess(b[j].name, a[i].name):
			d.added(ptr+"/"+escapePointer(b[j].name), b[j].value)
			j++
		default:
			d.value(ptr+"/"+escapePointer(a[i].name), a[i].value, b[j].value)
			i, j = i+1, j+1
		}
	}
}

func (d *schemaDiffer) added(ptr string, v jsontext.Value) {
	d.out = append(d.out, SchemaChange{Pointer: ptr, Op: SchemaAdded, After: Visible(string(v))})
}

func (d *schemaDiffer) removed(ptr string, v jsontext.Value) {
	d.out = append(d.out, SchemaChange{Pointer: ptr, Op: SchemaRemoved, Before: Visible(string(v))})
}

// jcsLess orders member names as RFC 8785 does: by UTF-16 code units.
func jcsLess(a, b string) bool {
	return slices.Compare(utf16Units(a), utf16Units(b)) < 0
}

// utf16Units returns the UTF-16 code units of s.
func utf16Units(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}

// maxLCSCells bounds the LCS table; longer arrays compare index by index.
const maxLCSCells = 1 << 18

// array aligns elements by their longest common subsequence; in each gap
// between matched elements, removed and added elements are paired up and
// compared in depth, and the rest reported as removed or added.
func (d *schemaDiffer) array(ptr string, a, b []jsontext.Value) {
	pairs := alignArrays(a, b)
	i, j := 0, 0
	for _, p := range append(pairs, [2]int{len(a), len(b)}) {
		for i < p[0] && j < p[1] {
			d.value(ptr+"/"+strconv.Itoa(j), a[i], b[j])
			i, j = i+1, j+1
		}
		for ; i < p[0]; i++ {
			d.removed(ptr+"/"+strconv.Itoa(i), a[i])
		}
		for ; j < p[1]; j++ {
			d.added(ptr+"/"+strconv.Itoa(j), b[j])
		}
		i, j = p[0]+1, p[1]+1
	}
}

// alignArrays returns index pairs of equal elements along a longest common
// subsequence, or none when the table would be too large.
func alignArrays(a, b []jsontext.Value) [][2]int {
	if len(a)*len(b) > maxLCSCells {
		return nil
	}
	l := lcsTable(a, b)
	var pairs [][2]int
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case bytes.Equal(a[i], b[j]):
			pairs = append(pairs, [2]int{i, j})
			i, j = i+1, j+1
		case l[i+1][j] >= l[i][j+1]:
			i++
		default:
			j++
		}
	}
	return pairs
}

// lcsTable returns l where l[i][j] is the length of the longest common
// subsequence of a[i:] and b[j:].
func lcsTable(a, b []jsontext.Value) [][]int32 {
	l := make([][]int32, len(a)+1)
	for i := range l {
		l[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if bytes.Equal(a[i], b[j]) {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	return l
}
