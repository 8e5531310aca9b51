package serverjson

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/registry/pkg/model"
)

// model.Argument decodes itself with encoding/json, which matches member
// names case-insensitively (with Unicode folding: "iſRepeated" is
// "isRepeated"). The schema matches them exactly. So in an argument a
// member "NAME" or "Type" is an unchecked extra to the schema but sets
// Name or Type in the decoded value, overriding what the schema checked:
// a reviewed positional argument could decode as a named "--evil" flag.
// Parse therefore rejects, inside arguments and their variables, member
// names that equal a field name only under case folding.

var (
	argumentNames = jsonNames(reflect.TypeFor[model.Argument]())
	inputNames    = jsonNames(reflect.TypeFor[model.Input]())
)

// jsonNames lists the JSON member names of struct type t, following
// embedded structs the way encoding/json does.
func jsonNames(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			names = append(names, jsonNames(f.Type)...)
		case f.IsExported() && name != "-":
			names = append(names, cmp.Or(name, f.Name))
		}
	}
	return names
}

// caseViolations checks every argument of every package.
func caseViolations(doc map[string]any) []Violation {
	var vs []Violation
	for i, p := range asSlice(doc["packages"]) {
		pkg, _ := p.(map[string]any)
		for _, list := range []string{"runtimeArguments", "packageArguments"} {
			for j, a := range asSlice(pkg[list]) {
				vs = append(vs, argumentCaseViolations(a, fmt.Sprintf("/packages/%d/%s/%d", i, list, j))...)
			}
		}
	}
	return vs
}

func argumentCaseViolations(arg any, ptr string) []Violation {
	obj, _ := arg.(map[string]any)
	vs := foldedNames(obj, argumentNames, ptr)
	vars, _ := obj["variables"].(map[string]any)
	for name, in := range vars {
		input, _ := in.(map[string]any)
		vs = append(vs, foldedNames(input, inputNames, ptr+"/variables/"+escapeToken(name))...)
	}
	return vs
}

// foldedNames reports members of obj whose name is not one of known but
// equals one under Unicode case folding.
func foldedNames(obj map[string]any, known []string, ptr string) []Violation {
	var vs []Violation
	for name := range obj {
		if slices.Contains(known, name) {
			continue
		}
		for _, k := range known {
			if strings.EqualFold(name, k) {
				vs = append(vs, Violation{
					Pointer: ptr + "/" + escapeToken(name),
					Message: fmt.Sprintf("member name %q differs from %q only in letter case; use %q", name, k, k),
				})
			}
		}
	}
	return vs
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}
