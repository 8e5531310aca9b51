package states_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
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

// problem is one place that should use a constant.
type problem struct {
	line int
	what string
}

func (p problem) String() string { return strconv.Itoa(p.line) + ": " + p.what }

type checker struct {
	fset  *token.FileSet
	found []problem
}

func (c *checker) report(at ast.Node, what string) {
	c.found = append(c.found, problem{c.fset.Position(at.Pos()).Line, what})
}

// check reports lit when it is a string literal holding one of the values
// of the guarded name.
func (c *checker) check(name string, lit ast.Expr, where string) {
	g, ok := guarded[normalise(name)]
	if !ok {
		return
	}
	if s, ok := stringLit(lit); ok && slices.Contains(g.values, s) {
		c.report(lit, strconv.Quote(s)+" "+where+": use the "+g.typ+" constant")
	}
}

func (c *checker) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.BinaryExpr:
		if n.Op == token.EQL || n.Op == token.NEQ {
			c.check(nameOf(n.X), n.Y, "compared with "+nameOf(n.X))
			c.check(nameOf(n.Y), n.X, "compared with "+nameOf(n.Y))
			c.checkJSONComparison(n)
		}
	case *ast.AssignStmt:
		if len(n.Rhs) == len(n.Lhs) {
			for i, lhs := range n.Lhs {
				c.check(nameOf(lhs), n.Rhs[i], "assigned to "+nameOf(lhs))
			}
		}
	case *ast.ValueSpec:
		for i, id := range n.Names {
			if i < len(n.Values) {
				c.check(id.Name, n.Values[i], "assigned to "+id.Name)
			}
		}
	case *ast.KeyValueExpr:
		c.check(nameOf(n.Key), n.Value, "as "+nameOf(n.Key))
	case *ast.SwitchStmt:
		if n.Tag != nil {
			for _, s := range n.Body.List {
				for _, e := range s.(*ast.CaseClause).List {
					c.check(nameOf(n.Tag), e, "in a switch on "+nameOf(n.Tag))
				}
			}
		}
	case *ast.CallExpr:
		c.checkCall(n)
	}
	return true
}

// checkCall looks at the arguments of ent setters, predicates and schema
// defaults of guarded fields, and of WithLabelValues.
func (c *checker) checkCall(call *ast.CallExpr) {
	fn := funcName(call.Fun)
	switch fn {
	case "WithLabelValues":
		for _, a := range call.Args {
			c.checkLabel(a)
		}
		return
	case "Default":
		if field, ok := schemaField(call); ok && len(call.Args) == 1 {
			c.check(field, call.Args[0], "as the default of the ent field "+field)
		}
		return
	}
	field, ok := strings.CutPrefix(fn, "Set")
	if !ok {
		field = predicateField(fn)
	}
	if field == "" {
		return
	}
	for _, a := range call.Args {
		c.check(field, a, "given to "+fn)
	}
}

// checkLabel reports a metric label value spelt as a literal, naming every
// type it may be a value of.
func (c *checker) checkLabel(lit ast.Expr) {
	s, ok := stringLit(lit)
	if !ok {
		return
	}
	var types []string
	for _, name := range labelled {
		if g := guarded[name]; slices.Contains(g.values, s) {
			types = append(types, g.typ)
		}
	}
	if len(types) > 0 {
		c.report(lit, strconv.Quote(s)+" as a metric label: use the "+strings.Join(types, " or ")+" constant")
	}
}

// checkJSONComparison reports a typed constant compared as it is with a
// value read from decoded JSON (an any), which it never equals.
func (c *checker) checkJSONComparison(n *ast.BinaryExpr) {
	for _, side := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
		sel, ok := side[1].(*ast.SelectorExpr)
		if !ok || !decodedJSON(side[0]) {
			continue
		}
		if pkg, ok := sel.X.(*ast.Ident); ok && slices.Contains(constantPackages, pkg.Name) {
			c.report(sel, pkg.Name+"."+sel.Sel.Name+" compared with a decoded JSON value, which holds a string: compare string("+
				pkg.Name+"."+sel.Sel.Name+")")
		}
	}
}

// decodedJSON reports whether e reads a member or element of decoded
// JSON: m["key"], or an element of a value asserted to be a slice.
func decodedJSON(e ast.Expr) bool {
	ix, ok := e.(*ast.IndexExpr)
	if !ok {
		return false
	}
	_, key := stringLit(ix.Index)
	_, asserted := ix.X.(*ast.TypeAssertExpr)
	return key || asserted
}

// predicateField is the guarded field an ent predicate such as OutcomeNEQ
// is about, or "".
func predicateField(fn string) string {
	for _, s := range predicateSuffixes {
		if f, ok := strings.CutSuffix(fn, s); ok && f != "" {
			if _, ok := guarded[normalise(f)]; ok {
				return f
			}
		}
	}
	return ""
}

// schemaField is the name of the ent schema field whose builder chain the
// call ends, e.g. "outcome" for field.String("outcome").Default(...).
func schemaField(call *ast.CallExpr) (string, bool) {
	for {
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "field" && len(call.Args) > 0 {
			return stringLit(call.Args[0])
		}
		if call, ok = sel.X.(*ast.CallExpr); !ok {
			return "", false
		}
	}
}

// nameOf is the name an expression reads a value from: the field, getter,
// variable, or string map key (JSON member); through indexing, type
// assertions, parentheses and one-argument calls such as conversions.
func nameOf(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.BasicLit:
		s, _ := stringLit(e)
		return s
	case *ast.ParenExpr:
		return nameOf(e.X)
	case *ast.StarExpr:
		return nameOf(e.X)
	case *ast.TypeAssertExpr:
		return nameOf(e.X)
	case *ast.IndexExpr:
		if key, ok := stringLit(e.Index); ok {
			return key
		}
		return nameOf(e.X)
	case *ast.CallExpr:
		switch len(e.Args) {
		case 1:
			return nameOf(e.Args[0])
		case 0:
			if getter, ok := strings.CutPrefix(funcName(e.Fun), "Get"); ok {
				return getter
			}
		}
	}
	return ""
}

func funcName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

func normalise(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "_", "")
}
