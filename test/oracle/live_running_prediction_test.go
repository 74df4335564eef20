package oracle

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/generated"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/test/oracle/live"
)

// comparePrediction holds the prediction of a render for --olm=running against what OLM
// created, object by object, as TestLiveInstall holds a render against OLM (judgeLive: the
// same normalisation, the same difference classes): every object OLM created but those the
// render applies, against every predicted object, its marks removed and the fields it says
// OLM generates (package generated) taken from OLM's object, found for a generated name as OLM
// finds it, then stored by a server-side dry-run. A generated field OLM's object lacks is a
// class of its own ("(generated) <pointer>", ours-only): the prediction said OLM writes it.
func comparePrediction(t *testing.T, ctx context.Context, cl *live.Cluster, r *running) *predictionComparison {
	t.Helper()
	snap, err := cl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	applied := map[objectID]bool{}
	for _, o := range r.applied {
		applied[idOf(o.Object)] = true
	}
	// The approver's own objects are the test's, applied as a user applies examples/approver.
	for _, o := range approverObjects(t) {
		applied[idOf(o.Object)] = true
	}
	var olm []*unstructured.Unstructured
	for _, o := range snap {
		if !applied[idOf(o.Object)] {
			olm = append(olm, o)
		}
	}
	ours, marked, missing, err := asOLMWritesThem(r.prediction, olm)
	if err != nil {
		t.Fatal(err)
	}
	side := &liveSide{OLM: &olmResult{}}
	for _, o := range olm {
		side.OLM.Objects = append(side.OLM.Objects, o.Object)
	}
	if err := side.store(ctx, cl, ours); err != nil {
		t.Fatal(err)
	}
	// OLM's generated names are made the same placeholder on both sides (judgeLive does it on
	// OLM's), so that each predicted object meets its own.
	side.Stored = placeholdGeneratedNames(side.Stored)
	res := &predictionComparison{predicted: map[objectID]bool{}}
	for i, fields := range marked {
		id := idOf(side.Stored[i])
		res.predicted[id] = true
		if len(fields) > 0 {
			res.Generated = append(res.Generated, generatedObject{ID: id, Fields: fields})
		}
		if id.Kind == "Secret" && len(fields) > 0 {
			res.Generated = append(res.Generated, certificateObjects(id)...)
		}
	}
	judgeLive(&res.caseResult, side, r.in, nil)
	addClasses(&res.caseResult, missing)
	if err := side.dump(t.Name()); err != nil {
		t.Fatal(err)
	}
	return res
}

// predictionComparison is a prediction compared with what OLM created.
type predictionComparison struct {
	caseResult
	// Generated are the predicted objects that list fields OLM generates, in prediction order,
	// each certificate Secret followed by the other objects OLM creates with it.
	Generated []generatedObject
	predicted map[objectID]bool
}

// certificateObjects are the objects OLM creates with a certificate Secret
// <deployment>-service-cert (install/certresources.go, installCertRequirementsForDeployment):
// the Service, the Role and RoleBinding to read the Secret, the ClusterRoleBinding to
// system:auth-delegator and the RoleBinding to kube-system's authentication reader Role.
func certificateObjects(secret objectID) []generatedObject {
	svc := strings.TrimSuffix(secret.Name, "-cert")
	rbac := "rbac.authorization.k8s.io"
	return []generatedObject{
		{ID: objectID{Kind: "Service", Namespace: secret.Namespace, Name: svc}},
		{ID: objectID{Group: rbac, Kind: "Role", Namespace: secret.Namespace, Name: secret.Name}},
		{ID: objectID{Group: rbac, Kind: "RoleBinding", Namespace: secret.Namespace, Name: secret.Name}},
		{ID: objectID{Group: rbac, Kind: "ClusterRoleBinding", Name: svc + "-system:auth-delegator"}},
		{ID: objectID{Group: rbac, Kind: "RoleBinding", Namespace: "kube-system", Name: svc + "-auth-reader"}},
	}
}

// generatedObject is a predicted object that lists fields OLM generates, by the identity it is
// compared under.
type generatedObject struct {
	ID     objectID
	Fields []string
}

// asOLMWritesThem returns the predicted objects as OLM writes them: without the prediction's
// marks, each generated field holding the value of OLM's object (generated.Fill); the fields
// each listed as generated (marked, by index); and the classes of the generated fields OLM's
// object lacks. A predicted object OLM did not create keeps no generated field.
func asOLMWritesThem(prediction, olm []*unstructured.Unstructured) (out []*unstructured.Unstructured, marked [][]string, missing map[differenceClass]classExample, err error) {
	missing = map[differenceClass]classExample{}
	for _, p := range prediction {
		p = withoutPredictionMarks(p)
		marked = append(marked, generated.Fields(p.GetAnnotations()))
		from := counterpart(p, olm)
		if from == nil {
			o, err := generated.Strip(p)
			if err != nil {
				return nil, nil, nil, err
			}
			out = append(out, o)
			continue
		}
		o, lacks, err := generated.Fill(p, from)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, pointer := range lacks {
			id := idOf(from.Object)
			missing[differenceClass{Kind: kindOf(id), Path: "(generated) " + pointer, Side: sideOurs}] = classExample{Object: id}
		}
		out = append(out, o)
	}
	return out, marked, missing, nil
}

// withoutPredictionMarks returns a copy of a predicted object without the annotations that
// mark it as the prediction.
func withoutPredictionMarks(p *unstructured.Unstructured) *unstructured.Unstructured {
	o := p.DeepCopy()
	annotations := o.GetAnnotations()
	delete(annotations, render.LocalConfigAnnotation)
	delete(annotations, render.PredictionAnnotation)
	o.SetAnnotations(annotations)
	if len(annotations) == 0 {
		unstructured.RemoveNestedField(o.Object, "metadata", "annotations")
	}
	return o
}

// counterpart returns the object OLM created for a predicted one: the one of the same
// identity, or, for a name OLM left to the API server, the one of its kind with its
// generateName and its owner and webhook description labels (as OLM finds it); nil when OLM
// created none.
func counterpart(p *unstructured.Unstructured, olm []*unstructured.Unstructured) *unstructured.Unstructured {
	named := !slices.Contains(generated.Fields(p.GetAnnotations()), generated.Pointer("metadata", "name"))
	for _, o := range olm {
		if o.GetKind() != p.GetKind() || o.GroupVersionKind().Group != p.GroupVersionKind().Group || o.GetNamespace() != p.GetNamespace() {
			continue
		}
		if named && o.GetName() == p.GetName() {
			return o
		}
		if !named && o.GetGenerateName() == p.GetGenerateName() && sameOwner(o, p) {
			return o
		}
	}
	return nil
}

// sameOwner reports whether two objects carry the same owner labels and webhook description
// label.
func sameOwner(a, b *unstructured.Unstructured) bool {
	for _, k := range []string{"olm.owner", "olm.owner.namespace", "olm.owner.kind", webhook.DescriptionKey} {
		if a.GetLabels()[k] != b.GetLabels()[k] {
			return false
		}
	}
	return true
}

// predictionLines renders a prediction's comparison for the golden: each object with fields
// OLM generates, and how it compares once they hold OLM's values; then every difference class,
// with why it is known ("NOT KNOWN" otherwise). What depends on timing goes to the test's log
// only.
func predictionLines(t *testing.T, res *predictionComparison) []string {
	t.Helper()
	var out []string
	for _, g := range res.Generated {
		if len(g.Fields) == 0 {
			out = append(out, fmt.Sprintf("%s: %s", g.ID, res.objectVerdict(g.ID)))
			continue
		}
		out = append(out, fmt.Sprintf("%s: OLM generated %s; otherwise %s", g.ID, strings.Join(g.Fields, ", "), res.objectVerdict(g.ID)))
	}
	for _, c := range slices.SortedFunc(maps.Keys(res.Classes), compareClasses) {
		if isTiming(c) {
			t.Logf("timing-dependent: %s (%s)", c, res.Examples[c].Object)
			continue
		}
		out = append(out, fmt.Sprintf("%s (%s): %s", c, res.Examples[c].Object, liveReason(c)))
	}
	return out
}

// objectVerdict says how one object compares: identical, or the classes of its differences;
// what depends on timing is left out, as the golden leaves it out.
func (res *predictionComparison) objectVerdict(id objectID) string {
	if res.Cmp == nil {
		return "not compared"
	}
	if !res.predicted[id] {
		return "not predicted"
	}
	for _, d := range res.Cmp.Diffs {
		if d.ID != id {
			continue
		}
		var paths []string
		for _, c := range d.classes() {
			if !isTiming(c) && !slices.Contains(paths, c.Path+" "+c.Side) {
				paths = append(paths, c.Path+" "+c.Side)
			}
		}
		if len(paths) == 0 {
			return "identical" // but for what depends on timing, which the log names
		}
		return "differs in " + strings.Join(paths, ", ")
	}
	return "identical"
}

// unknownClasses lists a comparison's classes that no known difference explains.
func unknownClasses(res *predictionComparison) []string {
	var out []string
	for _, c := range slices.SortedFunc(maps.Keys(res.Classes), compareClasses) {
		if isUnknown(c) && !isLiveKnown(c) {
			out = append(out, fmt.Sprintf("%s (%s %s)", c, res.Examples[c].Object, res.Examples[c].Path))
		}
	}
	return out
}
