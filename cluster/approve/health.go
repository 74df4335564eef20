package approve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"

	"github.com/olm-render/olm-render/resolver/contract"
)

// Status is the health of a namespace's contract, in Argo CD's words.
type Status string

const (
	// Healthy: every Subscription of the contract installed its locked CSV, which Succeeded.
	Healthy Status = "Healthy"
	// Progressing: OLM is on its way to the locked CSVs; the message says what it waits for.
	Progressing Status = "Progressing"
	// Degraded: OLM cannot reach the locked CSVs without someone acting; the message says why.
	Degraded Status = "Degraded"
	// Missing: the namespace has no contract, yet the approver is needed there: it has a Manual
	// Subscription or an InstallPlan waiting for approval. Nothing is approved there; no
	// ConfigMap carries this status, only the Report.
	Missing Status = "Missing"
)

// NamespaceHealth is the health of one namespace's contract.
type NamespaceHealth struct {
	Namespace string `json:"namespace"`
	Status    Status `json:"status"`
	Message   string `json:"message"`
}

// Health computes the health of a namespace's contract from the cluster (see the package
// documentation). A namespace without a contract is Missing when it has a Manual Subscription or
// an InstallPlan waiting for approval; otherwise it has no health: its Status is empty.
func Health(s State) NamespaceHealth {
	h := NamespaceHealth{Namespace: s.Namespace}
	switch {
	case !s.Contract.Found:
		if waits := awaiting(s); waits != "" {
			h.Status, h.Message = Missing, fmt.Sprintf("no contract: namespace %s has %s, but no ConfigMap %s labelled %s=true, so nothing is approved there; apply the contract ConfigMap of the render",
				s.Namespace, waits, contract.ConfigMapName, contract.Label)
		}
		return h
	case s.Contract.Err != nil:
		h.Status, h.Message = Degraded, fmt.Sprintf("contract unreadable: %v", s.Contract.Err)
		return h
	}
	x := newIndex(s)
	var degraded, progressing, healthy []string
	for _, cs := range s.Contract.Contract.Subscriptions {
		st, msg := x.subscription(cs)
		switch st {
		case Degraded:
			degraded = append(degraded, msg)
		case Progressing:
			progressing = append(progressing, msg)
		default:
			healthy = append(healthy, msg)
		}
	}
	switch {
	case len(degraded) > 0:
		h.Status, h.Message = Degraded, strings.Join(degraded, "; ")
	case len(progressing) > 0:
		h.Status, h.Message = Progressing, strings.Join(progressing, "; ")
	default:
		h.Status, h.Message = Healthy, "at the locked CSVs: "+strings.Join(healthy, ", ")+x.heldNote()
	}
	return h
}

// awaiting says what in a namespace waits for the approver: its Manual Subscriptions and the
// InstallPlans waiting for approval; "" when nothing does.
func awaiting(s State) string {
	var subs, plans []string
	for _, sub := range s.Subscriptions {
		if sub.Spec != nil && sub.Spec.InstallPlanApproval == v1alpha1.ApprovalManual {
			subs = append(subs, sub.Name)
		}
	}
	for i := range s.Plans {
		if waiting(&s.Plans[i]) {
			plans = append(plans, s.Plans[i].Name)
		}
	}
	slices.Sort(subs)
	slices.Sort(plans)
	var parts []string
	if len(subs) > 0 {
		parts = append(parts, plural(len(subs), "the Manual Subscription ", "the Manual Subscriptions ")+strings.Join(subs, ", "))
	}
	if len(plans) > 0 {
		parts = append(parts, plural(len(plans), "the InstallPlan ", "the InstallPlans ")+strings.Join(plans, ", ")+" waiting for approval")
	}
	return strings.Join(parts, " and ")
}

// plural picks the singular or the plural form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Ceiling reports whether holding an InstallPlan is the ceiling working: the plan would only
// move Subscriptions of the contract past their locks. Every CSV it installs is outside the
// contract and is the CSV OLM offers (status.currentCSV) to a Subscription of the contract, of
// the contract's package, that installed its locked CSV. A plan that also installs anything
// else (a CSV toward a lock, a CSV of a Subscription the contract does not have, a dependency no
// Subscription offers yet) is not. Ceiling only tells holds apart: what is approved is Decide's
// alone.
func Ceiling(s State, plan *v1alpha1.InstallPlan) bool {
	return newIndex(s).pastLocks(plan)
}

// pastLocks is Ceiling on the index.
func (x *index) pastLocks(plan *v1alpha1.InstallPlan) bool {
	c := x.contract.Contract
	if c == nil || x.contract.Err != nil || len(plan.Spec.ClusterServiceVersionNames) == 0 {
		return false
	}
	offered := map[string]bool{}
	for _, cs := range c.Subscriptions {
		sub := x.subs[cs.Name]
		if sub != nil && sub.Spec != nil && sub.Spec.Package == cs.Package && sub.Status.InstalledCSV == cs.Locked {
			offered[sub.Status.CurrentCSV] = true
		}
	}
	for _, name := range plan.Spec.ClusterServiceVersionNames {
		if admitted, _ := c.Admits([]string{name}); admitted || !offered[name] {
			return false
		}
	}
	return true
}

// index is a namespace's state by name, with the decision on each InstallPlan.
type index struct {
	contract  Contract
	subs      map[string]*v1alpha1.Subscription
	csvs      map[string]*v1alpha1.ClusterServiceVersion
	plans     []v1alpha1.InstallPlan
	decisions []Decision
}

func newIndex(s State) *index {
	x := &index{contract: s.Contract, subs: map[string]*v1alpha1.Subscription{}, csvs: map[string]*v1alpha1.ClusterServiceVersion{},
		plans: s.Plans, decisions: decideAll(s.Plans, s.Contract)}
	for i := range s.Subscriptions {
		x.subs[s.Subscriptions[i].Name] = &s.Subscriptions[i]
	}
	for i := range s.CSVs {
		x.csvs[s.CSVs[i].Name] = &s.CSVs[i]
	}
	return x
}

// subscription returns the health of one Subscription of the contract and a phrase saying why.
func (x *index) subscription(cs contract.Subscription) (Status, string) {
	name := "Subscription " + cs.Name
	sub := x.subs[cs.Name]
	if sub == nil {
		if cs.Generated {
			return Progressing, name + ": waiting for OLM to create it (a dependency)"
		}
		return Progressing, name + ": not created yet"
	}
	if c := sub.Status.GetCondition(v1alpha1.SubscriptionResolutionFailed); c.Status == corev1.ConditionTrue {
		return Degraded, fmt.Sprintf("%s: resolution failed: %s", name, c.Message)
	}
	if csv := x.csvs[cs.Locked]; csv != nil && csv.Status.Phase == v1alpha1.CSVPhaseFailed {
		return Degraded, fmt.Sprintf("%s: the locked CSV %s failed: %s", name, cs.Locked, csvWhy(csv))
	}
	installed := sub.Status.InstalledCSV
	if installed == cs.Locked {
		return x.atLock(name, cs.Locked)
	}
	if ok, _ := x.contract.Contract.Admits([]string{installed}); installed != "" && !ok {
		return Degraded, fmt.Sprintf("%s: installed CSV %s is outside the contract (locked to %s)", name, installed, cs.Locked)
	}
	if st, msg, ok := x.planOf(name, sub, cs.Locked); ok {
		return st, msg
	}
	if csv := x.csvs[installed]; csv != nil && csv.Status.Phase == v1alpha1.CSVPhaseFailed {
		return Degraded, fmt.Sprintf("%s: the installed CSV %s failed: %s", name, installed, csvWhy(csv))
	}
	if installed == "" {
		return Progressing, fmt.Sprintf("%s: waiting for OLM to install %s", name, cs.Locked)
	}
	return Progressing, fmt.Sprintf("%s: at %s, waiting for OLM to offer the next step up to %s", name, installed, cs.Locked)
}

// atLock is the health of a Subscription that installed its locked CSV: Healthy once the CSV
// Succeeded. A plan offering a newer CSV does not matter: the lock is the ceiling.
func (x *index) atLock(name, locked string) (Status, string) {
	csv := x.csvs[locked]
	switch {
	case csv == nil:
		return Progressing, fmt.Sprintf("%s: waiting for the CSV %s", name, locked)
	case csv.Status.Phase != v1alpha1.CSVPhaseSucceeded:
		return Progressing, fmt.Sprintf("%s: the CSV %s is %s", name, locked, phaseOfCSV(csv))
	}
	return Healthy, locked
}

// planOf finds the InstallPlan that would move a Subscription toward its locked CSV and says
// what it means for the Subscription's health: a held or failed plan is Degraded, an approved
// one Progressing. ok is false when there is no such plan, or it is done.
func (x *index) planOf(name string, sub *v1alpha1.Subscription, locked string) (st Status, msg string, ok bool) {
	i := x.planIndex(sub)
	if i < 0 {
		return "", "", false
	}
	p, d := &x.plans[i], x.decisions[i]
	toward := fmt.Sprintf("%s: InstallPlan %s, which would move it toward %s,", name, p.Name, locked)
	switch {
	case d.Verdict == Hold && len(d.Outside) > 0:
		return Degraded, fmt.Sprintf("%s is held: it installs %s, outside the contract", toward, strings.Join(d.Outside, ", ")), true
	case d.Verdict == Hold:
		return Degraded, fmt.Sprintf("%s is held: %s", toward, d.Reason), true
	case p.Status.Phase == v1alpha1.InstallPlanPhaseFailed:
		return Degraded, fmt.Sprintf("%s failed: %s", toward, p.Status.Message), true
	case p.Spec.Approved && p.Status.Phase != v1alpha1.InstallPlanPhaseComplete:
		return Progressing, fmt.Sprintf("%s is approved and installing %s", toward, strings.Join(p.Spec.ClusterServiceVersionNames, ", ")), true
	case d.Verdict == Approve:
		return Progressing, fmt.Sprintf("%s is being approved", toward), true
	}
	return "", "", false
}

// planIndex returns the index of the InstallPlan that would move a Subscription on: the newest
// plan installing the CSV OLM wants for it (status.currentCSV), else the plan its status names;
// -1 when there is none.
func (x *index) planIndex(sub *v1alpha1.Subscription) int {
	best := -1
	if cur := sub.Status.CurrentCSV; cur != "" && cur != sub.Status.InstalledCSV {
		for i := range x.plans {
			if slices.Contains(x.plans[i].Spec.ClusterServiceVersionNames, cur) && x.decisions[i].Verdict != Ignore &&
				(best < 0 || newer(&x.plans[i], &x.plans[best])) {
				best = i
			}
		}
	}
	if best >= 0 {
		return best
	}
	ref := ""
	switch {
	case sub.Status.InstallPlanRef != nil:
		ref = sub.Status.InstallPlanRef.Name
	case sub.Status.Install != nil:
		ref = sub.Status.Install.Name
	}
	for i := range x.plans {
		if ref != "" && x.plans[i].Name == ref {
			return i
		}
	}
	return -1
}

// heldNote says which plans are held while every Subscription is at its lock: those past the
// locks (OLM offers CSVs past the ceiling, and the approver holds them, as it should), and the
// others, which someone must look at.
func (x *index) heldNote() string {
	var ceiling, other []string
	for i, d := range x.decisions {
		if d.Verdict != Hold {
			continue
		}
		p := &x.plans[i]
		what := "InstallPlan " + p.Name
		if len(d.Outside) > 0 {
			what += " (" + strings.Join(d.Outside, ", ") + ")"
		}
		if x.pastLocks(p) {
			ceiling = append(ceiling, what)
		} else {
			other = append(other, what)
		}
	}
	var out string
	if len(ceiling) > 0 {
		out += "; held past the locks: " + strings.Join(ceiling, ", ")
	}
	if len(other) > 0 {
		out += "; held, and not merely past the locks: " + strings.Join(other, ", ")
	}
	return out
}

// csvWhy says why a CSV is in its phase.
func csvWhy(csv *v1alpha1.ClusterServiceVersion) string {
	switch {
	case csv.Status.Reason != "" && csv.Status.Message != "":
		return string(csv.Status.Reason) + ": " + csv.Status.Message
	case csv.Status.Message != "":
		return csv.Status.Message
	}
	return string(csv.Status.Reason)
}

// phaseOfCSV shows a CSV's phase, none as such.
func phaseOfCSV(csv *v1alpha1.ClusterServiceVersion) string {
	if csv.Status.Phase == "" {
		return "without a phase yet"
	}
	return string(csv.Status.Phase)
}
