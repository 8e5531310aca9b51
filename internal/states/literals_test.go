package states_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/states"
)

// guarded maps a field, getter, JSON member, ent field or variable name
// (lower case, without underscores) to the type whose values it holds.
var guarded = map[string]guard{
	"outcome":        guardOf("states.ScanOutcome", states.ScanOutcomes()),
	"errorkind":      guardOf("states.ScanErrorKind", states.ScanErrorKinds()),
	"trigger":        guardOf("states.ScanTrigger", states.ScanTriggers()),
	"quarantinekind": guardOf("states.QuarantineKind", states.QuarantineKinds()),
	"status":         guardOf("states.DriftStatus", states.DriftStatuses()),
	"class":          guardOf("diffreview.Class", diffreview.Classes),
	"classes":        guardOf("diffreview.Class", diffreview.Classes),
}

type guard struct {
	typ    string
	values []string
}

func guardOf[T ~string](typ string, values []T) guard {
	g := guard{typ: typ}
	for _, v := range values {
		g.values = append(g.values, string(v))
	}
	return g
}

// labelled are the guarded names that are also metric labels: values
// given to WithLabelValues are checked against them.
var labelled = []string{"outcome", "trigger", "quarantinekind", "class"}

// predicateSuffixes make the names of ent's predicates of a field, e.g.
// scan.Outcome, scan.OutcomeNEQ, driftevent.StatusIn.
var predicateSuffixes = []string{"", "EQ", "NEQ", "In", "NotIn", "GT", "GTE", "LT", "LTE",
	"Contains", "HasPrefix", "HasSuffix", "EqualFold", "ContainsFold"}

// constantPackages are the packages whose typed constants must not be
// compared with a decoded JSON value as they are.
var constantPackages = []string{"states", "diffreview"}

// TestNoStateLiterals fails when code spells one of these values as a
// string literal where it compares or sets one: compared (== or !=) with,
// assigned to, keyed in a composite literal as, or switched on a field,
// getter, JSON member or variable of a guarded name; given to the ent
// setter or a predicate of such a field (SetOutcome, scan.OutcomeNEQ) or
// as its schema default; or given to WithLabelValues. It also fails when a
// typed constant is compared as it is with a decoded JSON value (m["status"]
// == states.DriftOpen is never true: the value is a string, not a
// DriftStatus).
//
// It reads the hand-written Go files, tests included, of internal/ (but
// this package and the generated ent code) and cmd/. Text a person types
// or reads stays literal and is not checked: command-line arguments,
// expected output, URLs, JSON fixtures and pinned messages. Nor does it
// follow values through parameters or variables of other names.
func TestNoStateLiterals(t *testing.T) {
	root := filepath.Join("..", "..")
	skip := []string{filepath.Join(root, "internal", "ent"), filepath.Join(root, "internal", "states")}
	var files int
	for _, dir := range []string{"internal", filepath.Join("internal", "ent", "schema"), "cmd"} {
		top := filepath.Join(root, dir)
		err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && path != top && (slices.Contains(skip, path) || d.Name() == "testdata"):
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, ".go"):
				return nil
			}
			files++
			rel, _ := filepath.Rel(root, path)
			for _, p := range problemsIn(t, path) {
				t.Errorf("%s:%s", rel, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("read %d Go files: is the module root at ../..?", files)
	}
}

// TestTheGuardFindsLiterals runs the checks on code that breaks each rule
// once, and on code that keeps them.
func TestTheGuardFindsLiterals(t *testing.T) {
	const bad = `package p
func f() {
	_ = sc.Outcome == "error"
	_ = "open" != ev.GetStatus()
	_ = m["errorKind"] == "abandoned"
	_ = m["classes"].([]any)[0] == "tool_added"
	v.QuarantineKind = "drift"
	status := "warned"
	_ = DriftFilter{Status: "open"}
	_ = map[string]any{"trigger": "manual"}
	switch sc.Outcome {
	case "match", "running":
	}
	tx.Scan.Update().SetOutcome("drift").SetErrorKind("timeout")
	_ = scan.OutcomeNEQ("running")
	_ = version.QuarantineKindIn("manual", "reverify")
	metrics.WithLabelValues("host_report", "match")
	_ = field.String("status").Optional().Default("open")
	_ = m["status"] == states.DriftOpen
}`
	const good = `package p
func f() {
	_ = sc.Outcome == string(states.OutcomeError)
	_ = m["status"] == string(states.DriftOpen)
	_ = m["error"] == "error"
	_ = sc.Outcome == "open"
	_ = ev.Status == "error"
	_ = x.Kind == "drift"
	tx.Scan.Update().SetError("timeout")
	_ = field.String("error").Default("error")
	run("drift", "list", "--status", "open")
	_ = strings.Contains(out, "match")
}`
	for _, tt := range []struct {
		name, src string
		want      int
	}{{"bad", bad, 19}, {"good", good, 0}} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, tt.name+".go", tt.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		c := checker{fset: fset}
		ast.Inspect(f, c.visit)
		if len(c.found) != tt.want {
			t.Errorf("%s code: found %d, want %d: %v", tt.name, len(c.found), tt.want, c.found)
		}
	}
}

func problemsIn(t *testing.T, path string) []problem {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if ast.IsGenerated(f) {
		return nil
	}
	c := checker{fset: fset}
	ast.Inspect(f, c.visit)
	return c.found
}
