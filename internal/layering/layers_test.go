package layering

import (
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The layers, by package path below the module (docs/architecture.md):
//   - services: the use-cases over the store (registry, identity) and the
//     vocabulary they share (domain);
//   - transport: gRPC, REST and the official API (server) and the web UI
//     (web), which call services and read the configuration (config);
//   - wiring: what opens databases, fetchers and sandboxes and builds the
//     services from a configuration (wiring, store, migrations, fetch,
//     sandbox), used by cmd/ and the test helpers only.
var (
	services  = []string{"internal/registry", "internal/identity", "internal/domain"}
	transport = []string{"internal/server", "internal/web"}
	wiring    = []string{"internal/wiring", "internal/store", "internal/migrations", "internal/fetch", "internal/sandbox"}
	// builders may build services: they import the wiring package.
	builders = []string{"cmd"}
	// storeOwners may import the store and the migrations: the services
	// own the store, the wiring opens it, cmd/ migrates it, and the
	// development programs of scripts/ (the scale measurement) seed and
	// inspect measurement databases.
	storeOwners = []string{"internal/registry", "internal/identity", "internal/wiring", "internal/store", "internal/migrations", "cmd", "scripts"}
)

// maxServiceMethods is the most exported methods a service type may have.
const maxServiceMethods = 15

// TestLayers: services import no transport and no gRPC; the transport
// imports no ent package and no wiring; only cmd/ builds services (imports
// the wiring package); only services, the wiring and cmd/ import the store
// and the migrations. Test helpers (packages ending in "test") may do
// what tests need.
func TestLayers(t *testing.T) {
	pkgs := load(t, packages.NeedName|packages.NeedImports, module+"/...")
	checked := 0
	for _, p := range pkgs {
		rel := relPath(p.PkgPath)
		if strings.HasSuffix(rel, "test") {
			continue
		}
		for imp := range p.Imports {
			irel := relPath(imp)
			checked++
			for _, err := range layerErrors(rel, irel, imp) {
				t.Error(err)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d imports: did the packages load?", checked)
	}
}

// layerErrors are the rules one import of package rel breaks.
func layerErrors(rel, irel, imp string) []string {
	var errs []string
	if inLayer(rel, services) && inLayer(irel, transport) {
		errs = append(errs, "service "+rel+" imports the transport "+irel)
	}
	if inLayer(rel, services) && strings.HasPrefix(imp, "google.golang.org/grpc") {
		errs = append(errs, "service "+rel+" imports gRPC ("+imp+"): status codes belong to the transport")
	}
	if inLayer(rel, transport) && strings.HasPrefix(irel, "internal/ent") {
		errs = append(errs, "transport "+rel+" imports the ent package "+irel+": it calls services, which own the store")
	}
	if inLayer(rel, transport) && inLayer(irel, wiring) {
		errs = append(errs, "transport "+rel+" imports "+irel+": only cmd/ wires stores, fetchers and sandboxes")
	}
	if irel == "internal/wiring" && !inLayer(rel, builders) {
		errs = append(errs, rel+" imports internal/wiring: only cmd/ builds services")
	}
	if (irel == "internal/store" || irel == "internal/migrations") && !inLayer(rel, storeOwners) {
		errs = append(errs, rel+" imports "+irel+": only services, the wiring and cmd/ reach the store")
	}
	return errs
}

// TestLayerRules: each rule catches the import it is about (so a rule
// that can never fire fails here, not silently in TestLayers).
func TestLayerRules(t *testing.T) {
	for _, tc := range []struct{ from, to, imp string }{
		{"internal/registry", "internal/server", ""},
		{"internal/identity", "", "google.golang.org/grpc/codes"},
		{"internal/web", "internal/ent/version", ""},
		{"internal/server", "internal/store", ""},
		{"internal/server", "internal/sandbox", ""},
		{"internal/server", "internal/wiring", ""},
		{"internal/registry", "internal/wiring", ""},
		{"internal/diffreview", "internal/store", ""},
	} {
		imp := tc.imp
		if imp == "" {
			imp = module + "/" + tc.to
		}
		if len(layerErrors(tc.from, tc.to, imp)) == 0 {
			t.Errorf("%s importing %s breaks no rule", tc.from, imp)
		}
	}
	for _, ok := range [][2]string{{"cmd/mcpregd", "internal/wiring"}, {"internal/server", "internal/config"},
		{"internal/wiring", "internal/store"}, {"internal/registry", "internal/store"}, {"internal/server", "internal/registry"}} {
		if errs := layerErrors(ok[0], ok[1], module+"/"+ok[1]); len(errs) > 0 {
			t.Errorf("%s importing %s is allowed, got %v", ok[0], ok[1], errs)
		}
	}
}

// TestServiceSize: no service type has more than maxServiceMethods
// exported methods. A service type is an exported type of a service
// package with an exported method whose first parameter is a
// context.Context (a use-case), so a new service is counted without being
// listed here.
func TestServiceSize(t *testing.T) {
	paths := make([]string, len(services))
	for i, s := range services {
		paths[i] = module + "/" + s
	}
	seen := 0
	for _, p := range load(t, packages.NeedName|packages.NeedTypes, paths...) {
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || !tn.Exported() {
				continue
			}
			n, useCases := exportedMethods(tn.Type())
			if useCases == 0 {
				continue
			}
			seen++
			key := relPath(p.PkgPath) + "." + name
			if n > maxServiceMethods {
				t.Errorf("%s has %d exported methods, more than %d: split it", key, n, maxServiceMethods)
			}
			t.Logf("%s: %d exported methods", key, n)
		}
	}
	if seen < 6 {
		t.Errorf("found %d service types, want the five registry services and identity: is the rule still finding them?", seen)
	}
}

// exportedMethods counts the exported methods of *T, and those among them
// whose first parameter is a context.Context.
func exportedMethods(t types.Type) (n, useCases int) {
	ms := types.NewMethodSet(types.NewPointer(t))
	for sel := range ms.Methods() {
		if !sel.Obj().Exported() {
			continue
		}
		n++
		sig, ok := sel.Type().(*types.Signature)
		if ok && sig.Params().Len() > 0 && types.TypeString(sig.Params().At(0).Type(), nil) == "context.Context" {
			useCases++
		}
	}
	return n, useCases
}

func relPath(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
}

func inLayer(rel string, layer []string) bool {
	return slices.ContainsFunc(layer, func(l string) bool { return rel == l || strings.HasPrefix(rel, l+"/") })
}
