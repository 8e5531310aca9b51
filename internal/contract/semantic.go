package contract

import (
	"fmt"
	"strconv"
)

// semanticViolations finds what the schema cannot say: two tool entries
// or two secrets with one name, and duration strings that do not parse or
// are out of range. It reads the generic document and skips whatever has
// the wrong shape (the schema reports that).
func semanticViolations(doc any) []Violation {
	root, _ := doc.(map[string]any)
	var vs []Violation
	vs = append(vs, duplicateNames(root["tools"], "/tools", "tool entry")...)
	vs = append(vs, duplicateNames(root["secrets"], "/secrets", "secret")...)
	if auth, ok := root["auth"].(map[string]any); ok {
		vs = append(vs, durationViolation(auth["tokenTtl"], "/auth/tokenTtl", MaxTokenTTLSeconds)...)
	}
	tools, _ := root["tools"].([]any)
	for i, t := range tools {
		if t, ok := t.(map[string]any); ok {
			vs = append(vs, durationViolation(t["timeout"], pointer("tools", strconv.Itoa(i), "timeout"), MaxTimeoutSeconds)...)
		}
	}
	return vs
}

// duplicateNames reports every entry of list whose "name" an earlier entry
// already used, at the later entry's name.
func duplicateNames(list any, at, what string) []Violation {
	items, _ := list.([]any)
	first := map[string]int{}
	var vs []Violation
	for i, item := range items {
		obj, _ := item.(map[string]any)
		name, ok := obj["name"].(string)
		if !ok {
			continue
		}
		if j, dup := first[name]; dup {
			vs = append(vs, Violation{
				Pointer: fmt.Sprintf("%s/%d/name", at, i),
				Message: fmt.Sprintf("duplicate %s %q (first at %s/%d)", what, abbreviate(name, 80), at, j),
			})
			continue
		}
		first[name] = i
	}
	return vs
}

// durationViolation checks a duration given as a string; integers are the
// schema's business.
func durationViolation(v any, at string, maxSecs int64) []Violation {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	if _, msg := durationSeconds(s, maxSecs); msg != "" {
		return []Violation{{Pointer: at, Message: msg}}
	}
	return nil
}
