package approve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Once reads every InstallPlan, Subscription, CSV and contract ConfigMap of the namespaces (all
// of them, or opts.Namespaces), approves the plans the contracts admit, posts the Events, writes
// each namespace's health, and reports it all; a dry run (opts.DryRun) only reads and reports.
// An error reading the cluster ends it; an error acting on one namespace does not stop the
// others, and is returned with the report.
func Once(ctx context.Context, clients Clients, opts Options) (*Report, error) {
	states, err := readStates(ctx, clients, opts.scopes())
	if err != nil {
		return nil, err
	}
	a := newActor(clients, opts)
	if !opts.DryRun {
		a.events = NewEvents(clients.Kube)
		defer a.events.Shutdown()
	}
	report := &Report{DryRun: opts.DryRun, InstallPlans: []PlanResult{}, Namespaces: []NamespaceHealth{}}
	var errs []error
	for _, s := range states {
		plans, health, err := a.reconcile(ctx, s)
		report.InstallPlans = append(report.InstallPlans, plans...)
		if health != nil {
			report.Namespaces = append(report.Namespaces, *health)
		}
		errs = append(errs, err)
	}
	if a.events != nil {
		flushCtx, cancel := context.WithTimeout(ctx, flushTimeout)
		defer cancel()
		a.events.Flush(flushCtx)
	}
	report.sort()
	return report, errors.Join(errs...)
}

// readStates lists what the approver reads in the scopes, by namespace: the namespaces with a
// contract ConfigMap, an InstallPlan or a Subscription, sorted.
func readStates(ctx context.Context, clients Clients, scopes []string) ([]*State, error) {
	states := map[string]*State{}
	for _, ns := range scopes {
		if err := readConfigMaps(ctx, clients, ns, states); err != nil {
			return nil, err
		}
		for _, r := range []struct {
			gvr      schema.GroupVersionResource
			selector string
		}{{installPlansResource, ""}, {subscriptionsResource, ""}, {csvsResource, notCopied}} {
			if err := readOLM(ctx, clients, ns, r.gvr, r.selector, states); err != nil {
				return nil, err
			}
		}
	}
	var out []*State
	for _, s := range states {
		if s.Contract.Found || len(s.Plans) > 0 || len(s.Subscriptions) > 0 {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *State) int { return cmp.Compare(a.Namespace, b.Namespace) })
	return out, nil
}

// readConfigMaps lists the contract ConfigMaps of a scope into the states.
func readConfigMaps(ctx context.Context, clients Clients, ns string, states map[string]*State) error {
	var opts metav1.ListOptions
	contractsOnly(&opts)
	list, err := clients.Kube.CoreV1().ConfigMaps(ns).List(ctx, opts)
	if err != nil {
		return listError("the contract ConfigMaps", ns, err)
	}
	for i := range list.Items {
		if cm := &list.Items[i]; isContract(cm) {
			states[cm.Namespace] = newState(cm.Namespace, cm)
		}
	}
	return nil
}

// readOLM lists one OLM resource of a scope into the states.
func readOLM(ctx context.Context, clients Clients, ns string, gvr schema.GroupVersionResource, selector string, states map[string]*State) error {
	list, err := clients.Dynamic.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return listError(gvr.Resource+"."+gvr.Group, ns, err)
	}
	for i := range list.Items {
		u := &list.Items[i]
		s := states[u.GetNamespace()]
		if s == nil {
			s = newState(u.GetNamespace(), nil)
			states[u.GetNamespace()] = s
		}
		if err := s.add(u); err != nil {
			return err
		}
	}
	return nil
}

// listError says which listing failed and what would fix it.
func listError(what, ns string, err error) error {
	where := " in every namespace"
	if ns != "" {
		where = " in namespace " + ns
	}
	switch {
	case apierrors.IsForbidden(err) && ns == "":
		return fmt.Errorf("listing %s%s (grant the approver list and watch on them cluster-wide, as examples/approver does, or limit it with --namespace): %w", what, where, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("listing %s%s (grant the approver list and watch on them in that namespace, as examples/approver/README.md does): %w", what, where, err)
	case apierrors.IsNotFound(err):
		return fmt.Errorf("listing %s%s (is OLM installed? its CRDs define them): %w", what, where, err)
	}
	return fmt.Errorf("listing %s%s: %w", what, where, err)
}

// contractAmong returns the contract ConfigMap among a namespace's labelled ones, nil when none
// is.
func contractAmong(cms []*corev1.ConfigMap) *corev1.ConfigMap {
	for _, cm := range cms {
		if isContract(cm) {
			return cm
		}
	}
	return nil
}
