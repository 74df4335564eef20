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
)

// NamespaceHealth is the health of one namespace's contract.
type NamespaceHealth struct {
	Namespace string `json:"namespace"`
	Status    Status `json:"status"`
	Message   string `json:"message"`
}

// Health computes the health of a namespace's contract from the cluster (see the package
// documentation). A namespace without a contract has no health: its Status is empty.
func Health(s State) NamespaceHealth {
	h := NamespaceHealth{Namespace: s.Namespace}
	switch {
	case !s.Contract.Found:
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
		h.Status, h.Message = Healthy, "at the locked CSVs: "+strings.Join(healthy, ", ")+x.ceilingNote()
	}
	return h
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

// ceilingNote says which plans are held while every Subscription is at its lock: OLM offers
// CSVs past the ceiling, and the approver holds them, as it should.
func (x *index) ceilingNote() string {
	var held []string
	for i, d := range x.decisions {
		switch {
		case d.Verdict == Hold && len(d.Outside) > 0:
			held = append(held, fmt.Sprintf("InstallPlan %s (%s)", x.plans[i].Name, strings.Join(d.Outside, ", ")))
		case d.Verdict == Hold:
			held = append(held, "InstallPlan "+x.plans[i].Name)
		}
	}
	if len(held) == 0 {
		return ""
	}
	return "; held past the locks: " + strings.Join(held, ", ")
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
