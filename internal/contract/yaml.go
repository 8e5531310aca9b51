package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yamlToJSON converts a YAML document to JSON text without surprises:
// scalars keep the type YAML 1.2's core schema gives them (so yes, no, on
// and off stay strings), member names must be strings and unique, and
// anchors, aliases, merge keys, custom tags, non-decimal or zero-padded
// integers and non-finite floats are rejected. Aliases are never expanded,
// so alias bombs cost no more than their text.
func yamlToJSON(data []byte, lim Limits) ([]byte, error) {
	root, err := singleDocument(data)
	if err != nil {
		return nil, err
	}
	c := converter{lim: lim}
	if err := c.value(root, "", 1); err != nil {
		return nil, err
	}
	if len(c.violations) > 0 {
		return nil, invalid(c.violations...)
	}
	return c.out.Bytes(), nil
}

// singleDocument parses data as exactly one YAML document.
func singleDocument(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, invalid(Violation{Message: "empty document"})
		}
		return nil, invalid(Violation{Message: "YAML: " + err.Error()})
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, invalid(Violation{Message: "more than one YAML document"})
	}
	if len(doc.Content) != 1 {
		return nil, invalid(Violation{Message: "empty document"})
	}
	return doc.Content[0], nil
}

// converter writes JSON for a YAML node tree, collecting violations.
type converter struct {
	lim        Limits
	out        bytes.Buffer
	violations []Violation
}

func (c *converter) fail(ptr, format string, args ...any) {
	c.violations = append(c.violations, Violation{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func (c *converter) value(n *yaml.Node, ptr string, depth int) error {
	if n.Anchor != "" {
		c.fail(ptr, "YAML anchors (&%s) are not accepted", n.Anchor)
	}
	switch n.Kind {
	case yaml.MappingNode:
		return c.mapping(n, ptr, depth)
	case yaml.SequenceNode:
		return c.sequence(n, ptr, depth)
	case yaml.ScalarNode:
		c.scalar(n, ptr)
	case yaml.AliasNode:
		c.fail(ptr, "YAML aliases (*%s) are not accepted", n.Value)
		c.out.WriteString("null")
	default:
		c.fail(ptr, "unexpected YAML node")
		c.out.WriteString("null")
	}
	return nil
}

func (c *converter) checkDepth(ptr string, depth int) error {
	if depth > c.lim.MaxDepth {
		return &LimitError{Pointer: ptr, Reason: fmt.Sprintf("nesting depth is over the limit of %d", c.lim.MaxDepth)}
	}
	return nil
}

func (c *converter) mapping(n *yaml.Node, ptr string, depth int) error {
	if err := c.checkDepth(ptr, depth); err != nil {
		return err
	}
	c.out.WriteByte('{')
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, ok := c.key(n.Content[i], ptr)
		if !ok {
			continue
		}
		at := ptr + pointer(name)
		if seen[name] {
			c.fail(at, "duplicate member name %q", name)
			continue
		}
		seen[name] = true
		if len(seen) > 1 {
			c.out.WriteByte(',')
		}
		c.str(name)
		c.out.WriteByte(':')
		if err := c.value(n.Content[i+1], at, depth+1); err != nil {
			return err
		}
	}
	c.out.WriteByte('}')
	return nil
}

// key returns a mapping key's name; only plain or quoted strings are names.
func (c *converter) key(k *yaml.Node, ptr string) (string, bool) {
	switch {
	case k.Kind == yaml.AliasNode:
		c.fail(ptr, "YAML aliases (*%s) are not accepted", k.Value)
	case k.Kind != yaml.ScalarNode:
		c.fail(ptr, "member names must be strings, not YAML collections")
	case k.ShortTag() == "!!merge":
		c.fail(ptr, "YAML merge keys (<<) are not accepted")
	case k.ShortTag() != "!!str":
		c.fail(ptr, "member name %q is a YAML %s, not a string", k.Value, k.ShortTag())
	case !utf8.ValidString(k.Value):
		c.fail(ptr, "member name is not valid UTF-8")
	default:
		if k.Anchor != "" {
			c.fail(ptr, "YAML anchors (&%s) are not accepted", k.Anchor)
		}
		return k.Value, true
	}
	return "", false
}

func (c *converter) sequence(n *yaml.Node, ptr string, depth int) error {
	if err := c.checkDepth(ptr, depth); err != nil {
		return err
	}
	c.out.WriteByte('[')
	for i, item := range n.Content {
		if i > 0 {
			c.out.WriteByte(',')
		}
		if err := c.value(item, ptr+"/"+strconv.Itoa(i), depth+1); err != nil {
			return err
		}
	}
	c.out.WriteByte(']')
	return nil
}

var (
	decimalInt   = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)
	decimalFloat = regexp.MustCompile(`^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$`)
)

// scalar writes a scalar as the JSON value of its YAML 1.2 core type.
func (c *converter) scalar(n *yaml.Node, ptr string) {
	switch tag := n.ShortTag(); tag {
	case "!!str", "!!timestamp": // a timestamp stays the text written
		if !utf8.ValidString(n.Value) {
			c.fail(ptr, "string is not valid UTF-8")
		}
		c.str(n.Value)
	case "!!null":
		c.out.WriteString("null")
	case "!!bool":
		c.out.WriteString(strconv.FormatBool(n.Value == "true" || n.Value == "True" || n.Value == "TRUE"))
	case "!!int":
		c.integer(n.Value, ptr)
	case "!!float":
		c.float(n.Value, ptr)
	default:
		c.fail(ptr, "YAML tag %s is not accepted", tag)
		c.out.WriteString("null")
	}
}

func (c *converter) integer(v, ptr string) {
	if !decimalInt.MatchString(v) {
		c.fail(ptr, "integer %q: write integers in plain decimal, without leading zeros, prefixes or underscores", v)
		c.out.WriteString("null")
		return
	}
	i, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		c.fail(ptr, "integer %q is out of range", v)
		c.out.WriteString("null")
		return
	}
	c.out.WriteString(strconv.FormatInt(i, 10))
}

func (c *converter) float(v, ptr string) {
	f, err := strconv.ParseFloat(v, 64)
	if !decimalFloat.MatchString(v) || err != nil {
		c.fail(ptr, "number %q is not a finite decimal number", v)
		c.out.WriteString("null")
		return
	}
	c.out.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
}

// str writes s as a JSON string without HTML escaping.
func (c *converter) str(s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	c.out.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
