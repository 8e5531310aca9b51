package layering

import (
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const module = "github.com/mcpreg/mcpreg"

// public are the packages other programs may import: the host-side client,
// runtime gate and verifiers, the pin specification, the generated API, and the live
// reader with its snapshot and finding types. Everything else is internal.
var public = []string{
	"attest", "attest/attesttest", "client", "discovery", "finding", "gate", "hostclient",
	"pin", "proto/mcpreg/v1", "scan", "signing",
}

// TestOnlyThePublicPackagesArePublic: every package outside internal/ and
// cmd/ (and the scripts, which are programs) is on the public list, so a
// new package is internal unless someone decides otherwise here.
func TestOnlyThePublicPackagesArePublic(t *testing.T) {
	pkgs := load(t, packages.NeedName, module+"/...")
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, module), "/")
		switch {
		case rel == "" || isInternal(p.PkgPath), strings.HasPrefix(rel, "cmd/"), strings.HasPrefix(rel, "scripts/"):
		case !slices.Contains(public, rel):
			t.Errorf("package %s is public but not on the public list: move it under internal/ or add it here", rel)
		}
	}
}

// TestPublicAPIsMentionNoInternalType: no exported identifier of a public
// package (function signature, type, field, method, variable) names a type
// from an internal package, which other programs could not use.
func TestPublicAPIsMentionNoInternalType(t *testing.T) {
	paths := make([]string, len(public))
	for i, p := range public {
		paths[i] = module + "/" + p
	}
	for _, p := range load(t, packages.NeedName|packages.NeedTypes, paths...) {
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			w := walker{seen: map[types.Type]bool{}}
			w.walk(obj.Type())
			if tn, ok := obj.(*types.TypeName); ok {
				if named, ok := tn.Type().(*types.Named); ok {
					for m := range named.Methods() {
						if m.Exported() {
							w.walk(m.Type())
						}
					}
				}
			}
			for _, bad := range w.internal {
				t.Errorf("%s.%s mentions the internal type %s", p.PkgPath, name, bad)
			}
		}
	}
}

func isInternal(path string) bool {
	return strings.Contains(path+"/", "/internal/")
}

func load(t *testing.T, mode packages.LoadMode, patterns ...string) []*packages.Package {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: mode, Tests: false}, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
	}
	return pkgs
}

// walker collects the internal named types reachable from a type through
// what a caller can see: exported fields, parameters, results, elements.
type walker struct {
	seen     map[types.Type]bool
	internal []string
}

func (w *walker) walk(t types.Type) {
	if t == nil || w.seen[t] {
		return
	}
	w.seen[t] = true
	switch t := t.(type) {
	case *types.Named:
		if pkg := t.Obj().Pkg(); pkg != nil && isInternal(pkg.Path()) {
			w.internal = append(w.internal, t.String())
			return
		}
		if pkg := t.Obj().Pkg(); pkg == nil || !strings.HasPrefix(pkg.Path(), module) {
			return // the standard library and other modules are not ours to check
		}
		for i := range t.TypeArgs().Len() {
			w.walk(t.TypeArgs().At(i))
		}
		w.walk(t.Underlying())
		for m := range t.Methods() {
			if m.Exported() {
				w.walk(m.Type())
			}
		}
	case *types.Alias:
		w.walk(types.Unalias(t))
	case *types.Pointer:
		w.walk(t.Elem())
	case *types.Slice:
		w.walk(t.Elem())
	case *types.Array:
		w.walk(t.Elem())
	case *types.Map:
		w.walk(t.Key())
		w.walk(t.Elem())
	case *types.Chan:
		w.walk(t.Elem())
	case *types.Signature:
		w.walk(t.Params())
		w.walk(t.Results())
	case *types.Tuple:
		for v := range t.Variables() {
			w.walk(v.Type())
		}
	case *types.Struct:
		for f := range t.Fields() {
			if f.Exported() || f.Embedded() {
				w.walk(f.Type())
			}
		}
	case *types.Interface:
		for m := range t.Methods() {
			if m.Exported() {
				w.walk(m.Type())
			}
		}
	}
}
