package approve

import (
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/resolver/contract"
)

func TestHealth(t *testing.T) {
	const ns = "operators"
	const (
		succeeded  = v1alpha1.CSVPhaseSucceeded
		installing = v1alpha1.CSVPhaseInstalling
		failed     = v1alpha1.CSVPhaseFailed
	)
	full := contractIn(ns, gadget, widget)
	// atLocks is the namespace with both Subscriptions at their locked CSVs, which Succeeded.
	atLocks := func() State {
		return State{Namespace: ns, Contract: full,
			Subscriptions: []v1alpha1.Subscription{
				subscription(ns, "widget", "widget.v1.3.0", "widget.v1.3.0", ""),
				subscription(ns, gadget.Name, "gadget.v2.0.0", "gadget.v2.0.0", ""),
			},
			CSVs: []v1alpha1.ClusterServiceVersion{csv(ns, "widget.v1.3.0", succeeded), csv(ns, "gadget.v2.0.0", succeeded)}}
	}
	// with changes the namespace at its locks.
	with := func(change func(*State)) State {
		s := atLocks()
		change(&s)
		return s
	}
	// gadgetAt moves gadget back to installed, wanting current through plan.
	gadgetAt := func(installed, current, plan string) func(*State) {
		return func(s *State) {
			s.Subscriptions[1] = subscription(ns, gadget.Name, installed, current, plan)
			s.CSVs[1] = csv(ns, installed, succeeded)
		}
	}
	for _, tc := range []struct {
		name    string
		state   State
		status  Status
		message []string
	}{{
		name:    "every Subscription at its locked CSV, Succeeded",
		state:   atLocks(),
		status:  Healthy,
		message: []string{"at the locked CSVs: gadget.v2.0.0, widget.v1.3.0"},
	}, {
		name: "a plan held past the ceiling is the ceiling working",
		state: with(func(s *State) {
			s.Subscriptions[0].Status.CurrentCSV = "widget.v1.4.0"
			s.Subscriptions[0].Status.InstallPlanRef = &corev1.ObjectReference{Name: "install-next"}
			s.Plans = []v1alpha1.InstallPlan{*waitingPlan(ns, "install-next", []string{"widget.v1.4.0"})}
		}),
		status:  Healthy,
		message: []string{"held past the locks: InstallPlan install-next (widget.v1.4.0)"},
	}, {
		name:    "the locked CSV is still installing",
		state:   with(func(s *State) { s.CSVs[0].Status.Phase = installing }),
		status:  Progressing,
		message: []string{"Subscription widget: the CSV widget.v1.3.0 is Installing"},
	}, {
		name: "a generated Subscription OLM has not created yet",
		state: with(func(s *State) {
			s.Subscriptions, s.CSVs = s.Subscriptions[:1], s.CSVs[:1]
		}),
		status:  Progressing,
		message: []string{"Subscription gadget-stable-community-olm: waiting for OLM to create it (a dependency)"},
	}, {
		name: "a multi-hop step approved and installing",
		state: with(func(s *State) {
			gadgetAt("gadget.v1.0.0", "gadget.v2.0.0", "install-2")(s)
			s.Plans = []v1alpha1.InstallPlan{*waitingPlan(ns, "install-2", []string{"gadget.v2.0.0"}, approved("Installing"))}
		}),
		status:  Progressing,
		message: []string{"InstallPlan install-2, which would move it toward gadget.v2.0.0, is approved and installing gadget.v2.0.0"},
	}, {
		name: "a step waiting for the approver",
		state: with(func(s *State) {
			gadgetAt("gadget.v1.0.0", "gadget.v2.0.0", "install-2")(s)
			s.Plans = []v1alpha1.InstallPlan{*waitingPlan(ns, "install-2", []string{"gadget.v2.0.0"})}
		}),
		status:  Progressing,
		message: []string{"InstallPlan install-2, which would move it toward gadget.v2.0.0, is being approved"},
	}, {
		name:    "below the lock, no plan yet",
		state:   with(gadgetAt("gadget.v1.0.0", "gadget.v1.0.0", "")),
		status:  Progressing,
		message: []string{"at gadget.v1.0.0, waiting for OLM to offer the next step up to gadget.v2.0.0"},
	}, {
		name: "the locked CSV failed",
		state: with(func(s *State) {
			s.CSVs[0].Status = v1alpha1.ClusterServiceVersionStatus{Phase: failed, Reason: "InstallCheckFailed", Message: "install timeout"}
		}),
		status:  Degraded,
		message: []string{"Subscription widget: the locked CSV widget.v1.3.0 failed: InstallCheckFailed: install timeout"},
	}, {
		name: "resolution failed",
		state: with(func(s *State) {
			s.Subscriptions[0] = subscription(ns, "widget", "", "", "", resolutionFailed("constraints not satisfiable"))
		}),
		status:  Degraded,
		message: []string{"Subscription widget: resolution failed: constraints not satisfiable"},
	}, {
		name: "the plan toward the lock holds a foreign CSV",
		state: with(func(s *State) {
			gadgetAt("gadget.v1.0.0", "gadget.v2.0.0", "install-2")(s)
			s.Plans = []v1alpha1.InstallPlan{*waitingPlan(ns, "install-2", []string{"gadget.v2.0.0", "rogue.v1.0.0"})}
		}),
		status:  Degraded,
		message: []string{"InstallPlan install-2, which would move it toward gadget.v2.0.0, is held: it installs rogue.v1.0.0, outside the contract"},
	}, {
		name: "one plan for the namespace: a step toward one lock held by a CSV past the other",
		state: with(func(s *State) {
			gadgetAt("gadget.v1.0.0", "gadget.v2.0.0", "install-2")(s)
			s.Subscriptions[0].Status.CurrentCSV = "widget.v1.4.0"
			s.Plans = []v1alpha1.InstallPlan{*waitingPlan(ns, "install-2", []string{"gadget.v2.0.0", "widget.v1.4.0"})}
		}),
		status:  Degraded,
		message: []string{"Subscription gadget-stable-community-olm: InstallPlan install-2, which would move it toward gadget.v2.0.0, is held: it installs widget.v1.4.0"},
	}, {
		name:    "a CSV outside the contract installed (approved by hand)",
		state:   with(func(s *State) { s.Subscriptions[0].Status.InstalledCSV = "widget.v1.4.0" }),
		status:  Degraded,
		message: []string{"Subscription widget: installed CSV widget.v1.4.0 is outside the contract (locked to widget.v1.3.0)"},
	}, {
		name: "the plan toward the lock failed",
		state: with(func(s *State) {
			gadgetAt("gadget.v1.0.0", "gadget.v2.0.0", "install-2")(s)
			p := waitingPlan(ns, "install-2", []string{"gadget.v2.0.0"}, approved(v1alpha1.InstallPlanPhaseFailed))
			p.Status.Message = "bundle unpacking failed"
			s.Plans = []v1alpha1.InstallPlan{*p}
		}),
		status:  Degraded,
		message: []string{"InstallPlan install-2, which would move it toward gadget.v2.0.0, failed: bundle unpacking failed"},
	}, {
		name: "a contract that does not parse",
		state: State{Namespace: ns, Contract: ContractOf(ns, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: contract.ConfigMapName}, Data: map[string]string{}})},
		status:  Degraded,
		message: []string{"contract unreadable: ConfigMap operators/olm-render-approval: no contract.yaml key"},
	}, {
		name: "at the locks, a plan past one lock with another operator's CSV: Healthy, saying so",
		state: with(func(s *State) {
			s.Subscriptions[0].Status.CurrentCSV = "widget.v1.4.0"
			s.Subscriptions = append(s.Subscriptions, subscription(ns, "rogue", "", "rogue.v1.0.0", "install-next"))
			s.Plans = []v1alpha1.InstallPlan{*waitingPlan(ns, "install-next", []string{"widget.v1.4.0", "rogue.v1.0.0"})}
		}),
		status:  Healthy,
		message: []string{"at the locked CSVs: gadget.v2.0.0, widget.v1.3.0; held, and not merely past the locks: InstallPlan install-next (rogue.v1.0.0, widget.v1.4.0)"},
	}, {
		name:   "no contract, nothing waiting for the approver: no health",
		state:  State{Namespace: ns, Contract: ContractOf(ns, nil)},
		status: "",
	}, {
		name: "no contract, only Automatic Subscriptions and plans: no health",
		state: State{Namespace: ns, Contract: ContractOf(ns, nil),
			Subscriptions: []v1alpha1.Subscription{subscription(ns, "widget", "", "widget.v1.0.0", "install-1", func(s *v1alpha1.Subscription) {
				s.Spec.InstallPlanApproval = v1alpha1.ApprovalAutomatic
			})},
			Plans: []v1alpha1.InstallPlan{*waitingPlan(ns, "install-1", []string{"widget.v1.0.0"}, automatic)}},
		status: "",
	}, {
		name: "no contract, Manual Subscriptions: Missing",
		state: State{Namespace: ns, Contract: ContractOf(ns, nil),
			Subscriptions: []v1alpha1.Subscription{subscription(ns, "widget", "widget.v1.0.0", "widget.v1.0.0", ""), subscription(ns, "gadget", "", "", "")}},
		status:  Missing,
		message: []string{"no contract: namespace operators has the Manual Subscriptions gadget, widget, but no ConfigMap olm-render-approval labelled olm-render.dev/approval-contract=true, so nothing is approved there"},
	}, {
		name: "no contract, a plan waiting for approval: Missing",
		state: State{Namespace: ns, Contract: ContractOf(ns, nil),
			Subscriptions: []v1alpha1.Subscription{subscription(ns, "widget", "", "widget.v1.0.0", "install-1")},
			Plans:         []v1alpha1.InstallPlan{*waitingPlan(ns, "install-1", []string{"widget.v1.0.0"})}},
		status:  Missing,
		message: []string{"has the Manual Subscription widget and the InstallPlan install-1 waiting for approval, but no ConfigMap"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := Health(tc.state)
			if h.Status != tc.status || h.Namespace != ns {
				t.Fatalf("health %s of %q, want %s: %s", h.Status, h.Namespace, tc.status, h.Message)
			}
			for _, m := range tc.message {
				if !strings.Contains(h.Message, m) {
					t.Errorf("message %q does not contain %q", h.Message, m)
				}
			}
		})
	}
}

// TestCeiling: holding a plan is the ceiling working only when the plan would move nothing but
// Subscriptions of the contract, each at its locked CSV, past their locks.
func TestCeiling(t *testing.T) {
	const ns = "operators"
	full := contractIn(ns, gadget, widget)
	// state is the namespace with widget installed at widgetAt and offered widgetNext, gadget at
	// its lock and offered gadgetNext ("": nothing past it), and more Subscriptions.
	state := func(c Contract, widgetAt, widgetNext, gadgetNext string, extra ...v1alpha1.Subscription) State {
		if gadgetNext == "" {
			gadgetNext = "gadget.v2.0.0"
		}
		return State{Namespace: ns, Contract: c, Subscriptions: append([]v1alpha1.Subscription{
			subscription(ns, "widget", widgetAt, widgetNext, "install-next"),
			subscription(ns, gadget.Name, "gadget.v2.0.0", gadgetNext, "install-next", func(s *v1alpha1.Subscription) { s.Spec.Package = gadget.Package }),
		}, extra...)}
	}
	rogue := subscription(ns, "rogue", "", "rogue.v1.0.0", "install-next")
	// repackaged is the namespace at widget's lock, its Subscription edited by hand to another
	// package, whose CSV OLM offers.
	repackaged := state(full, "widget.v1.3.0", "rogue.v1.0.0", "")
	repackaged.Subscriptions[0].Spec.Package = "rogue"
	for _, tc := range []struct {
		name  string
		state State
		csvs  []string
		want  bool
	}{
		{"the CSV OLM offers past a lock", state(full, "widget.v1.3.0", "widget.v1.4.0", ""), []string{"widget.v1.4.0"}, true},
		{"past both locks", state(full, "widget.v1.3.0", "widget.v1.4.0", "gadget.v3.0.0"), []string{"gadget.v3.0.0", "widget.v1.4.0"}, true},
		{"past a lock, with another operator's CSV", state(full, "widget.v1.3.0", "widget.v1.4.0", "", rogue), []string{"widget.v1.4.0", "rogue.v1.0.0"}, false},
		{"past a lock, with a dependency no Subscription offers", state(full, "widget.v1.3.0", "widget.v1.4.0", ""), []string{"widget.v1.4.0", "gizmo.v1.0.0"}, false},
		{"a CSV outside the contract OLM offers no Subscription", state(full, "widget.v1.3.0", "widget.v1.3.0", ""), []string{"widget.v1.4.0"}, false},
		{"from below the lock, past it", state(full, "widget.v1.0.0", "widget.v1.4.0", ""), []string{"widget.v1.4.0"}, false},
		{"a step toward a lock and one past the other", state(full, "widget.v1.2.0", "widget.v1.3.0", "gadget.v3.0.0"), []string{"widget.v1.3.0", "gadget.v3.0.0"}, false},
		{"a Subscription the contract does not have", state(contractIn(ns, widget), "widget.v1.3.0", "widget.v1.3.0", "gadget.v3.0.0"), []string{"gadget.v3.0.0"}, false},
		{"a Subscription of the contract edited to another package", repackaged, []string{"rogue.v1.0.0"}, false},
		{"no contract", state(ContractOf(ns, nil), "widget.v1.3.0", "widget.v1.4.0", ""), []string{"widget.v1.4.0"}, false},
		{"an empty plan", state(full, "widget.v1.3.0", "widget.v1.4.0", ""), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Ceiling(tc.state, waitingPlan(ns, "install-next", tc.csvs)); got != tc.want {
				t.Errorf("Ceiling = %v, want %v", got, tc.want)
			}
		})
	}
}
