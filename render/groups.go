package render

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/olm-render/olm-render/schemas/inputs"
)

// group is an OperatorGroup with its targets and the APIs its members provide.
type group struct {
	og *inputs.OperatorGroup
	// targets is status.namespaces, sorted: [""] for a global group, empty when a selector
	// matches nothing.
	targets []string
	// apis is the olm.providedAPIs set.
	apis map[schema.GroupVersionKind]bool
	// static is spec.staticProvidedAPIs; then apis is the declared annotation.
	static bool
	err    error
}

func (g *group) global() bool { return len(g.targets) == 1 && g.targets[0] == "" }

// targetSet is the group's target namespaces plus its own, unless global (OLM's NewOperatorGroup
// in groups.go).
func (g *group) targetSet() map[string]bool {
	out := map[string]bool{}
	for _, t := range g.targets {
		out[t] = true
	}
	if !g.global() {
		out[g.og.Namespace] = true
	}
	return out
}

// intersects reports whether two groups' target sets intersect; a global group intersects any
// group with targets.
func (g *group) intersects(o *group) bool {
	a, b := g.targetSet(), o.targetSet()
	if (a[""] && len(b) > 0) || (b[""] && len(a) > 0) {
		return true
	}
	for ns := range a {
		if b[ns] {
			return true
		}
	}
	return false
}

// apiList returns the group's APIs, sorted.
func (g *group) apiList() []schema.GroupVersionKind {
	out := make([]schema.GroupVersionKind, 0, len(g.apis))
	for api := range g.apis {
		out = append(out, api)
	}
	slices.SortFunc(out, compareGVK)
	return out
}

func compareGVK(a, b schema.GroupVersionKind) int {
	return cmpStrings(a.Kind+"."+a.Version+"."+a.Group, b.Kind+"."+b.Version+"."+b.Group)
}

func cmpStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// newGroup computes an OperatorGroup's targets as OLM's getOperatorGroupTargets does:
// spec.targetNamespaces, else the selector over the input Namespaces (each also carrying the
// kubernetes.io/metadata.name label the API server sets), global when the selector is nil or
// empty.
func newGroup(og *inputs.OperatorGroup, namespaces []*inputs.Namespace) *group {
	g := &group{og: og, apis: map[schema.GroupVersionKind]bool{}, static: og.Spec.StaticProvidedAPIs}
	switch {
	case len(og.Spec.TargetNamespaces) > 0:
		if slices.Contains(og.Spec.TargetNamespaces, "") {
			g.err = fmt.Errorf("TargetNamespaces cannot contain NamespaceAll: %q", og.Spec.TargetNamespaces)
		}
		g.targets = slices.Compact(slices.Sorted(slices.Values(og.Spec.TargetNamespaces)))
	case og.Spec.Selector == nil || (len(og.Spec.Selector.MatchLabels) == 0 && len(og.Spec.Selector.MatchExpressions) == 0):
		g.targets = []string{""}
	default:
		sel, err := metav1.LabelSelectorAsSelector(og.Spec.Selector)
		if err != nil {
			g.err = fmt.Errorf("spec.selector: %w", err)
			return g
		}
		for _, ns := range namespaces {
			l := labels.Set{"kubernetes.io/metadata.name": ns.Name}
			for k, v := range ns.Labels {
				l[k] = v
			}
			if sel.Matches(l) {
				g.targets = append(g.targets, ns.Name)
			}
		}
		slices.Sort(g.targets)
	}
	if g.static {
		for _, api := range parseAPISet(og.Annotations[providedAPIsAnnotation]) {
			g.apis[api] = true
		}
	}
	return g
}
