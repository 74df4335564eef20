package resolver

import (
	"fmt"

	"github.com/blang/semver/v4"
	celast "github.com/google/cel-go/common/ast"
	"github.com/operator-framework/api/pkg/constraints"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

// lint finds what keeps a CEL rule from ever matching as OLM evaluates it: semver_compare over a
// constant that is not a version fails on every bundle, and OLM takes a failed evaluation as no
// match. It returns one message a finding; the findings are cached per rule.
func (c *celEnvironment) lint(rule string) []string {
	if msgs, ok := c.lints[rule]; ok {
		return msgs
	}
	var msgs []string
	if parsed, issues := c.env.Compile(rule); issues.Err() == nil {
		celast.PreOrderVisit(parsed.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
			msgs = append(msgs, semverLiterals(e)...)
		}))
	}
	c.lints[rule] = msgs
	return msgs
}

// semverLiterals reports the constant arguments of a semver_compare call that are no version.
func semverLiterals(e celast.Expr) []string {
	if e.Kind() != celast.CallKind || e.AsCall().FunctionName() != "semver_compare" {
		return nil
	}
	var out []string
	for _, arg := range e.AsCall().Args() {
		if arg.Kind() != celast.LiteralKind {
			continue
		}
		v := fmt.Sprint(arg.AsLiteral().Value())
		if _, err := semver.ParseTolerant(v); err != nil {
			out = append(out, fmt.Sprintf("semver_compare's argument %q is not a version (%v), so the rule fails on every bundle and OLM takes each failure as no match: nothing can satisfy the constraint, and OLM never installs this bundle; write a version such as 1.2.3",
				v, err))
		}
	}
	return out
}

// lintConstraint reports the CEL rules of a bundle's olm.constraint property (prop, parsed as c)
// that can never match (lint), each naming the bundle, the file and the field of the rule.
func (c *celEnvironment) lintConstraint(b *catalog.Bundle, prop catalog.Property, con constraints.Constraint, severity diag.Severity) diag.Problems {
	var out diag.Problems
	var walk func(con constraints.Constraint, at string)
	walk = func(con constraints.Constraint, at string) {
		if con.Cel != nil {
			for _, msg := range c.lint(con.Cel.Rule) {
				out.Add(diag.Problem{Severity: severity, Origin: dependenciesOrigin(b), Object: fmt.Sprintf("bundle %q", b.Name),
					Field: at + ".cel.rule", Message: msg, Package: b.Package})
			}
		}
		for name, compound := range map[string]*constraints.CompoundConstraint{"all": con.All, "any": con.Any, "not": con.Not} {
			if compound == nil {
				continue
			}
			for i, inner := range compound.Constraints {
				walk(inner, fmt.Sprintf("%s.%s.constraints[%d]", at, name, i))
			}
		}
	}
	walk(con, declaredField(b, prop)+".value")
	return out.Sorted()
}

// declaredField is the field a bundle property was declared at, or "properties" when the loader
// derived it.
func declaredField(b *catalog.Bundle, prop catalog.Property) string {
	if f := b.Declared(prop); f != "" {
		return f
	}
	return "properties"
}
