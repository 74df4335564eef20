package approve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"github.com/olm-render/olm-render/resolver/contract"
)

// actor carries out the decisions on a namespace: it approves, posts Events, logs, and writes
// the namespace's health on its contract ConfigMap; in a dry run, it only logs.
type actor struct {
	clients Clients
	// events posts the Events; nil in a dry run.
	events *Events
	log    io.Writer
	dryRun bool
	// posted is the last Event posted on each InstallPlan, by namespace, so that a controller
	// reconciling a namespace again does not post it again.
	posted map[string]map[types.UID]string
}

// newActor returns an actor with the options' log and dry run.
func newActor(clients Clients, opts Options) *actor {
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	return &actor{clients: clients, log: log, dryRun: opts.DryRun, posted: map[string]map[types.UID]string{}}
}

// reconcile decides on every InstallPlan of a namespace, approves those to approve, reports
// the others (saying which holds are the ceiling), and writes the namespace's health on its
// contract. It returns the health (nil when the namespace has none) and goes on after a failed
// approval, returning every error.
func (a *actor) reconcile(ctx context.Context, s *State) ([]PlanResult, *NamespaceHealth, error) {
	sortedPlans(s.Plans)
	decisions := decideAll(s.Plans, s.Contract)
	results := make([]PlanResult, 0, len(s.Plans))
	posted := map[types.UID]string{}
	var errs []error
	for i := range s.Plans {
		r, err := a.carryOut(ctx, &s.Plans[i], decisions[i], s.Contract, posted)
		results = append(results, r)
		errs = append(errs, err)
	}
	a.posted[s.Namespace] = posted
	x := newIndex(*s)
	for i := range results {
		results[i].Ceiling = results[i].Outcome == OutcomeHeld && x.pastLocks(&s.Plans[i])
	}
	h := Health(*s)
	if s.Contract.Found {
		errs = append(errs, a.annotate(ctx, s.ConfigMap, h))
	}
	if h.Status == "" {
		return results, nil, errors.Join(errs...)
	}
	return results, &h, errors.Join(errs...)
}

// carryOut carries out one decision: it approves the plan (updating *plan to the approved
// plan) and reports the result in an Event and the log.
func (a *actor) carryOut(ctx context.Context, plan *v1alpha1.InstallPlan, d Decision, c Contract, posted map[types.UID]string) (PlanResult, error) {
	if d.Verdict == Approve && a.dryRun {
		r := resultOf(plan, d, OutcomeWouldApprove)
		a.announce(plan, r, posted)
		return r, nil
	}
	if d.Verdict == Approve {
		approved, after, err := a.approve(ctx, plan, c)
		if err != nil {
			fmt.Fprintf(a.log, "error: approving InstallPlan %s/%s: %v\n", plan.Namespace, plan.Name, err)
			return resultOf(plan, Decision{Verdict: Hold, Reason: err.Error()}, OutcomeFailed), err
		}
		*plan, d = *approved, after
	}
	r := resultOf(plan, d, outcomeOf(d))
	a.announce(plan, r, posted)
	return r, nil
}

// announce posts the Event of an approved or held plan and logs it, once per plan and result;
// a dry run only logs what it would do.
func (a *actor) announce(plan *v1alpha1.InstallPlan, r PlanResult, posted map[types.UID]string) {
	if r.Outcome != OutcomeApproved && r.Outcome != OutcomeHeld && r.Outcome != OutcomeWouldApprove {
		return
	}
	key := string(r.Outcome) + ": " + r.Reason
	posted[plan.UID] = key
	if a.posted[plan.Namespace][plan.UID] == key {
		return
	}
	csvs := strings.Join(plan.Spec.ClusterServiceVersionNames, ", ")
	switch {
	case r.Outcome == OutcomeWouldApprove:
		fmt.Fprintf(a.log, "dry run: would approve InstallPlan %s/%s (%s): %s\n", plan.Namespace, plan.Name, csvs, r.Reason)
		return
	case a.dryRun:
		fmt.Fprintf(a.log, "dry run: would hold InstallPlan %s/%s (%s): %s\n", plan.Namespace, plan.Name, csvs, r.Reason)
		return
	case r.Outcome == OutcomeApproved:
		a.events.Eventf(plan, corev1.EventTypeNormal, ReasonApproved, "approved %s: %s", csvs, r.Reason)
		fmt.Fprintf(a.log, "approved InstallPlan %s/%s (%s): %s\n", plan.Namespace, plan.Name, csvs, r.Reason)
		return
	}
	a.events.Eventf(plan, corev1.EventTypeWarning, ReasonHeld, "held: %s", r.Reason)
	fmt.Fprintf(a.log, "held InstallPlan %s/%s (%s): %s\n", plan.Namespace, plan.Name, csvs, r.Reason)
}

// approve sets spec.approved on a plan with a merge patch carrying its resourceVersion: when
// the plan changed meanwhile, it reads it again and decides again. It returns the plan as
// patched (or as read last) and the final decision.
func (a *actor) approve(ctx context.Context, plan *v1alpha1.InstallPlan, c Contract) (*v1alpha1.InstallPlan, Decision, error) {
	current, d := plan.DeepCopy(), Decision{Verdict: Approve}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if d.Verdict != Approve {
			return nil
		}
		patched, err := a.patchApproved(ctx, current)
		switch {
		case err == nil:
			current = patched
			return nil
		case !apierrors.IsConflict(err):
			return err
		}
		fresh, getErr := a.getPlan(ctx, current.Namespace, current.Name)
		switch {
		case apierrors.IsNotFound(getErr):
			d = Decision{Verdict: Ignore, Reason: "deleted while being approved"}
			return nil
		case getErr != nil:
			return getErr
		}
		current, d = fresh, Decide(fresh, c)
		return err
	})
	switch {
	case apierrors.IsForbidden(err):
		return nil, d, fmt.Errorf("InstallPlan %s/%s: setting spec.approved (grant the approver patch on installplans.operators.coreos.com, as examples/approver does): %w", plan.Namespace, plan.Name, err)
	case err != nil:
		return nil, d, fmt.Errorf("InstallPlan %s/%s: setting spec.approved: %w", plan.Namespace, plan.Name, err)
	}
	if d.Verdict == Approve {
		d.Reason = fmt.Sprintf("the contract of ConfigMap %s admits every CSV", c.ConfigMapRef())
	}
	return current, d, nil
}

// patchApproved patches spec.approved to true, on condition that the plan's resourceVersion is
// still the one read.
func (a *actor) patchApproved(ctx context.Context, plan *v1alpha1.InstallPlan) (*v1alpha1.InstallPlan, error) {
	patch := map[string]any{"spec": map[string]any{"approved": true}}
	if plan.ResourceVersion != "" {
		patch["metadata"] = map[string]any{"resourceVersion": plan.ResourceVersion}
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	u, err := a.clients.Dynamic.Resource(installPlansResource).Namespace(plan.Namespace).
		Patch(ctx, plan.Name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: Component})
	if err != nil {
		return nil, err
	}
	return planOf(u)
}

// getPlan reads an InstallPlan.
func (a *actor) getPlan(ctx context.Context, namespace, name string) (*v1alpha1.InstallPlan, error) {
	u, err := a.clients.Dynamic.Resource(installPlansResource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return planOf(u)
}

// planOf converts an InstallPlan read through the dynamic client.
func planOf(u *unstructured.Unstructured) (*v1alpha1.InstallPlan, error) {
	var p v1alpha1.InstallPlan
	if err := fromUnstructured(u, &p); err != nil {
		return nil, err
	}
	p.TypeMeta = typeMeta(v1alpha1.InstallPlanKind)
	return &p, nil
}

// annotate writes a namespace's health on its contract ConfigMap, with a merge patch of the two
// annotations, when they changed; a dry run only logs it.
func (a *actor) annotate(ctx context.Context, cm *corev1.ConfigMap, h NamespaceHealth) error {
	if cm.Annotations[contract.HealthAnnotation] == string(h.Status) && cm.Annotations[contract.HealthMessageAnnotation] == h.Message {
		return nil
	}
	if a.dryRun {
		fmt.Fprintf(a.log, "dry run: namespace %s: %s: %s (not written)\n", h.Namespace, h.Status, h.Message)
		return nil
	}
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		contract.HealthAnnotation: string(h.Status), contract.HealthMessageAnnotation: h.Message}}})
	if err != nil {
		return err
	}
	_, err = a.clients.Kube.CoreV1().ConfigMaps(cm.Namespace).Patch(ctx, cm.Name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: Component})
	if err != nil {
		err = fmt.Errorf("ConfigMap %s/%s: writing the health of the namespace (the approver needs patch on configmaps): %w", cm.Namespace, cm.Name, err)
		fmt.Fprintf(a.log, "error: %v\n", err)
		return err
	}
	fmt.Fprintf(a.log, "namespace %s: %s: %s\n", h.Namespace, h.Status, h.Message)
	return nil
}
