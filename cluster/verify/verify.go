// Package verify checks what OLM did on a cluster where it keeps running against a render for
// that cluster (render.TargetRunning): every Subscription is at its locked CSV and that CSV
// succeeded; every object of the prediction is in the cluster as predicted (compared by
// server-side dry-run apply, as Flux detects drift, so that what OLM or the API server adds is
// not drift); and every InstallPlan waiting for approval is listed with what the approval
// contract says of it.
//
// What OLM generates in the cluster is not compared: the prediction lists it on each object
// (package generated: the key pair and CA of the serving certificates OLM issues for webhooks
// and APIServices, caBundles, the olmcahash annotations and the spec hash that covers them).
// A webhook configuration, which OLM creates with generateName, is found as OLM finds it: by
// its generateName and its owner and webhook description labels. What OLM decides and a render
// cannot know is reported as known, not as drift (docs/olm-differences.md).
package verify

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/olm-render/olm-render/cluster/live"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/resolver/contract"
)

// State is the verdict on one thing verified.
type State string

// The states, from best to worst.
const (
	OK         State = "ok"          // as the render says
	Known      State = "known"       // differs in a documented way OLM decides
	InProgress State = "in-progress" // not there yet: an install or an approval is pending
	Drift      State = "drift"       // differs from the render
)

// Report is what Verify found.
type Report struct {
	Subscriptions []Item `json:"subscriptions"`
	Objects       []Item `json:"objects"`
	InstallPlans  []Item `json:"installPlans"`
}

// Item is one Subscription, object or InstallPlan and its state.
type Item struct {
	// Name is "Kind namespace/name".
	Name    string `json:"name"`
	State   State  `json:"state"`
	Message string `json:"message,omitempty"`
}

// Exit codes of a verification, for a CI gate and a drift alert.
const (
	ExitInSync     = 0 // everything is as the render says
	ExitDrift      = 2 // something differs from the lock or the prediction
	ExitInProgress = 3 // nothing differs, but an install or an approval is pending
)

// ExitCode returns the exit code of the report: drift first, then in progress.
func (r *Report) ExitCode() int {
	worst := ExitInSync
	for _, items := range [][]Item{r.Subscriptions, r.Objects, r.InstallPlans} {
		for _, it := range items {
			switch it.State {
			case Drift:
				return ExitDrift
			case InProgress:
				worst = ExitInProgress
			}
		}
	}
	return worst
}

// Clients are the cluster connections Verify uses.
type Clients struct {
	Dynamic dynamic.Interface
	// Live compares objects by server-side dry-run apply.
	Live *live.Cluster
}

// GVRs of what Verify reads.
var (
	subscriptionsGVR = v1alpha1.SchemeGroupVersion.WithResource("subscriptions")
	csvsGVR          = v1alpha1.SchemeGroupVersion.WithResource("clusterserviceversions")
	installPlansGVR  = v1alpha1.SchemeGroupVersion.WithResource("installplans")
	configMapsGVR    = corev1.SchemeGroupVersion.WithResource("configmaps")
)

// Verify checks the cluster against a render for TargetRunning: applied are the objects the
// render applies, prediction the objects it predicts.
func Verify(ctx context.Context, c Clients, applied, prediction []*unstructured.Unstructured) (*Report, error) {
	r := &Report{}
	csvs := map[string]bool{} // namespace/name of the locked CSVs still being installed, whose objects may be coming
	for _, o := range applied {
		if o.GetKind() != v1alpha1.SubscriptionKind || o.GroupVersionKind().Group != v1alpha1.GroupName {
			continue
		}
		it, installed, err := subscription(ctx, c, o)
		if err != nil {
			return nil, err
		}
		r.Subscriptions = append(r.Subscriptions, it)
		if !installed && it.State == InProgress {
			locked, _, _ := unstructured.NestedString(o.Object, "spec", "startingCSV")
			csvs[o.GetNamespace()+"/"+locked] = true
		}
	}
	pending := len(csvs) > 0
	for _, o := range prediction {
		it, err := object(ctx, c, o, pending)
		if err != nil {
			return nil, err
		}
		r.Objects = append(r.Objects, it)
	}
	plans, err := installPlans(ctx, c, applied)
	if err != nil {
		return nil, err
	}
	r.InstallPlans = plans
	for _, items := range [][]Item{r.Subscriptions, r.Objects, r.InstallPlans} {
		slices.SortFunc(items, func(a, b Item) int { return cmp.Compare(a.Name, b.Name) })
	}
	return r, nil
}

// subscription checks that a Subscription is at its locked CSV (spec.startingCSV of the
// render) and that the CSV succeeded; installed reports whether it is.
func subscription(ctx context.Context, c Clients, want *unstructured.Unstructured) (Item, bool, error) {
	it := Item{Name: name(want)}
	locked, _, _ := unstructured.NestedString(want.Object, "spec", "startingCSV")
	got, err := c.Dynamic.Resource(subscriptionsGVR).Namespace(want.GetNamespace()).Get(ctx, want.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		it.State, it.Message = Drift, "missing: apply the render"
		return it, false, nil
	}
	if err != nil {
		return it, false, fmt.Errorf("reading %s: %w", it.Name, err)
	}
	installed, _, _ := unstructured.NestedString(got.Object, "status", "installedCSV")
	switch {
	case installed == "":
		it.State, it.Message = InProgress, fmt.Sprintf("nothing installed yet (locked: %s)", locked)
		return it, false, nil
	case installed != locked:
		it.State, it.Message = Drift, fmt.Sprintf("installed %s, the lock says %s: an InstallPlan was approved outside the approval contract, or the lock moved and OLM has not caught up", installed, locked)
		return it, false, nil
	}
	csv, err := c.Dynamic.Resource(csvsGVR).Namespace(want.GetNamespace()).Get(ctx, locked, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		it.State, it.Message = Drift, fmt.Sprintf("installed %s, which is gone from the namespace", locked)
		return it, false, nil
	}
	if err != nil {
		return it, false, fmt.Errorf("reading ClusterServiceVersion %s/%s: %w", want.GetNamespace(), locked, err)
	}
	phase, _, _ := unstructured.NestedString(csv.Object, "status", "phase")
	reason, _, _ := unstructured.NestedString(csv.Object, "status", "reason")
	message, _, _ := unstructured.NestedString(csv.Object, "status", "message")
	switch v1alpha1.ClusterServiceVersionPhase(phase) {
	case v1alpha1.CSVPhaseSucceeded:
		it.State, it.Message = OK, "at "+locked+", Succeeded"
		return it, true, nil
	case v1alpha1.CSVPhaseFailed:
		it.State, it.Message = Drift, fmt.Sprintf("%s Failed: %s: %s", locked, reason, message)
	default:
		it.State, it.Message = InProgress, fmt.Sprintf("%s is %s: %s", locked, cmp.Or(phase, "new"), cmp.Or(message, reason))
	}
	return it, false, nil
}

// object checks one predicted object against the cluster. pending says some locked CSV is not
// installed yet, so a missing object may still come.
func object(ctx context.Context, c Clients, predicted *unstructured.Unstructured, pending bool) (Item, error) {
	it := Item{Name: name(predicted)}
	o, known, err := comparable(predicted)
	if err != nil {
		return it, fmt.Errorf("%s: %w", it.Name, err)
	}
	if o.GetName() == "" && o.GetGenerateName() != "" {
		liveName, err := generatedName(ctx, c, o)
		if err != nil {
			return it, err
		}
		if liveName == "" {
			return missing(it, pending), nil
		}
		o.SetName(liveName)
		unstructured.RemoveNestedField(o.Object, "metadata", "generateName")
	}
	cmpResult, err := c.Live.Compare(ctx, o)
	if err != nil {
		return it, err
	}
	switch {
	case cmpResult.Missing:
		return missing(it, pending), nil
	case cmpResult.Live != nil:
		it.State, it.Message = Drift, "differs: "+strings.Join(changedPaths(cmpResult.Live.Object, cmpResult.Merged.Object, ""), ", ")
	case known != "":
		it.State, it.Message = Known, known
	default:
		it.State = OK
	}
	return it, nil
}

// missing is the state of a predicted object that is not in the cluster.
func missing(it Item, pending bool) Item {
	if pending {
		it.State, it.Message = InProgress, "not created yet (an install is pending)"
		return it
	}
	it.State, it.Message = Drift, "missing: OLM did not create it, or it was deleted"
	return it
}

// installPlans lists the InstallPlans of the namespaces of the render's Subscriptions that wait
// for approval, each with what the namespace's approval contract (the render's) says of it.
func installPlans(ctx context.Context, c Clients, applied []*unstructured.Unstructured) ([]Item, error) {
	contracts := map[string]*contract.Namespace{}
	namespaces := map[string]bool{}
	for _, o := range applied {
		switch {
		case o.GetKind() == v1alpha1.SubscriptionKind:
			namespaces[o.GetNamespace()] = true
		case o.GetKind() == "ConfigMap" && o.GetLabels()[contract.Label] == "true":
			cm := &corev1.ConfigMap{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, cm); err != nil {
				return nil, fmt.Errorf("reading the render's %s: %w", name(o), err)
			}
			n, err := contract.FromConfigMap(cm)
			if err != nil {
				return nil, fmt.Errorf("reading the render's approval contract: %w", err)
			}
			contracts[n.Namespace] = n
		}
	}
	var out []Item
	for _, ns := range slices.Sorted(mapsKeys(namespaces)) {
		list, err := c.Dynamic.Resource(installPlansGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing the InstallPlans of %s: %w", ns, err)
		}
		for _, p := range list.Items {
			ip := &v1alpha1.InstallPlan{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(p.Object, ip); err != nil {
				return nil, fmt.Errorf("reading InstallPlan %s/%s: %w", ns, p.GetName(), err)
			}
			if ip.Spec.Approved || ip.Status.Phase != v1alpha1.InstallPlanPhaseRequiresApproval {
				continue
			}
			out = append(out, planItem(ip, contracts[ns]))
		}
	}
	return out, nil
}

// planItem says what an InstallPlan waiting for approval is to the contract: within it (the
// approver will approve it: in progress), or past it (held: OLM offers more than the lock, as
// it does when the channel goes on past the locked CSV, which is fine).
func planItem(ip *v1alpha1.InstallPlan, n *contract.Namespace) Item {
	it := Item{Name: "InstallPlan " + ip.Namespace + "/" + ip.Name}
	csvs := strings.Join(ip.Spec.ClusterServiceVersionNames, ", ")
	if n == nil {
		it.State, it.Message = InProgress, "waits for approval of "+csvs+"; the render has no approval contract for the namespace"
		return it
	}
	if ok, outside := n.Admits(ip.Spec.ClusterServiceVersionNames); ok {
		it.State, it.Message = InProgress, "waits for approval of "+csvs+", within the approval contract"
	} else {
		it.State, it.Message = OK, "held: "+strings.Join(outside, ", ")+" not in the approval contract"
	}
	return it
}

// name names an object as "Kind namespace/name".
func name(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetKind() + " " + o.GetName()
	}
	return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
}

// mapsKeys returns a map's keys.
func mapsKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// isWebhookConfiguration reports whether an object is an admission webhook configuration.
func isWebhookConfiguration(o *unstructured.Unstructured) bool {
	return o.GroupVersionKind().Group == "admissionregistration.k8s.io" &&
		(o.GetKind() == "ValidatingWebhookConfiguration" || o.GetKind() == "MutatingWebhookConfiguration")
}

// generatedName returns the name of the webhook configuration OLM created with generateName for
// a predicted one (install/webhook.go), found as OLM finds it: by its owner labels and webhook
// description label, with the predicted generateName; "" when there is none. (OLM updates
// every one it finds; the first by name is compared.)
func generatedName(ctx context.Context, c Clients, o *unstructured.Unstructured) (string, error) {
	if !isWebhookConfiguration(o) {
		return "", fmt.Errorf("%s: OLM names no %s with generateName", name(o), o.GetKind())
	}
	gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: strings.ToLower(o.GetKind()) + "s"}
	selector := labels.Set{}
	for _, k := range []string{"olm.owner", "olm.owner.namespace", "olm.owner.kind", webhook.DescriptionKey} {
		if v, ok := o.GetLabels()[k]; ok {
			selector[k] = v
		}
	}
	list, err := c.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return "", fmt.Errorf("listing %ss: %w", o.GetKind(), err)
	}
	var names []string
	for _, w := range list.Items {
		if w.GetGenerateName() == o.GetGenerateName() {
			names = append(names, w.GetName())
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "", nil
	}
	return names[0], nil
}
