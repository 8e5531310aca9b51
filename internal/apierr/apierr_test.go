package apierr_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/mcpreg/mcpreg/internal/apierr"
	"github.com/mcpreg/mcpreg/internal/domain"
)

// sentinels is every exported sentinel error the services declare, with
// the answer each gets. TestEverySentinelListed keeps the list complete.
var sentinels = map[string]struct {
	err  error
	code codes.Code
	http int
}{
	"ErrInvalid":            {domain.ErrInvalid, codes.InvalidArgument, http.StatusBadRequest},
	"ErrNotFound":           {domain.ErrNotFound, codes.NotFound, http.StatusNotFound},
	"ErrAlreadyExists":      {domain.ErrAlreadyExists, codes.AlreadyExists, http.StatusConflict},
	"ErrConflict":           {domain.ErrConflict, codes.Aborted, http.StatusConflict},
	"ErrFailedPrecondition": {domain.ErrFailedPrecondition, codes.FailedPrecondition, http.StatusConflict},
	"ErrUnauthenticated":    {domain.ErrUnauthenticated, codes.Unauthenticated, http.StatusUnauthorized},
	"ErrPermissionDenied":   {domain.ErrPermissionDenied, codes.PermissionDenied, http.StatusForbidden},
	"ErrTooLarge":           {domain.ErrTooLarge, codes.ResourceExhausted, http.StatusRequestEntityTooLarge},
	"ErrRateLimited":        {domain.ErrRateLimited, codes.ResourceExhausted, http.StatusTooManyRequests},
	"ErrThrottled":          {domain.ErrThrottled, codes.ResourceExhausted, http.StatusTooManyRequests},
}

// TestEverySentinelListed: the sentinels the registry's source declares
// (var ErrX = errors.New(...), alone or in a var block) are exactly the
// ones listed above, so a new sentinel fails here until it has an answer.
func TestEverySentinelListed(t *testing.T) {
	var declared []string
	for _, dir := range sentinelDirs {
		got := declaredSentinels(t, dir)
		if dir == "domain" && len(got) == 0 {
			t.Fatal("found no sentinel in ../domain: the parser looks in the wrong place")
		}
		declared = append(declared, got...)
	}
	slices.Sort(declared)
	var listed []string
	for name := range sentinels {
		listed = append(listed, name)
	}
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Fatalf("the services declare sentinels %v, the test lists %v: give every sentinel an entry in apierr's table and here", declared, listed)
	}
}

// sentinelDirs are the packages (under internal/) whose sentinels the
// transport answers: the shared vocabulary and the services.
var sentinelDirs = []string{"domain", "registry", "identity"}

// declaredSentinels parses dir/*.go (not tests) for exported package
// variables named Err... initialised with errors.New.
func declaredSentinels(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			names = append(names, sentinelsOf(decl)...)
		}
	}
	slices.Sort(names)
	return names
}

func sentinelsOf(decl ast.Decl) []string {
	gd, ok := decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		return nil
	}
	var names []string
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, name := range vs.Names {
			if !strings.HasPrefix(name.Name, "Err") || !name.IsExported() || i >= len(vs.Values) {
				continue
			}
			if isErrorsNew(vs.Values[i]) {
				names = append(names, name.Name)
			}
		}
	}
	return names
}

func isErrorsNew(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "errors" && sel.Sel.Name == "New"
}

// TestEverySentinelHasAnEntry: each sentinel has its own entry, with the
// code and status listed, and errors wrapping it find that entry.
func TestEverySentinelHasAnEntry(t *testing.T) {
	for name, want := range sentinels {
		t.Run(name, func(t *testing.T) {
			var own []apierr.Entry
			for _, e := range apierr.Entries() {
				if e.Err == want.err { //nolint:errorlint // the entry must hold the sentinel itself, not an error wrapping it
					own = append(own, e)
				}
			}
			if len(own) != 1 {
				t.Fatalf("%d entries for domain.%s, want 1", len(own), name)
			}
			if own[0].Code != want.code || own[0].HTTP != want.http {
				t.Fatalf("domain.%s: %s and %d, want %s and %d", name, own[0].Code, own[0].HTTP, want.code, want.http)
			}
			wrapped := fmt.Errorf("%w: server %s", want.err, "io.github.acme/x")
			got, ok := apierr.Of(wrapped)
			if !ok || got.Err != want.err { //nolint:errorlint // Of must answer with the sentinel itself
				t.Fatalf("Of(%v) = %v, %t", wrapped, got.Err, ok)
			}
			if msg := got.Message(wrapped); msg != "server io.github.acme/x" {
				t.Fatalf("Message = %q", msg)
			}
		})
	}
	if _, ok := apierr.Of(errors.New("disk on fire")); ok {
		t.Fatal("an error wrapping no sentinel has an entry")
	}
}

// TestGatewayStatusFromCode: the HTTP status the gateway derives from a
// gRPC code and ErrorInfo reason is each entry's own, so REST answers what
// the table says although it sees only the gRPC status.
func TestGatewayStatusFromCode(t *testing.T) {
	for _, e := range apierr.Entries() {
		if got, ok := apierr.HTTPStatus(e.Code, e.Reason); !ok || got != e.HTTP {
			t.Errorf("%v: HTTPStatus(%s, %q) = %d, %t; want %d", e.Err, e.Code, e.Reason, got, ok, e.HTTP)
		}
	}
	if got, ok := apierr.HTTPStatus(codes.FailedPrecondition, "SOMETHING_ELSE"); !ok || got != http.StatusConflict {
		t.Errorf("an unknown reason: %d, %t; want the code's 409", got, ok)
	}
	if _, ok := apierr.HTTPStatus(codes.Internal, ""); ok {
		t.Error("Internal has an entry: it is no registry sentinel's code")
	}
}
