package states_test

import (
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// The checks of TestNoStateLiterals, on one parsed file at a time.

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
