package resolver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/resolver/solver"
)

// bundleVariable is a bundle the solver may install.
type bundleVariable struct {
	e           *entry
	constraints []solver.Constraint
	// deps holds, per dependency, the candidate identifiers in preference order, and preds the
	// dependency's predicate.
	deps  [][]solver.Identifier
	preds []predicate
	// replaces is set on an upgrade candidate: the installed CSV it replaces.
	replaces string
	// roots are the Subscriptions whose resolution reached this bundle.
	roots map[string]bool
}

func (v *bundleVariable) Identifier() solver.Identifier    { return solver.Identifier(v.e.id) }
func (v *bundleVariable) Constraints() []solver.Constraint { return v.constraints }

// plainVariable is a subscription or an invariant.
type plainVariable struct {
	id          solver.Identifier
	constraints []solver.Constraint
	sub         string // the Subscription of a subscription variable
}

func (v *plainVariable) Identifier() solver.Identifier    { return v.id }
func (v *plainVariable) Constraints() []solver.Constraint { return v.constraints }

// subscriptionVariable is OLM's NewSubscriptionVariable.
func subscriptionVariable(name string, ids []solver.Identifier) *plainVariable {
	v := &plainVariable{id: solver.Identifier("subscription:" + name), sub: name}
	v.constraints = append(v.constraints, solver.Pretty(solver.Mandatory(), fmt.Sprintf("subscription %s exists", name)))
	var msg string
	switch len(ids) {
	case 0:
		msg = fmt.Sprintf("no operators found matching the criteria of subscription %s", name)
	case 1:
		msg = fmt.Sprintf("subscription %s requires %s", name, ids[0])
	default:
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = string(id)
		}
		msg = fmt.Sprintf("subscription %s requires at least one of %s or %s", name, strings.Join(s[:len(s)-1], ", "), s[len(s)-1])
	}
	v.constraints = append(v.constraints, solver.Pretty(solver.Dependency(ids...), msg))
	return v
}

// invalidSubscriptionVariable is a Subscription that cannot match anything, with the reason.
func invalidSubscriptionVariable(name, reason string) *plainVariable {
	return &plainVariable{
		id:  solver.Identifier("subscription:" + name),
		sub: name,
		constraints: []solver.Constraint{
			solver.Pretty(solver.Mandatory(), fmt.Sprintf("subscription %s exists", name)),
			solver.Pretty(solver.Prohibited(), reason),
		},
	}
}

// joinAnd joins "a, b and c".
func joinAnd(ids []solver.Identifier) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// invariants adds OLM's uniqueness variables: one provider per GVK and one bundle per package,
// where there are at least two.
func invariants(vars []*bundleVariable) []solver.Variable {
	gvks := map[string][]solver.Identifier{}
	pkgs := map[string][]solver.Identifier{}
	var gvkKeys, pkgKeys []string
	for _, v := range vars {
		for _, p := range v.e.props {
			switch p.Type {
			case "olm.gvk":
				var g struct{ Group, Version, Kind string }
				if unmarshal(p.Value, &g) != nil {
					continue
				}
				key := fmt.Sprintf("%s (%s/%s)", g.Kind, g.Group, g.Version)
				if _, ok := gvks[key]; !ok {
					gvkKeys = append(gvkKeys, key)
				}
				if !slices.Contains(gvks[key], v.Identifier()) {
					gvks[key] = append(gvks[key], v.Identifier())
				}
			case "olm.package":
				var pv struct {
					PackageName string `json:"packageName"`
				}
				if unmarshal(p.Value, &pv) != nil {
					continue
				}
				if _, ok := pkgs[pv.PackageName]; !ok {
					pkgKeys = append(pkgKeys, pv.PackageName)
				}
				if !slices.Contains(pkgs[pv.PackageName], v.Identifier()) {
					pkgs[pv.PackageName] = append(pkgs[pv.PackageName], v.Identifier())
				}
			}
		}
	}
	var out []solver.Variable
	slices.Sort(gvkKeys)
	for _, key := range gvkKeys {
		ids := gvks[key]
		if len(ids) < 2 {
			continue
		}
		slices.Sort(ids)
		out = append(out, &plainVariable{id: solver.Identifier(key), constraints: []solver.Constraint{
			solver.Pretty(solver.Mandatory(), "there can be only one provider of "+key),
			solver.Pretty(solver.AtMost(1, ids...), fmt.Sprintf("%s provide %s", joinAnd(ids), key)),
		}})
	}
	slices.Sort(pkgKeys)
	for _, pkg := range pkgKeys {
		ids := pkgs[pkg]
		if len(ids) < 2 {
			continue
		}
		slices.Sort(ids)
		out = append(out, &plainVariable{id: solver.Identifier(pkg), constraints: []solver.Constraint{
			solver.Pretty(solver.Mandatory(), "there can be only one operator from package "+pkg),
			solver.Pretty(solver.AtMost(1, ids...), fmt.Sprintf("%s originate from package %s", joinAnd(ids), pkg)),
		}})
	}
	return out
}
