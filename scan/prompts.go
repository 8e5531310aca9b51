package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// promptChange is a prompt whose two prompts/get reads within one reading
// returned different messages (each in canonical form when it has one).
type promptChange struct {
	name          string
	first, second []byte
}

// prompts reads every page of prompts/list into rd, and for each prompt
// without required arguments calls prompts/get twice (no arguments): the
// first read's "messages" is merged into the prompt as listed, and a
// difference between the two reads is noted for a finding.
func (s *session) prompts(ctx context.Context, cs *mcp.ClientSession, rd *Reading) error {
	items, err := s.walk(ctx, cs, promptsCatalog)
	if err != nil {
		return err
	}
	rd.Prompts = []json.RawMessage{}
	for _, p := range items {
		if requiresArguments(p.members["arguments"]) {
			rd.Prompts = append(rd.Prompts, json.RawMessage(p.raw))
			continue
		}
		first, err := s.getPrompt(ctx, cs, p.key, 1)
		if err != nil {
			return err
		}
		second, err := s.getPrompt(ctx, cs, p.key, 2)
		if err != nil {
			return err
		}
		if a, b := canonical(first), canonical(second); !bytes.Equal(a, b) {
			rd.promptChanges = append(rd.promptChanges, promptChange{name: p.key, first: a, second: b})
		}
		rd.Prompts = append(rd.Prompts, withMessages(p.raw, first))
	}
	return nil
}

// getPrompt calls prompts/get for the prompt name without arguments (read
// n of 2) and returns the raw "messages" of its result.
func (s *session) getPrompt(ctx context.Context, cs *mcp.ClientSession, name string, n int) (jsontext.Value, error) {
	what := fmt.Sprintf("prompts/get of prompt %q (read %d of 2)", abbreviate(name), n)
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name}); err != nil {
		return nil, fmt.Errorf("%s: %w", what, s.failed(ctx, methodGetPrompt, err))
	}
	raw, err := s.answer(ctx, methodGetPrompt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	msgs, err := parseGetPrompt(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return msgs, nil
}

// parseGetPrompt reads a prompts/get result: "messages" must be an array
// (kept raw), or null, read as no messages (the Go SDK writes null for a
// handler that returns none); other members are ignored.
func parseGetPrompt(result []byte) (jsontext.Value, error) {
	ms, err := members(result)
	if err != nil {
		return nil, err
	}
	msgs, ok := ms["messages"]
	if ok && msgs.Kind() == 'n' {
		return jsontext.Value("[]"), nil
	}
	if !ok || msgs.Kind() != '[' {
		return nil, fmt.Errorf("%w: the prompts/get result's \"messages\" must be an array, got %s at /messages", ErrInvalid, kindName(msgs.Kind()))
	}
	return msgs, nil
}

// checkPrompt applies the rules for a listed prompt at ptr beyond its
// name. It has no "messages" member: the scan merges the prompts/get
// messages in under that name, and they must not be mistaken for the
// server's own (nor written twice). Its "arguments", when present and not
// null, is an array of objects (or nulls) whose "required" is a boolean or
// null: the Go SDK client fails the call on anything else, and this
// names where.
func checkPrompt(ms map[string]jsontext.Value, ptr string) error {
	if _, ok := ms["messages"]; ok {
		return fmt.Errorf("%w: a listed prompt must not have a \"messages\" member (the scan keeps the prompts/get messages under that name) at %s/messages",
			ErrInvalid, ptr)
	}
	args, ok := ms["arguments"]
	if !ok || args.Kind() == 'n' {
		return nil
	}
	values, err := elements(args, ptr+"/arguments")
	if err != nil {
		return err
	}
	for i, v := range values {
		if err := checkArgument(v, fmt.Sprintf("%s/arguments/%d", ptr, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkArgument checks the prompt argument v at ptr.
func checkArgument(v jsontext.Value, ptr string) error {
	switch v.Kind() {
	case 'n':
		return nil
	case '{':
	default:
		return fmt.Errorf("%w: a prompt argument must be an object, got %s at %s", ErrInvalid, kindName(v.Kind()), ptr)
	}
	am, err := members(v)
	if err != nil {
		return err
	}
	if k := am["required"].Kind(); k != 0 && k != 't' && k != 'f' && k != 'n' {
		return fmt.Errorf("%w: a prompt argument's \"required\" must be a boolean, got %s at %s/required", ErrInvalid, kindName(k), ptr)
	}
	return nil
}

// requiresArguments reports whether a prompt has a required argument as
// the pin specification (mcpreg-pin-v2 rule 3) defines it: its "arguments"
// is an array with an object element whose "required" is the literal
// true. Anything else ("required": false or null, "arguments" absent or
// null) is no required argument, and the prompt is got.
func requiresArguments(args jsontext.Value) bool {
	if args.Kind() != '[' {
		return false
	}
	values, _ := elements(args, "")
	for _, v := range values {
		if v.Kind() != '{' {
			continue
		}
		if am, err := members(v); err == nil && am["required"].Kind() == 't' {
			return true
		}
	}
	return false
}

// withMessages writes the prompt object raw, as received, with a member
// "messages" holding msgs added last.
func withMessages(raw, msgs []byte) json.RawMessage {
	end := bytes.LastIndexByte(raw, '}')
	out := make([]byte, 0, len(raw)+len(msgs)+12)
	out = append(out, raw[:end]...)
	out = append(out, `,"messages":`...)
	out = append(out, msgs...)
	return append(out, raw[end:]...)
}

// canonical returns the JCS form of v, or v itself when it has none.
func canonical(v []byte) []byte {
	c := jsontext.Value(bytes.Clone(v))
	if c.Canonicalize() != nil {
		return v
	}
	return c
}
