package resolver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker/decls"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter/functions"
	"github.com/operator-framework/api/pkg/constraints"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

// predicate tests one candidate entry, as OLM's cache predicates do.
type predicate interface {
	test(e *entry) bool
	String() string
}

type gvkPredicate struct{ group, version, kind string }

func (p gvkPredicate) test(e *entry) bool {
	return e.gvks[catalog.GVKValue{Group: p.group, Version: p.version, Kind: p.kind}]
}

func (p gvkPredicate) String() string {
	return fmt.Sprintf("providing an API with group: %s, version: %s, kind: %s", p.group, p.version, p.kind)
}

type packagePredicate struct {
	name, rangeText string
	r               semver.Range
}

func (p packagePredicate) test(e *entry) bool {
	if !e.packages[p.name] {
		return false
	}
	for _, prop := range e.props {
		var v catalog.PackageValue
		if prop.Type != catalog.TypePackage || json.Unmarshal(prop.Value, &v) != nil {
			continue
		}
		if ver, err := semver.Parse(v.Version); err == nil && p.r(ver) {
			return true
		}
	}
	return p.r(e.bundle.Version)
}

func (p packagePredicate) String() string {
	return fmt.Sprintf("with package: %s and with version in range: %s", p.name, p.rangeText)
}

type labelPredicate string

func (p labelPredicate) test(e *entry) bool { return e.labels[string(p)] }

func (p labelPredicate) String() string { return "with label: " + string(p) }

type andPredicate []predicate

func (p andPredicate) test(e *entry) bool {
	for _, q := range p {
		if !q.test(e) {
			return false
		}
	}
	return true
}

func (p andPredicate) String() string { return joinPredicates(p, " and ") }

type orPredicate []predicate

func (p orPredicate) test(e *entry) bool {
	for _, q := range p {
		if q.test(e) {
			return true
		}
	}
	return false
}

func (p orPredicate) String() string { return joinPredicates(p, " or ") }

type norPredicate []predicate

func (p norPredicate) test(e *entry) bool {
	for _, q := range p {
		if q.test(e) {
			return false
		}
	}
	return true
}

// String joins with " and not " between children, so the first child has no "not": OLM's quirk.
func (p norPredicate) String() string { return joinPredicates(p, " and not ") }

func joinPredicates(ps []predicate, sep string) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, sep)
}

type celPredicate struct {
	rule, failureMessage string
	program              cel.Program
	env                  *celEnvironment
	// bundle, origin and field name the bundle whose constraint this is, the file and the
	// field of the rule, for messages.
	bundle, field string
	origin        diag.Origin
}

// test evaluates the rule against an entry's properties, as OLM's evaluator does: a runtime
// error is no match. An evaluation over the cost limit, or over the resolution's CEL budget, is
// not: it is recorded on the environment and fails the resolution (celEnvironment.err).
func (p celPredicate) test(e *entry) bool {
	if p.env.failed != nil {
		return false
	}
	props := make([]any, 0, len(e.props))
	for _, prop := range e.props {
		var v any
		if err := json.Unmarshal(prop.Value, &v); err != nil {
			props = append(props, nil)
			continue
		}
		props = append(props, map[string]any{"type": prop.Type, "value": v})
	}
	out, det, err := p.program.Eval(map[string]any{constraints.PropertiesKey: props})
	if det != nil && det.ActualCost() != nil {
		p.env.spent += *det.ActualCost()
	}
	if err != nil {
		if strings.Contains(err.Error(), "cost limit") {
			p.env.fail(p, fmt.Sprintf("evaluating it against %s costs more than the limit of %d", e.bundle.Name, celCostLimit))
		}
		return false
	}
	if p.env.spent > celBudget {
		p.env.fail(p, fmt.Sprintf("the constraints of this resolution cost more than the budget of %d", celBudget))
		return false
	}
	b, ok := out.Value().(bool)
	return ok && b
}

func (p celPredicate) String() string {
	return fmt.Sprintf("with constraint: %q and message: %q", p.rule, p.failureMessage)
}

// Bounds on CEL: OLM has none, so a constraint crafted to be expensive (a cost bomb) burns the
// catalog operator's CPU. olm-render stops at celCostLimit per evaluation and celBudget per
// resolution, and fails the resolution naming the bundle and the constraint, rather than letting
// the rule quietly match nothing (which would make the resolver choose another bundle).
const (
	celCostLimit = 100_000
	celBudget    = 50_000_000
)

// celEnvironment is OLM's CEL environment (operator-framework/api pkg/constraints): the
// properties variable and semver_compare, nothing else. It compiles each distinct rule once per
// run, and keeps the cost spent and the first evaluation that went over a bound.
type celEnvironment struct {
	env      *cel.Env
	programs map[string]cel.Program
	// lints are the findings of lint, by rule.
	lints map[string][]string
	spent uint64
	// failed is the first evaluation that went over a bound, as a problem naming the bundle,
	// its file and the rule's field.
	failed error
}

func newCELEnvironment() (*celEnvironment, error) {
	env, err := cel.NewEnv(
		cel.Declarations(decls.NewVar(constraints.PropertiesKey, decls.NewListType(decls.NewMapType(decls.String, decls.Any)))),
		cel.Declarations(decls.NewFunction("semver_compare",
			decls.NewOverload("semver_compare", []*exprpb.Type{decls.Any, decls.Any}, decls.Int))),
	)
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	return &celEnvironment{env: env, programs: map[string]cel.Program{}, lints: map[string][]string{}}, nil
}

// shortRule cuts a CEL rule to what a message can show.
func shortRule(rule string) string {
	const limit = 160
	if len(rule) <= limit {
		return rule
	}
	return rule[:limit] + fmt.Sprintf("... (%d bytes)", len(rule))
}

// fail records the first constraint that went over a bound.
func (c *celEnvironment) fail(p celPredicate, why string) {
	if c.failed == nil {
		c.failed = diag.Problems{{Severity: diag.Error, Origin: p.origin, Object: fmt.Sprintf("bundle %q", p.bundle), Field: p.field,
			Message: fmt.Sprintf("olm.constraint CEL rule %q: %s: olm-render refuses it (OLM has no bound and would spend its CPU on it); fix or remove the constraint",
				shortRule(p.rule), why)}}
	}
}

func (c *celEnvironment) compile(rule string) (cel.Program, error) {
	if prog, ok := c.programs[rule]; ok {
		return prog, nil
	}
	ast, issues := c.env.Compile(rule)
	if err := issues.Err(); err != nil {
		return nil, err
	}
	if ast.OutputType() != types.BoolType {
		return nil, errors.New("cel expressions must have type Bool")
	}
	prog, err := c.env.Program(ast,
		cel.Functions(&functions.Overload{Operator: "semver_compare", Binary: semverCompare}),
		cel.CostLimit(celCostLimit), cel.EvalOptions(cel.OptTrackCost))
	if err != nil {
		return nil, err
	}
	c.programs[rule] = prog
	return prog, nil
}

func semverCompare(val1, val2 ref.Val) ref.Val {
	v1, err := semver.ParseTolerant(fmt.Sprint(val1.Value()))
	if err != nil {
		return types.ValOrErr(val1, "unable to parse '%v' to semver format", val1.Value())
	}
	v2, err := semver.ParseTolerant(fmt.Sprint(val2.Value()))
	if err != nil {
		return types.ValOrErr(val2, "unable to parse '%v' to semver format", val2.Value())
	}
	return types.Int(v1.Compare(v2))
}

// dependenciesOrigin is the file a bundle's dependency properties were declared in.
func dependenciesOrigin(b *catalog.Bundle) diag.Origin {
	if b.DependenciesOrigin.File != "" {
		return b.DependenciesOrigin
	}
	return b.Origin
}

// CheckDependencies converts the dependency properties of every bundle of c into predicates, as
// a resolution that considers the bundle does (predicatesOf), and returns a problem for each
// bundle whose dependencies cannot be (a version range that does not parse, an olm.constraint
// that is malformed or whose CEL rule does not compile): OLM fails every resolution that
// considers such a bundle.
func CheckDependencies(c *catalog.Catalog) (diag.Problems, error) {
	env, err := newCELEnvironment()
	if err != nil {
		return nil, err
	}
	var problems diag.Problems
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			for _, prop := range b.Properties {
				r := &resolution{cel: env}
				if _, err := r.predicatesOf(&entry{bundle: b, props: []catalog.Property{prop}}); err != nil {
					problems = append(problems, diag.Problem{Origin: dependenciesOrigin(b), Object: fmt.Sprintf("bundle %q", b.Name),
						Field: declaredField(b, prop), Package: p.Name,
						Message: fmt.Sprintf("its dependencies: %s: every resolution that considers the bundle fails", err)})
				}
				for _, l := range r.lints {
					l.Severity = diag.Error
					problems = append(problems, l)
				}
			}
		}
	}
	return problems, nil
}

// predicatesOf converts an entry's dependency properties into predicates, as OLM's
// predicateConverter does. Any error fails the whole resolution.
func (r *resolution) predicatesOf(e *entry) ([]predicate, error) {
	var out []predicate
	for _, prop := range e.props {
		switch prop.Type {
		case catalog.TypeGVKRequired:
			var v catalog.GVKValue
			if err := json.Unmarshal(prop.Value, &v); err != nil {
				return nil, err
			}
			out = append(out, gvkPredicate{v.Group, v.Version, v.Kind})
		case catalog.TypePackageRequired:
			var v catalog.PackageRequiredValue
			if err := json.Unmarshal(prop.Value, &v); err != nil {
				return nil, err
			}
			rng, err := semver.ParseRange(v.VersionRange)
			if err != nil {
				return nil, fmt.Errorf("%s versionRange %q: %w", catalog.TypePackageRequired, v.VersionRange, err)
			}
			out = append(out, packagePredicate{name: v.PackageName, rangeText: v.VersionRange, r: rng})
		case catalog.TypeLabelRequired:
			var v catalog.LabelValue
			if err := json.Unmarshal(prop.Value, &v); err != nil {
				return nil, err
			}
			out = append(out, labelPredicate(v.Label))
		case catalog.TypeConstraint:
			c, err := constraints.Parse(prop.Value)
			if err != nil {
				return nil, fmt.Errorf("parse olm.constraint: %w", err)
			}
			if e.bundle != nil {
				r.lints = append(r.lints, r.cel.lintConstraint(e.bundle, prop, c, diag.Warning)...)
			}
			p, err := r.convertConstraint(e, c, constraintField(e, prop))
			if err != nil {
				return nil, fmt.Errorf("convert olm.constraint to resolver predicate: %w", err)
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// constraintField is the field of an entry's olm.constraint property value, for messages.
func constraintField(e *entry, prop catalog.Property) string {
	if e.bundle == nil {
		return "properties"
	}
	return declaredField(e.bundle, prop) + ".value"
}

// convertConstraint converts an olm.constraint (at the field at of its bundle) into a
// predicate, as OLM's predicateConverter does.
func (r *resolution) convertConstraint(e *entry, c constraints.Constraint, at string) (predicate, error) {
	switch {
	case c.GVK != nil:
		return gvkPredicate{c.GVK.Group, c.GVK.Version, c.GVK.Kind}, nil
	case c.Package != nil:
		rng, err := semver.ParseRange(c.Package.VersionRange)
		if err != nil {
			return nil, fmt.Errorf("package versionRange %q: %w", c.Package.VersionRange, err)
		}
		return packagePredicate{name: c.Package.PackageName, rangeText: c.Package.VersionRange, r: rng}, nil
	case c.All != nil:
		ps, err := r.convertAll(e, c.All.Constraints, at+".all")
		return andPredicate(ps), err
	case c.Any != nil:
		ps, err := r.convertAll(e, c.Any.Constraints, at+".any")
		return orPredicate(ps), err
	case c.Not != nil:
		ps, err := r.convertAll(e, c.Not.Constraints, at+".not")
		return norPredicate(ps), err
	case c.Cel != nil:
		prog, err := r.cel.compile(c.Cel.Rule)
		if err != nil {
			return nil, err
		}
		return celPredicate{rule: c.Cel.Rule, failureMessage: c.FailureMessage, program: prog, env: r.cel,
			bundle: e.bundle.Name, origin: dependenciesOrigin(e.bundle), field: at + ".cel.rule"}, nil
	}
	return nil, errors.New("constraint is empty")
}

func (r *resolution) convertAll(e *entry, cs []constraints.Constraint, at string) ([]predicate, error) {
	out := make([]predicate, 0, len(cs))
	for i, c := range cs {
		p, err := r.convertConstraint(e, c, fmt.Sprintf("%s.constraints[%d]", at, i))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
