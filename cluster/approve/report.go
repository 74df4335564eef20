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
	// OutcomeWouldApprove: a dry run, which approves nothing, would have approved the plan.
	OutcomeWouldApprove Outcome = "WouldApprove"
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
	// Ceiling says that a held plan is the ceiling working: it would only move Subscriptions of
	// the contract past their locks (see Ceiling). Such a hold is expected and gates nothing.
	Ceiling bool `json:"ceiling,omitempty"`
}

func resultOf(p *v1alpha1.InstallPlan, d Decision, o Outcome) PlanResult {
	return PlanResult{Namespace: p.Namespace, Name: p.Name, Outcome: o, Reason: d.Reason,
		CSVs: p.Spec.ClusterServiceVersionNames, Outside: d.Outside}
}

// Report is what one pass of the approver did: every InstallPlan and the health of every
// namespace with a contract, both sorted by namespace and name.
type Report struct {
	// DryRun says that nothing was written: no plan approved, no Event posted, no health
	// written (Options.DryRun).
	DryRun       bool              `json:"dryRun,omitempty"`
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

// Held returns the plans held back (or whose approval failed), the ceiling's included.
func (r *Report) Held() []PlanResult {
	var out []PlanResult
	for _, p := range r.InstallPlans {
		if p.Outcome == OutcomeHeld || p.Outcome == OutcomeFailed {
			out = append(out, p)
		}
	}
	return out
}

// Blocking returns the held plans that want someone's attention: held (or failed) for another
// reason than the ceiling, such as a CSV of another operator, a missing contract, an approval
// that failed.
func (r *Report) Blocking() []PlanResult {
	var out []PlanResult
	for _, p := range r.Held() {
		if !p.Ceiling {
			out = append(out, p)
		}
	}
	return out
}

// Unhealthy returns the namespaces that are not Healthy: Progressing, Degraded, or Missing
// their contract.
func (r *Report) Unhealthy() []NamespaceHealth {
	var out []NamespaceHealth
	for _, n := range r.Namespaces {
		if n.Status != Healthy {
			out = append(out, n)
		}
	}
	return out
}

// Gates reports whether the report should fail a gate (approve --once's exit status 2, an Argo
// CD PostSync hook, CI): a plan is held for another reason than the ceiling, or a namespace is
// not Healthy. A namespace at its locks whose only held plans go past them passes.
func (r *Report) Gates() bool {
	return len(r.Blocking()) > 0 || len(r.Unhealthy()) > 0
}

// Summary says in a line what gates and what is held past the locks, as "1 InstallPlan held,
// 2 namespaces not Healthy; 1 InstallPlan held past the locks (the ceiling)".
func (r *Report) Summary() string {
	out := count(len(r.Blocking()), "InstallPlan") + " held, " + count(len(r.Unhealthy()), "namespace") + " not Healthy"
	if ceiling := len(r.Held()) - len(r.Blocking()); ceiling > 0 {
		out += "; " + count(ceiling, "InstallPlan") + " held past the locks (the ceiling)"
	}
	if r.DryRun {
		out += " (dry run: nothing written)"
	}
	return out
}

// count says how many of a thing there are: "1 namespace", "2 namespaces".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// dryRunNote heads the table of a dry run.
const dryRunNote = "Dry run: nothing approved, no Event posted, no health written."

// WriteTable writes the report as two tables: the InstallPlans, then the namespaces' health;
// a dry run's says so first.
func (r *Report) WriteTable(w io.Writer) error {
	if r.DryRun {
		fmt.Fprintf(w, "%s\n\n", dryRunNote)
	}
	plans := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(plans, "NAMESPACE\tINSTALLPLAN\tOUTCOME\tCSVS\tREASON")
	for _, p := range r.InstallPlans {
		fmt.Fprintf(plans, "%s\t%s\t%s\t%s\t%s\n", p.Namespace, p.Name, outcomeCell(p), orNone(strings.Join(p.CSVs, ",")), p.Reason)
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

// outcomeCell shows a plan's outcome in the table, saying when a hold is the ceiling.
func outcomeCell(p PlanResult) string {
	if p.Ceiling {
		return string(p.Outcome) + " (ceiling)"
	}
	return string(p.Outcome)
}

// orNone shows an empty list as such.
func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
