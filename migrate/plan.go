package migrate

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/emit"
)

// Class says what becomes of an object when its operator moves to OLM v1.
type Class string

// The classes, in the order a plan lists them.
const (
	Untouched Class = "untouched"
	Adopted   Class = "adopted"
	Renamed   Class = "renamed"
	Dropped   Class = "dropped"
	Added     Class = "added"
)

// classes orders the classes.
var classes = []Class{Untouched, Adopted, Renamed, Dropped, Added}

// Change is one object of the move.
type Change struct {
	Class Class `json:"class"`
	// Key is the object: v1's for what v1 creates, v0's for what only v0 created.
	Key emit.Key `json:"key"`
	// From is v0's object a renamed one was.
	From *emit.Key `json:"from,omitempty"`
	// Subscription is the Subscription (namespace/name) the object belongs to; "" for what
	// belongs to an OperatorGroup.
	Subscription string `json:"subscription,omitempty"`
	// Note says what it means for the move.
	Note string `json:"note,omitempty"`
}

// Plan is the move of the Subscriptions OLM v1 can take.
type Plan struct {
	// V0Target is the target the v0 side was rendered for.
	V0Target render.Target `json:"v0Target"`
	// Verdicts are olmv1.Check's, for every Subscription.
	Verdicts []olmv1.Verdict `json:"verdicts"`
	// Changes is the cluster diff of the eligible Subscriptions, by class, then key.
	Changes []Change `json:"changes"`
	// Steps are the ordered steps of the move.
	Steps []Step `json:"steps"`
}

// Input is what a plan is made from.
type Input struct {
	// V0Target is the target of the v0 render: running (OLM v0 runs where the operator is) or
	// absent (the render is the install).
	V0Target render.Target
	// V0 are the objects OLM v0 created for the inputs: the objects of the V0Target render, and
	// its prediction where OLM runs.
	V0 []*unstructured.Unstructured
	// V1 are what Git applies under v1 and what operator-controller creates: an --olm=v1
	// render's objects and prediction, with AllowPartial.
	V1 []*unstructured.Unstructured
	// Verdicts are olmv1.Check's.
	Verdicts []olmv1.Verdict
}

// Build makes the plan: the cluster diff and the steps of every eligible Subscription.
func Build(in Input) *Plan {
	p := &Plan{Verdicts: in.Verdicts, V0Target: in.V0Target}
	owners := newOwners(in.Verdicts)
	v1 := owners.attribute(in.V1, true)
	// What v0 creates with no mark of its operator (a bundle's own objects) is the operator's
	// that v1 creates under the same name.
	for _, o := range v1 {
		owners.byKey[o.key] = o.subscription
	}
	v0 := owners.attribute(in.V0, false)
	p.Changes = diffObjects(v0, v1)
	p.Steps = steps(in.Verdicts, p.Changes)
	return p
}

// Eligible returns the verdicts of the Subscriptions v1 takes.
func (p *Plan) Eligible() []olmv1.Verdict {
	var out []olmv1.Verdict
	for _, v := range p.Verdicts {
		if v.Outcome == olmv1.Eligible && !v.Generated {
			out = append(out, v)
		}
	}
	return out
}

// sortChanges orders changes by class, Subscription, then key as emit orders objects.
func sortChanges(cs []Change) {
	slices.SortFunc(cs, func(a, b Change) int {
		return cmp.Or(
			cmp.Compare(slices.Index(classes, a.Class), slices.Index(classes, b.Class)),
			cmp.Compare(a.Subscription, b.Subscription),
			cmp.Compare(emit.KindRank(a.Key.Kind), emit.KindRank(b.Key.Kind)),
			strings.Compare(a.Key.String(), b.Key.String()),
		)
	})
}
