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
//     (web), which call services;
//   - wiring: cmd/ and the store, migrations and ent packages, which are
//     the only ones to open databases.
var (
	services  = []string{"internal/registry", "internal/identity", "internal/domain"}
	transport = []string{"internal/server", "internal/web"}
)

// knownImports are the layering exceptions that exist today, each with
// why; the tests fail on any other. The builder that turns a Config into services and opens the
// store belongs to the wiring, not the transport.
var knownImports = map[string]string{
	"internal/server -> internal/store":      "Run takes the store for the health check; the builder (ServiceOptions) lives in server",
	"internal/server -> internal/fetch":      "the builder configures the npm fetcher",
	"internal/server -> internal/sandbox":    "the builder sets up the scan sandbox",
	"internal/server -> internal/auditchain": "the builder reads the checkpoint signing key",
}

// maxServiceMethods is the most exported methods a service type may have.
const maxServiceMethods = 15

// TestLayers: services import no transport; the transport imports no ent
// package and no wiring beyond the known exceptions.
func TestLayers(t *testing.T) {
	pkgs := load(t, packages.NeedName|packages.NeedImports, module+"/...")
	for _, p := range pkgs {
		rel := relPath(p.PkgPath)
		for imp := range p.Imports {
			irel := relPath(imp)
			switch {
			case inLayer(rel, services) && inLayer(irel, transport):
				t.Errorf("service %s imports the transport %s", rel, irel)
			case inLayer(rel, services) && strings.HasPrefix(imp, "google.golang.org/grpc"):
				t.Errorf("service %s imports gRPC (%s): status codes belong to the transport", rel, imp)
			case inLayer(rel, transport) && !strings.HasSuffix(rel, "test") && strings.HasPrefix(irel, "internal/ent"):
				t.Errorf("transport %s imports the ent package %s: it calls services, which own the store", rel, irel)
			case inLayer(rel, transport) && !strings.HasSuffix(rel, "test") && isWiring(irel):
				if _, ok := knownImports[rel+" -> "+irel]; !ok {
					t.Errorf("transport %s imports %s: only cmd/ wires stores and fetchers", rel, irel)
				}
			}
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

func isWiring(rel string) bool {
	return slices.ContainsFunc([]string{"internal/store", "internal/migrations", "internal/fetch", "internal/sandbox", "internal/auditchain"},
		func(w string) bool { return rel == w || strings.HasPrefix(rel, w+"/") })
}
