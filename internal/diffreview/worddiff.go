package diffreview

import (
	"time"
	"unicode"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Op is what a diff segment does.
type Op string

// Diff operations.
const (
	OpEqual  Op = "equal"
	OpInsert Op = "insert"
	OpDelete Op = "delete"
)

// Segment is one piece of a word-level diff.
type Segment struct {
	Op   Op     `json:"op"`
	Text string `json:"text"`
}

// diffTimeout bounds the diff of very different long texts; past it the
// diff is still correct, only less minimal.
const diffTimeout = 2 * time.Second

// maxDiffBytes bounds the texts diffed word by word; it keeps the number
// of distinct tokens far below the runes available to encode them.
const maxDiffBytes = 1 << 20

// DescriptionDiff returns a word-level diff of two texts: words, runs of
// white space and single punctuation marks are the units, so a changed
// word shows as one deleted and one inserted word rather than scattered
// letters. Both texts are first passed through Visible, so inserted hidden
// characters show as ⟦U+200B⟧ or ⟦TAG:…⟧. Concatenating the equal and
// delete segments yields Visible(before); equal and insert, Visible(after).
func DescriptionDiff(before, after string) []Segment {
	before, after = Visible(before), Visible(after)
	if before == after {
		if before == "" {
			return nil
		}
		return []Segment{{OpEqual, before}}
	}
	if len(before)+len(after) > maxDiffBytes {
		return []Segment{{OpDelete, before}, {OpInsert, after}}
	}
	var tk tokenTable
	a, b := tk.encode(before), tk.encode(after)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMainRunes(a, b, false))
	return tk.segments(diffs)
}

// tokenTable maps word tokens to runes so that go-diff's character diff
// works on words.
type tokenTable struct {
	tokens []string
	index  map[string]rune
}

// encode splits s into tokens and returns one rune per token.
func (t *tokenTable) encode(s string) []rune {
	if t.index == nil {
		t.index = map[string]rune{}
	}
	var out []rune
	for _, tok := range wordTokens(s) {
		r, ok := t.index[tok]
		if !ok {
			r = tokenRune(len(t.tokens))
			t.tokens = append(t.tokens, tok)
			t.index[tok] = r
		}
		out = append(out, r)
	}
	return out
}

// tokenRune maps a token number to a valid rune (no surrogates), since
// go-diff turns runes into strings.
func tokenRune(i int) rune {
	r := rune(i + 1)
	if r >= 0xD800 {
		r += 0x800
	}
	return r
}

// tokenOf maps a rune back to its token number.
func tokenOf(r rune) int {
	if r >= 0xE000 {
		r -= 0x800
	}
	return int(r) - 1
}

// segments decodes go-diff output and merges neighbours of one op.
func (t *tokenTable) segments(diffs []diffmatchpatch.Diff) []Segment {
	var out []Segment
	for _, d := range diffs {
		var text []byte
		for _, r := range d.Text {
			if i := tokenOf(r); i >= 0 && i < len(t.tokens) {
				text = append(text, t.tokens[i]...)
			}
		}
		op := opOf(d.Type)
		if n := len(out); n > 0 && out[n-1].Op == op {
			out[n-1].Text += string(text)
			continue
		}
		if len(text) > 0 {
			out = append(out, Segment{op, string(text)})
		}
	}
	return out
}

// opOf converts a go-diff operation.
func opOf(op diffmatchpatch.Operation) Op {
	switch op {
	case diffmatchpatch.DiffInsert:
		return OpInsert
	case diffmatchpatch.DiffDelete:
		return OpDelete
	}
	return OpEqual
}

// wordTokens splits s into words (letters, digits, marks and '_'), runs of
// white space, and single other characters.
func wordTokens(s string) []string {
	var out []string
	start, class := 0, -1
	for i, r := range s {
		c := tokenClass(r)
		if i > 0 && (c != class || c == classOther) {
			out = append(out, s[start:i])
			start = i
		}
		class = c
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// Token classes.
const (
	classWord = iota
	classSpace
	classOther
)

func tokenClass(r rune) int {
	switch {
	case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r), r == '_':
		return classWord
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}
