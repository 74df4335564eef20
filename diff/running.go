package diff

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render"
)

// generatedByAnnotation is the annotation OLM writes on the Subscriptions it creates for
// dependencies, naming the InstallPlan.
const generatedByAnnotation = "olm.generated-by"

// OLMPart is what OLM will do, where OLM keeps running: in words, per Subscription, then the
// changes of the objects the renders predict OLM will create.
type OLMPart struct {
	// Controller is who acts: ControllerOLM, or ControllerOperatorController when the renders
	// hold ClusterExtensions (--olm=v1).
	Controller string `json:"controller"`
	// Operators say what OLM will do for each Subscription whose lock, or what its approval
	// contract admits or holds, changed; sorted by namespace and Subscription.
	Operators []OLMChange `json:"operators"`
	Part
}

// holdsPrediction reports whether a render holds objects of a prediction: it was made for a
// cluster where OLM keeps running (--olm=running).
func holdsPrediction(objs []*unstructured.Unstructured) bool {
	return slices.ContainsFunc(objs, func(u *unstructured.Unstructured) bool {
		return u.GetAnnotations()[render.PredictionAnnotation] == "true"
	})
}

// predicted reports whether OLM creates the object: it is marked as the prediction, or it is a
// Subscription OLM generates for a dependency.
func predicted(u *unstructured.Unstructured) bool {
	a := u.GetAnnotations()
	return a[render.PredictionAnnotation] == "true" || (isSubscription(u) && a[generatedByAnnotation] != "")
}

// isSubscription reports whether an object is an OLM Subscription.
func isSubscription(u *unstructured.Unstructured) bool {
	return u != nil && u.GetKind() == "Subscription" && u.GroupVersionKind().Group == csvGroup
}

// splitPrediction separates what Git applies from what OLM will create.
func splitPrediction(objs []*unstructured.Unstructured) (applied, prediction []*unstructured.Unstructured) {
	for _, u := range objs {
		if predicted(u) {
			prediction = append(prediction, u)
		} else {
			applied = append(applied, u)
		}
	}
	return applied, prediction
}

// compareRunning compares renders for a cluster where OLM keeps running in two parts: what Git
// applies, and the prediction, each compared on its own; then says what OLM will do.
func compareRunning(before, after []*unstructured.Unstructured, opts Options) (*Report, error) {
	appliedBefore, predictedBefore := splitPrediction(before)
	appliedAfter, predictedAfter := splitPrediction(after)
	applied, err := compareObjects(appliedBefore, appliedAfter, opts)
	if err != nil {
		return nil, fmt.Errorf("what Git applies: %w", err)
	}
	olm, err := compareObjects(predictedBefore, predictedAfter, opts)
	if err != nil {
		return nil, fmt.Errorf("the prediction: %w", err)
	}
	sideBefore, err := newOLMSide(before)
	if err != nil {
		return nil, fmt.Errorf("before: %w", err)
	}
	sideAfter, err := newOLMSide(after)
	if err != nil {
		return nil, fmt.Errorf("after: %w", err)
	}
	operators := olmChanges(sideBefore, sideAfter, olm.Upgrades)
	controller := ControllerOLM
	if len(sideBefore.extensions)+len(sideAfter.extensions) > 0 {
		controller = ControllerOperatorController
		operators = append(operators, extensionChanges(sideBefore, sideAfter)...)
	}
	r := &Report{
		Part:    Part{Changes: mergeChanges(applied.Changes, olm.Changes), Upgrades: mergeUpgrades(applied.Upgrades, olm.Upgrades)},
		Applied: &applied.Part,
		OLM:     &OLMPart{Controller: controller, Operators: operators, Part: olm.Part},
	}
	r.Findings = append(append(applied.Findings, olm.Findings...), olmDowngradeFindings(operators)...)
	r.Findings = append(r.Findings, extensionDowngradeFindings(operators)...)
	slices.SortFunc(r.Findings, compareFindings)
	return r, nil
}

// mergeChanges returns the changes of both parts in the order of a report.
func mergeChanges(a, b []*Change) []*Change {
	out := append(slices.Clone(a), b...)
	slices.SortStableFunc(out, func(x, y *Change) int { return compareKeys(x.Key, y.Key) })
	return out
}

// mergeUpgrades returns the upgrades of both parts, sorted as pairCSVs sorts them.
func mergeUpgrades(a, b []Upgrade) []Upgrade {
	out := append(slices.Clone(a), b...)
	slices.SortStableFunc(out, func(x, y Upgrade) int {
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To))
	})
	return out
}
