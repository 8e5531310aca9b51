package gate

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/pin"
)

// promptFilter holds a session's prompts to the entry's per-prompt pins
// when the entry is pinned under mcpreg-pin-v2 (discovery Pins.Prompts).
// A prompt's pin covers its name, title, description, arguments and, when
// it takes no required argument, the messages prompts/get returns. So a
// listed prompt with a required argument is checked when listed; one
// without is listed when pinned and checked when a client gets it, since
// only its messages, which reach the model, complete what the pin covers.
// Under mcpreg-pin-v1 prompts pass as before.
type promptFilter struct {
	active bool
	pins   map[string]string // name → prompt_hash

	mu sync.Mutex
	// listed are the prompts the last listings passed, by name.
	listed map[string]listedPrompt
}

// listedPrompt is a prompt a listing passed: its object as received and
// whether it takes a required argument (then it was checked whole).
type listedPrompt struct {
	raw       json.RawMessage
	needsArgs bool
}

func newPromptFilter(e discovery.Entry) *promptFilter {
	f := &promptFilter{active: e.Pins.SpecVersion == pin.SpecVersionV2, pins: map[string]string{}, listed: map[string]listedPrompt{}}
	for _, p := range e.Pins.Prompts {
		f.pins[p.Name] = p.Hash
	}
	return f
}

// promptLimits bound reading one prompt (the whole message is bounded
// already by the relay).
var promptLimits = pin.Limits{MaxBytes: DefaultMaxMessageBytes}

// filterList returns a prompts/list result with only the prompts the pins
// cover, and names the others with why. A result that cannot be read
// passes no prompt.
func (f *promptFilter) filterList(result json.RawMessage) (json.RawMessage, []string) {
	if !f.active {
		return result, nil
	}
	members, err := objectMembers(result)
	i := slices.IndexFunc(members, func(m member) bool { return m.name == "prompts" })
	if err != nil || i < 0 || foldedLike(members, "prompts") != "prompts" {
		return json.RawMessage(`{"prompts":[]}`), []string{"the prompts/list result cannot be read"}
	}
	prompts, err := arrayElements(members[i].value)
	if err != nil {
		return json.RawMessage(`{"prompts":[]}`), []string{"the prompts/list result cannot be read: " + err.Error()}
	}
	var kept []json.RawMessage
	var withheld []string
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, raw := range prompts {
		p, hash, err := pin.ParsePrompt(raw, promptLimits)
		want, pinned := f.pins[p.Name]
		switch {
		case err != nil:
			withheld = append(withheld, "a prompt that cannot be read: "+err.Error())
		case !pinned:
			withheld = append(withheld, fmt.Sprintf("%q (not in the signed pins)", p.Name))
		case p.NeedsArguments && hash != want:
			withheld = append(withheld, fmt.Sprintf("%q (differs from its signed pin)", p.Name))
		default:
			f.listed[p.Name] = listedPrompt{raw: raw, needsArgs: p.NeedsArguments}
			kept = append(kept, raw)
			continue
		}
		delete(f.listed, p.Name)
	}
	if len(withheld) == 0 {
		return result, nil
	}
	members[i].value = joinArray(kept)
	return joinObject(members), withheld
}

// refuseGet says why a prompts/get of name is refused before it reaches
// the server, or "".
func (f *promptFilter) refuseGet(name string) string {
	if !f.active {
		return ""
	}
	if _, ok := f.pins[name]; !ok {
		return fmt.Sprintf("prompt %q is not in the signed pins of this version", name)
	}
	return ""
}

// checkGet says why a prompts/get result for name is refused, or "": the
// prompt as listed with the result's messages must hash to its pin.
func (f *promptFilter) checkGet(name string, result json.RawMessage) string {
	if !f.active {
		return ""
	}
	f.mu.Lock()
	lp, listed := f.listed[name]
	f.mu.Unlock()
	switch {
	case !listed:
		return fmt.Sprintf("prompt %q was not passed by a prompts/list of this session, so what it is cannot be checked against its pin: list prompts first", name)
	case lp.needsArgs:
		return "" // checked when listed; its messages depend on the arguments
	}
	members, err := objectMembers(result)
	if err != nil {
		return "the prompts/get result cannot be read: " + err.Error()
	}
	var messages json.RawMessage
	for _, m := range members {
		if m.name == "messages" {
			messages = m.value
		}
	}
	if messages == nil {
		return "the prompts/get result has no messages"
	}
	entry, err := objectMembers(lp.raw)
	if err != nil {
		return "the listed prompt cannot be read: " + err.Error()
	}
	entry = slices.DeleteFunc(entry, func(m member) bool { return m.name == "messages" })
	got, hash, err := pin.ParsePrompt(joinObject(append(entry, member{name: "messages", value: messages})), promptLimits)
	switch {
	case err != nil:
		return fmt.Sprintf("prompt %q with its messages cannot be read: %v", name, err)
	case got.Name != name || hash != f.pins[name]:
		return fmt.Sprintf("prompt %q with the messages the server returned differs from its signed pin", name)
	}
	return ""
}

// promptName is the "name" of prompts/get params, read strictly: "" when
// unreadable, not a string, or beside a member that differs from "name"
// only by case (servers that match case-insensitively could read the
// other).
func promptName(params json.RawMessage) string {
	ms, err := objectMembers(params)
	if err != nil || foldedLike(ms, "name") != "name" {
		return ""
	}
	for _, m := range ms {
		if m.name == "name" {
			var name string
			if json.Unmarshal(m.value, &name) == nil {
				return name
			}
		}
	}
	return ""
}
