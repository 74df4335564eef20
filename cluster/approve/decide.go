package approve

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olm-render/olm-render/resolver/contract"
)

// Verdict is what the approver does with an InstallPlan.
type Verdict string

const (
	// Approve: the plan waits for approval and the contract admits every CSV it installs.
	Approve Verdict = "Approve"
	// Hold: the plan waits for approval and stays unapproved; the Decision says why.
	Hold Verdict = "Hold"
	// AlreadyApproved: the plan's spec.approved is already true.
	AlreadyApproved Verdict = "AlreadyApproved"
	// Ignore: the plan waits for no approval of ours: it is Automatic, not (yet) in phase
	// RequiresApproval, or superseded by a newer plan of its namespace.
	Ignore Verdict = "Ignore"
)

// Decision is the verdict on one InstallPlan and why.
type Decision struct {
	Verdict Verdict
	// Reason says why, in a sentence naming the contract ConfigMap and what would fix a hold.
	Reason string
	// Outside are the plan's CSVs the contract does not allow, sorted (a Hold for CSVs outside
	// the contract only).
	Outside []string
}

// waiting reports whether a plan waits for a manual approval.
func waiting(p *v1alpha1.InstallPlan) bool {
	return p.Spec.Approval == v1alpha1.ApprovalManual && !p.Spec.Approved &&
		p.Status.Phase == v1alpha1.InstallPlanPhaseRequiresApproval
}

// Decide decides on one InstallPlan by the contract of its namespace: a plan waiting for
// approval is approved only when the contract admits every CSV it installs.
func Decide(plan *v1alpha1.InstallPlan, c Contract) Decision {
	switch {
	case plan.Spec.Approval != v1alpha1.ApprovalManual:
		return Decision{Verdict: Ignore, Reason: fmt.Sprintf("approval %s: OLM approves it itself", approvalOf(plan))}
	case plan.Spec.Approved:
		return Decision{Verdict: AlreadyApproved, Reason: "spec.approved is already true"}
	case plan.Status.Phase != v1alpha1.InstallPlanPhaseRequiresApproval:
		return Decision{Verdict: Ignore, Reason: fmt.Sprintf("phase %s: not waiting for approval", phaseOf(plan))}
	case !c.Found:
		return Decision{Verdict: Hold, Reason: fmt.Sprintf("no contract: namespace %s has no ConfigMap %s labelled %s=true, so nothing is approved there; apply the contract ConfigMap of the render, or approve the InstallPlan by hand",
			c.Namespace, contract.ConfigMapName, contract.Label)}
	case c.Err != nil:
		return Decision{Verdict: Hold, Reason: fmt.Sprintf("contract unreadable: %v; apply the contract ConfigMap of the render again", c.Err)}
	case len(plan.Spec.ClusterServiceVersionNames) == 0:
		return Decision{Verdict: Hold, Reason: fmt.Sprintf("spec.clusterServiceVersionNames is empty: nothing to check against the contract of ConfigMap %s; approve the InstallPlan by hand if it is expected", c.ConfigMapRef())}
	}
	ok, outside := c.Contract.Admits(plan.Spec.ClusterServiceVersionNames)
	if ok {
		return Decision{Verdict: Approve, Reason: fmt.Sprintf("the contract of ConfigMap %s admits every CSV", c.ConfigMapRef())}
	}
	return Decision{Verdict: Hold, Outside: outside, Reason: fmt.Sprintf("installs %s, outside the contract of ConfigMap %s (an InstallPlan is approved whole or not at all); lock these versions in Git and apply the new contract, or approve the InstallPlan by hand",
		strings.Join(outside, ", "), c.ConfigMapRef())}
}

// decideAll decides on the InstallPlans of one namespace, in their order. Of the plans waiting
// for approval, only the newest generation is decided: OLM resolves a namespace as a whole and
// waits on its newest plan, an older one only lingers until OLM collects it.
func decideAll(plans []v1alpha1.InstallPlan, c Contract) []Decision {
	newest := -1
	for i := range plans {
		if waiting(&plans[i]) && (newest < 0 || newer(&plans[i], &plans[newest])) {
			newest = i
		}
	}
	out := make([]Decision, len(plans))
	for i := range plans {
		if waiting(&plans[i]) && i != newest {
			n := &plans[newest]
			out[i] = Decision{Verdict: Ignore, Reason: fmt.Sprintf("superseded by InstallPlan %s (generation %d): OLM waits on the newest plan of a namespace", n.Name, n.Spec.Generation)}
			continue
		}
		out[i] = Decide(&plans[i], c)
	}
	return out
}

// newer reports whether plan a is newer than plan b: a higher generation, then a later
// creation, then a greater name.
func newer(a, b *v1alpha1.InstallPlan) bool {
	if c := cmp.Compare(a.Spec.Generation, b.Spec.Generation); c != 0 {
		return c > 0
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return b.CreationTimestamp.Before(&a.CreationTimestamp)
	}
	return a.Name > b.Name
}

// approvalOf shows a plan's approval, "" as such.
func approvalOf(p *v1alpha1.InstallPlan) string {
	if p.Spec.Approval == "" {
		return `""`
	}
	return string(p.Spec.Approval)
}

// phaseOf shows a plan's phase, none as such.
func phaseOf(p *v1alpha1.InstallPlan) string {
	if p.Status.Phase == "" {
		return "(none yet)"
	}
	return string(p.Status.Phase)
}

// sortedPlans sorts InstallPlans by name.
func sortedPlans(plans []v1alpha1.InstallPlan) {
	slices.SortFunc(plans, func(a, b v1alpha1.InstallPlan) int { return cmp.Compare(a.Name, b.Name) })
}
