package resolver

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/resolver/solver"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// ResolutionError is a failed resolution: per namespace, OLM's error and what olm-render can add.
type ResolutionError struct {
	Namespaces []*NamespaceError
}

// NamespaceError is the failure of one namespace.
type NamespaceError struct {
	Namespace     string
	Subscriptions []*inputs.Subscription
	// Err is OLM's error: a solver.NotSatisfiable with OLM's constraint texts, or another.
	Err   error
	hints []hint
	// causes are problems of the catalog or of the OperatorGroups that make the resolution
	// fail, each naming its file and field: reported before the Subscriptions' own.
	causes diag.Problems
}

// hint explains a resolution failure: a field of a Subscription naming what its catalog does
// not have, or a missing dependency; which Subscriptions it concerns and how to fix it.
type hint struct {
	subs []string
	// field is the Subscription field the hint is about ("spec" for a dependency); message
	// starts with it for a mistake in a field other than spec.
	field   string
	message string
}

// problem is the hint as a problem of Subscription s, the field named once.
func (h hint) problem(s *inputs.Subscription) diag.Problem {
	field := cmp.Or(h.field, "spec")
	return diag.Problem{Severity: diag.Error, Origin: s.Origin, Object: "Subscription/" + s.Namespace + "/" + s.Name,
		Field: field, Message: strings.TrimPrefix(h.message, field+" ")}
}

// Error prints each failed namespace.
func (e *ResolutionError) Error() string {
	var b strings.Builder
	for i, ns := range e.Namespaces {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(ns.Error())
	}
	return b.String()
}

// Unwrap returns the namespaces' errors.
func (e *ResolutionError) Unwrap() []error {
	out := make([]error, len(e.Namespaces))
	for i, ns := range e.Namespaces {
		out[i] = ns
	}
	return out
}

// Problems returns what the user can fix first: the catalog's and the OperatorGroups' problems
// that make a namespace fail (causes), the hints about each declared Subscription
// (a field naming what its catalog does not have, with a did-you-mean; a dependency nothing
// provides), then OLM's ResolutionFailed condition on each declared Subscription of a failed
// namespace (OLM marks them all). The Subscriptions OLM generated for dependencies (from the
// lock) are the user's own only through a declared one: they are left out unless a namespace
// holds nothing else.
func (e *ResolutionError) Problems() diag.Problems {
	var causes, hints, failed diag.Problems
	for _, ns := range e.Namespaces {
		for _, c := range ns.causes {
			c.Severity = diag.Error
			causes.Add(c)
		}
		for _, s := range ns.blamed() {
			for _, h := range ns.hints {
				if slices.Contains(h.subs, s.Name) {
					hints.Add(h.problem(s))
				}
			}
			failed.Add(ns.failure(s))
		}
	}
	return append(append(causes.Sorted(), hints.Sorted()...), failed.Sorted()...)
}

// blamed are the Subscriptions the namespace's failure is reported on: the declared ones, or
// every one when none is declared.
func (e *NamespaceError) blamed() []*inputs.Subscription {
	declared := slices.DeleteFunc(slices.Clone(e.Subscriptions), func(s *inputs.Subscription) bool { return s.Generated })
	if len(declared) == 0 {
		return e.Subscriptions
	}
	return declared
}

// failure is OLM's ResolutionFailed condition on one Subscription of the namespace.
func (e *NamespaceError) failure(s *inputs.Subscription) diag.Problem {
	return diag.Problem{Severity: diag.Error, Origin: s.Origin, Object: "Subscription/" + s.Namespace + "/" + s.Name, Field: "spec",
		Message: fmt.Sprintf("ResolutionFailed (%s): %v", e.reason(), e.Err)}
}

// Error prints OLM's reason and error, then the hints.
func (e *NamespaceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "namespace %s: %s: %v", e.Namespace, e.reason(), e.Err)
	for _, h := range e.hints {
		fmt.Fprintf(&b, "\n  %s (needed by Subscription %s)", h.message, strings.Join(h.subs, ", "))
	}
	return b.String()
}

// Unwrap returns OLM's error.
func (e *NamespaceError) Unwrap() error { return e.Err }

// reason is the ResolutionFailed condition's reason OLM would set.
func (e *NamespaceError) reason() string {
	var ns solver.NotSatisfiable
	if errors.As(e.Err, &ns) {
		return "ConstraintsNotSatisfiable"
	}
	return "ErrorPreventedResolution"
}

// hints explains the mistakes in Subscriptions and the dependencies that nothing in scope
// satisfies.
func (r *resolution) hints() []hint {
	out := slices.Clone(r.fixes)
	seen := map[string]bool{}
	for _, v := range r.order {
		for i, ids := range v.deps {
			if len(ids) > 0 {
				continue
			}
			subs := make([]string, 0, len(v.roots))
			for s := range v.roots {
				subs = append(subs, s)
			}
			slices.Sort(subs)
			msg := fmt.Sprintf("bundle %s requires an operator %s, and no catalog this namespace sees provides one: add a CatalogSource whose snapshot does (or bind one with --catalog)",
				v.e.bundle.Name, v.preds[i])
			if broken := r.brokenInScope(); broken != "" {
				msg = fmt.Sprintf("bundle %s requires an operator %s, and no bundle that loaded provides one; these could not be loaded and might: %s",
					v.e.bundle.Name, v.preds[i], broken)
			}
			if len(subs) == 0 || seen[msg] {
				continue
			}
			seen[msg] = true
			out = append(out, hint{subs: subs, message: msg})
		}
	}
	return out
}

// brokenInScope lists the bundle directories of the catalogs in scope that could not be loaded,
// with their packages, or "" when there are none.
func (r *resolution) brokenInScope() string {
	var out []string
	for c := range r.catalogEntries {
		if c.Catalog == nil {
			continue
		}
		for _, b := range c.Catalog.Broken {
			s := b.Dir
			if b.Package != "" {
				s += " (package " + b.Package + ")"
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), ", ")
}
