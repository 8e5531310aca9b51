package gate

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/diffreview"
)

// DefaultMaxResultBytes caps a result the gate forwards.
const DefaultMaxResultBytes = 1 << 20

// DefaultBlockSeverity is the lowest finding severity that withholds a
// result when the contract filters results.
const DefaultBlockSeverity = finding.High

// visitor sees one text a result carries, at its pointer, and may return
// a replacement (changed true).
type visitor func(ptr, text string) (replacement string, changed bool)

// resultShape knows where a method's result carries model-visible text.
type resultShape struct {
	// array is the member holding the blocks ("content", "messages",
	// "contents"); block visits one element.
	array string
	block func(raw json.RawMessage, ptr string, v visitor) (json.RawMessage, error)
}

// resultShapes are the results the gate treats as untrusted content:
// tool results and, until prompts and resources are pinned, what
// prompts/get and resources/read return.
var resultShapes = map[string]resultShape{
	"tools/call":     {array: "content", block: visitContentBlock},
	"prompts/get":    {array: "messages", block: visitMessage},
	"resources/read": {array: "contents", block: visitResourceContents},
}

// handled is what the gate does with one result.
type handled struct {
	result   json.RawMessage // to forward (nil when withheld)
	findings []finding.Finding
	withheld string // why the result is withheld
	note     string // what the gate changed (truncation)
}

// handleResult caps, scans and marks a result of method per the contract.
func (r *Relay) handleResult(method string, result json.RawMessage) handled {
	shape := resultShapes[method]
	h := handled{result: result}
	if len(result) > r.o.MaxResultBytes {
		capped, note, err := capResult(result, shape, r.o.MaxResultBytes)
		if err != nil {
			h.withheld = err.Error()
			return h
		}
		h.result, h.note = capped, note
	}
	// One walk of the result both collects what the detectors read and,
	// when the contract marks results, wraps each block's text; the
	// wrapped result is used only if the result passes.
	rh := r.policy.results
	var texts []diffreview.Text
	collect := func(ptr, text string) { texts = append(texts, diffreview.Text{Pointer: ptr, Text: text}) }
	nonce := ""
	if rh.BoundaryMarkers {
		nonce = newNonce()
	}
	marked, err := walkResult(h.result, shape, func(ptr, text string) (string, bool) {
		collect(ptr, text)
		if nonce == "" {
			return "", false
		}
		return "[mcpreg:untrusted-content " + nonce + "]\n" + text + "\n[/mcpreg:untrusted-content " + nonce + "]", true
	}, collect)
	if err != nil {
		h.withheld = "the result cannot be read: " + err.Error()
		h.result = nil
		return h
	}
	h.findings = diffreview.Content(texts)
	if blockers := atOrAbove(h.findings, r.o.BlockSeverity); rh.UntrustedContentFiltering && len(blockers) > 0 {
		h.withheld = "the result was withheld: it contains " + describeFindings(blockers) +
			" (the contract filters results as untrusted content)"
		h.result = nil
		return h
	}
	if rh.BoundaryMarkers {
		h.result = marked
	}
	return h
}

// atOrAbove are the findings of at least severity min.
func atOrAbove(fs []finding.Finding, minimum finding.Severity) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Severity.Rank() >= minimum.Rank() {
			out = append(out, f)
		}
	}
	return out
}

// describeFindings names finding kinds, severities and places, never the
// text they found.
func describeFindings(fs []finding.Finding) string {
	parts := make([]string, 0, len(fs))
	for _, f := range fs {
		p := fmt.Sprintf("%s (%s) at %s", f.Kind, f.Severity, f.Pointer)
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// receiptFindings are the findings as a receipt lists them.
func receiptFindings(fs []finding.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s (%s) at %s", f.Kind, f.Severity, f.Pointer)
	}
	return out
}

// walkResult walks a result once: blocks sees the text of each block of
// shape's array (and may replace it: the result returned has the
// replacements, every other member as received), and other, when set,
// sees the result's description and every string and member name of
// structuredContent (never rewritten).
func walkResult(result json.RawMessage, shape resultShape, blocks visitor, other func(ptr, text string)) (json.RawMessage, error) {
	members, err := objectMembers(result)
	if err != nil {
		return nil, err
	}
	for i, m := range members {
		ptr := "/" + escapePointer(m.name)
		switch m.name {
		case shape.array:
			if members[i].value, err = visitArray(m.value, ptr, shape.block, blocks); err != nil {
				return nil, fmt.Errorf("%s: %w", m.name, err)
			}
		case "structuredContent", "description":
			if other == nil {
				continue
			}
			var v any
			if err := json.Unmarshal(m.value, &v); err != nil {
				return nil, fmt.Errorf("%s: %w", m.name, err)
			}
			walkStrings(v, ptr, other)
		}
	}
	return joinObject(members), nil
}

// walkStrings visits every string and member name of a decoded JSON
// value.
func walkStrings(v any, ptr string, visit func(ptr, text string)) {
	switch x := v.(type) {
	case string:
		visit(ptr, x)
	case []any:
		for i, e := range x {
			walkStrings(e, ptr+"/"+strconv.Itoa(i), visit)
		}
	case map[string]any:
		for k, e := range x {
			p := ptr + "/" + escapePointer(k)
			visit(p, k)
			walkStrings(e, p, visit)
		}
	}
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func escapePointer(s string) string { return pointerEscaper.Replace(s) }

// newNonce is 16 random hex digits.
func newNonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// visitArray visits each element of a JSON array with block.
func visitArray(raw json.RawMessage, ptr string, block func(json.RawMessage, string, visitor) (json.RawMessage, error), v visitor) (json.RawMessage, error) {
	elems, err := arrayElements(raw)
	if err != nil {
		return nil, err
	}
	for i, e := range elems {
		if elems[i], err = block(e, ptr+"/"+strconv.Itoa(i), v); err != nil {
			return nil, err
		}
	}
	return joinArray(elems), nil
}

// visitContentBlock visits the text of a content block: a text block's
// "text", an embedded resource's "resource"."text".
func visitContentBlock(raw json.RawMessage, ptr string, v visitor) (json.RawMessage, error) {
	members, err := objectMembers(raw)
	if err != nil {
		return nil, err
	}
	var typ string
	if i := memberIndex(members, "type"); i >= 0 {
		_ = json.Unmarshal(members[i].value, &typ)
	}
	switch typ {
	case "text":
		return visitTextMember(members, raw, ptr, v)
	case "resource":
		i := memberIndex(members, "resource")
		if i < 0 {
			return raw, nil
		}
		inner, err := objectMembers(members[i].value)
		if err != nil {
			return nil, err
		}
		if members[i].value, err = visitTextMember(inner, members[i].value, ptr+"/resource", v); err != nil {
			return nil, err
		}
		return joinObject(members), nil
	}
	return raw, nil
}

// visitMessage visits a prompt message's content block.
func visitMessage(raw json.RawMessage, ptr string, v visitor) (json.RawMessage, error) {
	members, err := objectMembers(raw)
	if err != nil {
		return nil, err
	}
	i := memberIndex(members, "content")
	if i < 0 {
		return raw, nil
	}
	if members[i].value, err = visitContentBlock(members[i].value, ptr+"/content", v); err != nil {
		return nil, err
	}
	return joinObject(members), nil
}

// visitResourceContents visits the text of one resources/read contents
// item.
func visitResourceContents(raw json.RawMessage, ptr string, v visitor) (json.RawMessage, error) {
	members, err := objectMembers(raw)
	if err != nil {
		return nil, err
	}
	return visitTextMember(members, raw, ptr, v)
}

// visitTextMember visits the "text" member of an object; raw is returned
// unchanged when the visitor changes nothing.
func visitTextMember(members []member, raw json.RawMessage, ptr string, v visitor) (json.RawMessage, error) {
	i := memberIndex(members, "text")
	if i < 0 {
		return raw, nil
	}
	var text string
	if err := json.Unmarshal(members[i].value, &text); err != nil {
		return nil, fmt.Errorf("%s/text: %w", ptr, err)
	}
	repl, changed := v(ptr+"/text", text)
	if !changed {
		return raw, nil
	}
	members[i].value = quote(repl)
	return joinObject(members), nil
}

// memberIndex is the index of the member named name, or -1.
func memberIndex(ms []member, name string) int {
	return slices.IndexFunc(ms, func(m member) bool { return m.name == name })
}

// capResult cuts a tool result to about limit bytes: the texts of its
// blocks are kept in order until the budget is spent (the last one cut at
// a character boundary), later texts are emptied, and the truncation is
// stated in a last text block. A result with structuredContent, which the
// gate never rewrites, and other results (prompts, resources) are refused
// instead.
func capResult(result json.RawMessage, shape resultShape, limit int) (json.RawMessage, string, error) {
	members, err := objectMembers(result)
	if err != nil {
		return nil, "", fmt.Errorf("the result cannot be read: %w", err)
	}
	if memberIndex(members, "structuredContent") >= 0 || shape.array != "content" {
		return nil, "", fmt.Errorf("the result is %d bytes, over the gate's limit of %d, and cannot be cut", len(result), limit)
	}
	budget := limit / 2 // leaves room for escaping and the blocks' other members
	cut := func(_, text string) (string, bool) {
		if len(text) <= budget {
			budget -= len(text)
			return text, false
		}
		keep := budget
		for keep > 0 && !utf8.RuneStart(text[keep]) {
			keep--
		}
		budget = 0
		return text[:keep], true
	}
	capped, err := walkResult(result, shape, cut, nil)
	if err != nil {
		return nil, "", err
	}
	note := fmt.Sprintf("[mcpreg gate: the result was truncated: it was %d bytes, the limit is %d]", len(result), limit)
	if capped, err = appendBlock(capped, `{"type":"text","text":`+string(quote(note))+`}`); err != nil {
		return nil, "", err
	}
	if len(capped) > limit {
		return nil, "", fmt.Errorf("the result is %d bytes, over the gate's limit of %d, and cannot be cut", len(result), limit)
	}
	return capped, note, nil
}

// appendBlock adds a raw block to a tool result's content.
func appendBlock(result json.RawMessage, block string) (json.RawMessage, error) {
	members, err := objectMembers(result)
	if err != nil {
		return nil, err
	}
	i := memberIndex(members, "content")
	if i < 0 {
		return nil, fmt.Errorf("the result has no content")
	}
	elems, err := arrayElements(members[i].value)
	if err != nil {
		return nil, err
	}
	members[i].value = joinArray(append(elems, json.RawMessage(block)))
	return joinObject(members), nil
}
