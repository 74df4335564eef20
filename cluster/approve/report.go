package approve

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
)

// Outcome is what became of an InstallPlan.
type Outcome string

const (
	// OutcomeApproved: the approver approved the plan.
	OutcomeApproved Outcome = "Approved"
	// OutcomeHeld: the plan waits for approval and the approver holds it (see the reason).
	OutcomeHeld Outcome = "Held"
	// OutcomeAlreadyApproved: the plan was approved before.
	OutcomeAlreadyApproved Outcome = "AlreadyApproved"
	// OutcomeIgnored: the plan waits for no approval of the approver's (see the reason).
	OutcomeIgnored Outcome = "Ignored"
	// OutcomeFailed: the approver meant to approve the plan and could not (see the reason).
	OutcomeFailed Outcome = "Failed"
)

// outcomeOf is the outcome of a decision carried out.
func outcomeOf(d Decision) Outcome {
	switch d.Verdict {
	case Approve:
		return OutcomeApproved
	case Hold:
		return OutcomeHeld
	case AlreadyApproved:
		return OutcomeAlreadyApproved
	}
	return OutcomeIgnored
}

// PlanResult is what became of one InstallPlan, and why.
type PlanResult struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Outcome   Outcome `json:"outcome"`
	Reason    string  `json:"reason"`
	// CSVs are the plan's spec.clusterServiceVersionNames.
	CSVs []string `json:"csvs,omitempty"`
	// Outside are the CSVs outside the contract, when that is why the plan is held.
	Outside []string `json:"outside,omitempty"`
}

func resultOf(p *v1alpha1.InstallPlan, d Decision, o Outcome) PlanResult {
	return PlanResult{Namespace: p.Namespace, Name: p.Name, Outcome: o, Reason: d.Reason,
		CSVs: p.Spec.ClusterServiceVersionNames, Outside: d.Outside}
}

// Report is what one pass of the approver did: every InstallPlan and the health of every
// namespace with a contract, both sorted by namespace and name.
type Report struct {
	InstallPlans []PlanResult      `json:"installPlans"`
	Namespaces   []NamespaceHealth `json:"namespaces"`
}

// sort orders the report.
func (r *Report) sort() {
	slices.SortFunc(r.InstallPlans, func(a, b PlanResult) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	slices.SortFunc(r.Namespaces, func(a, b NamespaceHealth) int { return cmp.Compare(a.Namespace, b.Namespace) })
}

// Held returns the plans held back (or whose approval failed).
func (r *Report) Held() []PlanResult {
	var out []PlanResult
	for _, p := range r.InstallPlans {
		if p.Outcome == OutcomeHeld || p.Outcome == OutcomeFailed {
			out = append(out, p)
		}
	}
	return out
}

// Unhealthy returns the namespaces that are not Healthy.
func (r *Report) Unhealthy() []NamespaceHealth {
	var out []NamespaceHealth
	for _, n := range r.Namespaces {
		if n.Status != Healthy {
			out = append(out, n)
		}
	}
	return out
}

// Clean reports whether no plan is held and every namespace is Healthy.
func (r *Report) Clean() bool {
	return len(r.Held()) == 0 && len(r.Unhealthy()) == 0
}

// WriteTable writes the report as two tables: the InstallPlans, then the namespaces' health.
func (r *Report) WriteTable(w io.Writer) error {
	plans := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(plans, "NAMESPACE\tINSTALLPLAN\tOUTCOME\tCSVS\tREASON")
	for _, p := range r.InstallPlans {
		fmt.Fprintf(plans, "%s\t%s\t%s\t%s\t%s\n", p.Namespace, p.Name, p.Outcome, orNone(strings.Join(p.CSVs, ",")), p.Reason)
	}
	if err := plans.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	health := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(health, "NAMESPACE\tHEALTH\tMESSAGE")
	for _, n := range r.Namespaces {
		fmt.Fprintf(health, "%s\t%s\t%s\n", n.Namespace, n.Status, n.Message)
	}
	return health.Flush()
}

// orNone shows an empty list as such.
func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
