package live

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// FieldManager is the field manager of what a test applies, as a user's
// `kubectl apply --server-side` would.
const FieldManager = "olm-render-live-test"

// Apply applies objects server-side, in order, as a user would with
// `kubectl apply --server-side --force-conflicts`.
func (c *Cluster) Apply(ctx context.Context, objs ...*unstructured.Unstructured) error {
	rs, err := c.resources()
	if err != nil {
		return err
	}
	for _, o := range objs {
		gvr, err := gvrOf(o, rs)
		if err != nil {
			return err
		}
		data, err := json.Marshal(o.Object)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", nameOf(o), err)
		}
		force := true
		_, err = c.Dynamic.Resource(gvr).Namespace(o.GetNamespace()).Patch(ctx, o.GetName(), types.ApplyPatchType, data,
			metav1.PatchOptions{FieldManager: FieldManager, Force: &force})
		if err != nil {
			return fmt.Errorf("applying %s: %w", nameOf(o), err)
		}
	}
	return nil
}

// Approver decides whether to approve an InstallPlan waiting for approval. It is called once
// for each such plan; nil approves none.
type Approver func(*v1alpha1.InstallPlan) bool

// ApproveAll approves every InstallPlan.
func ApproveAll(*v1alpha1.InstallPlan) bool { return true }

// Outcome is where OLM settled with the Subscriptions of some namespaces.
type Outcome struct {
	// Failure says why OLM did not install everything (resolution failed, an InstallPlan or a
	// CSV failed, or a CSV never succeeded); "" when every CSV succeeded.
	Failure string
	// Held are InstallPlans left waiting for approval, by namespace/name.
	Held []string
	// Took is how long OLM took to settle.
	Took time.Duration
}

// quietPolls is how many polls in a row must see the same objects for the cluster to count as
// settled, and pollInterval the time between polls.
const (
	quietPolls   = 4
	pollInterval = 500 * time.Millisecond
)

// Settle waits until OLM is done with the Subscriptions of the namespaces: every Subscription
// has its CSV in a final phase (or resolution failed, or an InstallPlan waits for an approval
// the Approver refused) and no object has changed for a while. InstallPlans waiting for
// approval are put to approve. When timeout passes first, the Outcome says what OLM was
// still waiting for; the error is for the harness's own failures (a controller exited, the
// API server failed).
func (c *Cluster) Settle(ctx context.Context, namespaces []string, approve Approver, timeout time.Duration) (Outcome, error) {
	start := time.Now()
	deadline := start.Add(timeout)
	decided := map[types.UID]bool{}
	var last string
	quiet := 0
	for {
		if err := c.OLMRunning(); err != nil {
			return Outcome{}, err
		}
		st, err := c.installState(ctx, namespaces)
		if err != nil {
			return Outcome{}, err
		}
		approved, err := c.decide(ctx, st.waiting, approve, decided)
		if err != nil {
			return Outcome{}, err
		}
		objs, err := c.list(ctx)
		if err != nil {
			return Outcome{}, err
		}
		collected, err := c.collect(ctx, objs)
		if err != nil {
			return Outcome{}, err
		}
		fp := c.fingerprint(objs)
		if fp == last && !approved && collected == 0 {
			quiet++
		} else {
			quiet, last = 0, fp
		}
		out := Outcome{Failure: st.failure(), Held: st.held(decided), Took: time.Since(start)}
		if quiet >= quietPolls && st.final() {
			return out, nil
		}
		if time.Now().After(deadline) {
			if out.Failure == "" {
				out.Failure = "OLM did not settle in " + timeout.String() + ": " + st.pendingReason()
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
			return Outcome{}, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// decide puts every InstallPlan waiting for approval that has not been decided yet to approve,
// and approves those it accepts. It reports whether it approved any.
func (c *Cluster) decide(ctx context.Context, waiting []*v1alpha1.InstallPlan, approve Approver, decided map[types.UID]bool) (bool, error) {
	approved := false
	for _, ip := range waiting {
		if _, seen := decided[ip.UID]; seen {
			continue
		}
		ok := approve != nil && approve(ip)
		decided[ip.UID] = ok
		if !ok {
			continue
		}
		if err := c.ApproveInstallPlan(ctx, ip.Namespace, ip.Name); err != nil {
			return false, err
		}
		approved = true
	}
	return approved, nil
}

// ApproveInstallPlan sets an InstallPlan's spec.approved, as `oc patch installplan` does.
func (c *Cluster) ApproveInstallPlan(ctx context.Context, namespace, name string) error {
	patch := []byte(`{"spec":{"approved":true}}`)
	if _, err := c.OLM.OperatorsV1alpha1().InstallPlans(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("approving InstallPlan %s/%s: %w", namespace, name, err)
	}
	return nil
}

// fingerprint identifies the state of everything created since the start, given every
// object in the cluster: the UID and resource version of each.
func (c *Cluster) fingerprint(objs []*unstructured.Unstructured) string {
	var b strings.Builder
	for _, o := range c.created(objs) {
		fmt.Fprintf(&b, "%s/%s;", o.GetUID(), o.GetResourceVersion())
	}
	return b.String()
}

// installState is what OLM has done so far with the Subscriptions of some namespaces.
type installState struct {
	subs    []v1alpha1.Subscription
	csvs    map[string]*v1alpha1.ClusterServiceVersion // by namespace/name
	plans   []v1alpha1.InstallPlan
	waiting []*v1alpha1.InstallPlan
}

// installState reads the Subscriptions, CSVs and InstallPlans of the namespaces.
func (c *Cluster) installState(ctx context.Context, namespaces []string) (*installState, error) {
	st := &installState{csvs: map[string]*v1alpha1.ClusterServiceVersion{}}
	for _, ns := range namespaces {
		subs, err := c.OLM.OperatorsV1alpha1().Subscriptions(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing Subscriptions of %s: %w", ns, err)
		}
		st.subs = append(st.subs, subs.Items...)
		csvs, err := c.OLM.OperatorsV1alpha1().ClusterServiceVersions(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing CSVs of %s: %w", ns, err)
		}
		for i := range csvs.Items {
			st.csvs[ns+"/"+csvs.Items[i].Name] = &csvs.Items[i]
		}
		plans, err := c.OLM.OperatorsV1alpha1().InstallPlans(ns).List(ctx, metav1.ListOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("listing InstallPlans of %s: %w", ns, err)
		}
		if plans != nil {
			st.plans = append(st.plans, plans.Items...)
		}
	}
	for i := range st.plans {
		ip := &st.plans[i]
		if ip.Status.Phase == v1alpha1.InstallPlanPhaseRequiresApproval && !ip.Spec.Approved {
			st.waiting = append(st.waiting, ip)
		}
	}
	return st, nil
}

// final reports whether every Subscription has come to rest: its CSV succeeded or failed, its
// resolution failed, or its InstallPlan waits for approval.
func (s *installState) final() bool {
	if s.failure() != "" {
		return true
	}
	for _, sub := range s.subs {
		if s.waitsForApproval(&sub) {
			continue
		}
		csv := s.csvs[sub.Namespace+"/"+sub.Status.InstalledCSV]
		if sub.Status.InstalledCSV == "" || csv == nil || csv.Status.Phase != v1alpha1.CSVPhaseSucceeded ||
			sub.Status.State != v1alpha1.SubscriptionStateAtLatest {
			return false
		}
	}
	// Every CSV of the namespaces (dependencies' and copies' included) is done.
	for _, csv := range s.csvs {
		if !isCopy(csv) && csv.Status.Phase != v1alpha1.CSVPhaseSucceeded && csv.Status.Phase != v1alpha1.CSVPhaseFailed {
			return false
		}
	}
	return true
}

// waitsForApproval reports whether a Subscription's latest InstallPlan waits for approval.
func (s *installState) waitsForApproval(sub *v1alpha1.Subscription) bool {
	if sub.Status.InstallPlanRef == nil {
		return false
	}
	return slices.ContainsFunc(s.waiting, func(ip *v1alpha1.InstallPlan) bool {
		return ip.Namespace == sub.Namespace && ip.Name == sub.Status.InstallPlanRef.Name
	})
}

// failure says why OLM failed, or "".
func (s *installState) failure() string {
	var out []string
	for _, sub := range s.subs {
		for _, cond := range sub.Status.Conditions {
			if cond.Type == v1alpha1.SubscriptionResolutionFailed && cond.Status == corev1.ConditionTrue {
				out = append(out, fmt.Sprintf("Subscription %s/%s: %s: %s", sub.Namespace, sub.Name, cond.Reason, cond.Message))
			}
		}
	}
	for _, ip := range s.plans {
		if ip.Status.Phase == v1alpha1.InstallPlanPhaseFailed {
			out = append(out, fmt.Sprintf("InstallPlan %s/%s failed: %s", ip.Namespace, ip.Name, planMessage(&ip)))
		}
	}
	for _, key := range sortedKeys(s.csvs) {
		csv := s.csvs[key]
		if !isCopy(csv) && csv.Status.Phase == v1alpha1.CSVPhaseFailed {
			out = append(out, fmt.Sprintf("CSV %s failed: %s: %s", key, csv.Status.Reason, csv.Status.Message))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// pendingReason says what OLM is still waiting for.
func (s *installState) pendingReason() string {
	var out []string
	for _, sub := range s.subs {
		if sub.Status.InstalledCSV == "" {
			out = append(out, fmt.Sprintf("Subscription %s/%s has no installed CSV (state %q)", sub.Namespace, sub.Name, sub.Status.State))
		}
	}
	for _, key := range sortedKeys(s.csvs) {
		csv := s.csvs[key]
		if !isCopy(csv) && csv.Status.Phase != v1alpha1.CSVPhaseSucceeded {
			out = append(out, fmt.Sprintf("CSV %s is %s: %s: %s", key, csv.Status.Phase, csv.Status.Reason, csv.Status.Message))
		}
	}
	if len(out) == 0 {
		return "objects kept changing"
	}
	return strings.Join(out, "; ")
}

// held lists the InstallPlans waiting for an approval the Approver refused.
func (s *installState) held(decided map[types.UID]bool) []string {
	var out []string
	for _, ip := range s.waiting {
		if ok, seen := decided[ip.UID]; seen && !ok {
			out = append(out, ip.Namespace+"/"+ip.Name)
		}
	}
	slices.Sort(out)
	return out
}

// planMessage is the message of an InstallPlan's failed condition.
func planMessage(ip *v1alpha1.InstallPlan) string {
	for _, c := range ip.Status.Conditions {
		if c.Status == corev1.ConditionFalse && c.Message != "" {
			return c.Message
		}
	}
	return string(ip.Status.Phase)
}

// isCopy reports whether a CSV is a copy OLM made in a target namespace.
func isCopy(csv *v1alpha1.ClusterServiceVersion) bool {
	_, ok := csv.Labels[v1alpha1.CopiedLabelKey]
	return ok
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
