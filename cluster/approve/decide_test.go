package approve

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/resolver/contract"
)

func TestDecide(t *testing.T) {
	const ns = "operators"
	full := contractIn(ns, gadget, widget)
	badMap := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: contract.ConfigMapName, Labels: map[string]string{contract.Label: "true"}},
		Data:       map[string]string{contract.Key: "namespace: operators\nsubscriptions: {not: a list}\n"},
	}
	withHeld := widget
	withHeld.Held = "widget.v1.4.0"
	heldMap := contractMap(t, ns, gadget, withHeld)
	if heldMap.Annotations[contract.HeldAnnotation] == "" {
		t.Fatalf("the contract ConfigMap records no held step: %v", heldMap.Annotations)
	}
	for _, tc := range []struct {
		name     string
		plan     []string
		opts     []planOpt
		contract Contract
		verdict  Verdict
		outside  []string
		// reason holds phrases the reason must contain.
		reason []string
	}{{
		name:     "every CSV admitted: the locked CSV and a dependency's",
		plan:     []string{"widget.v1.3.0", "gadget.v2.0.0"},
		contract: full,
		verdict:  Approve,
		reason:   []string{"ConfigMap operators/olm-render-approval admits every CSV"},
	}, {
		name:     "a step below the lock, on a multi-hop path up to it",
		plan:     []string{"widget.v1.1.0"},
		contract: full,
		verdict:  Approve,
	}, {
		name:     "a foreign CSV holds the whole plan",
		plan:     []string{"widget.v1.2.0", "rogue.v1.0.0"},
		contract: full,
		verdict:  Hold,
		outside:  []string{"rogue.v1.0.0"},
		reason:   []string{"installs rogue.v1.0.0, outside the contract of ConfigMap operators/olm-render-approval", "approved whole or not at all", "approve the InstallPlan by hand"},
	}, {
		name:     "past the ceiling: a CSV above the lock",
		plan:     []string{"widget.v1.4.0"},
		contract: full,
		verdict:  Hold,
		outside:  []string{"widget.v1.4.0"},
	}, {
		name:     "the held step the ConfigMap records (olm-render.dev/held) stays held",
		plan:     []string{"widget.v1.4.0"},
		contract: ContractOf(ns, heldMap),
		verdict:  Hold,
		outside:  []string{"widget.v1.4.0"},
	}, {
		name:     "a CSV of a Subscription the contract does not have",
		plan:     []string{"gadget.v2.0.0"},
		contract: contractIn(ns, widget),
		verdict:  Hold,
		outside:  []string{"gadget.v2.0.0"},
	}, {
		name:     "no contract: nothing is approved",
		plan:     []string{"widget.v1.3.0"},
		contract: ContractOf(ns, nil),
		verdict:  Hold,
		reason:   []string{"no contract: namespace operators has no ConfigMap olm-render-approval labelled olm-render.dev/approval-contract=true"},
	}, {
		name:     "a contract that does not parse: held, naming the ConfigMap and the error",
		plan:     []string{"widget.v1.3.0"},
		contract: ContractOf(ns, badMap),
		verdict:  Hold,
		reason:   []string{"contract unreadable: ConfigMap operators/olm-render-approval: contract.yaml: ", "cannot unmarshal"},
	}, {
		name:     "an empty plan",
		plan:     nil,
		contract: full,
		verdict:  Hold,
		reason:   []string{"spec.clusterServiceVersionNames is empty"},
	}, {
		name:     "already approved",
		plan:     []string{"rogue.v1.0.0"},
		opts:     []planOpt{approved("Installing")},
		contract: full,
		verdict:  AlreadyApproved,
	}, {
		name:     "an Automatic plan is OLM's",
		plan:     []string{"rogue.v1.0.0"},
		opts:     []planOpt{automatic},
		contract: full,
		verdict:  Ignore,
		reason:   []string{"approval Automatic"},
	}, {
		name:     "a Manual plan not yet waiting for approval",
		plan:     []string{"widget.v1.3.0"},
		opts:     []planOpt{func(p *planT) { p.Status.Phase = "" }},
		contract: full,
		verdict:  Ignore,
		reason:   []string{"phase (none yet): not waiting for approval"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(waitingPlan(ns, "install-abcde", tc.plan, tc.opts...), tc.contract)
			if d.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s (%s)", d.Verdict, tc.verdict, d.Reason)
			}
			if diff := cmp.Diff(tc.outside, d.Outside); diff != "" {
				t.Errorf("outside (-want +got):\n%s", diff)
			}
			for _, r := range tc.reason {
				if !strings.Contains(d.Reason, r) {
					t.Errorf("reason %q does not contain %q", d.Reason, r)
				}
			}
		})
	}
}

// TestContractOf: a contract naming another namespace than its ConfigMap's is unreadable.
func TestContractOf(t *testing.T) {
	cm := contractMap(t, "team-a", widget)
	cm.Namespace = "team-b"
	c := ContractOf("team-b", cm)
	if !c.Found || c.Contract != nil || c.Err == nil || !strings.Contains(c.Err.Error(), `is the contract of namespace "team-a"`) {
		t.Fatalf("ContractOf = %+v", c)
	}
	if c := ContractOf("team-a", contractMap(t, "team-a", widget)); c.Err != nil || c.Contract == nil {
		t.Fatalf("ContractOf = %+v", c)
	}
}

// TestDecideAllNewestOnly: of the plans waiting in a namespace, only the newest generation is
// decided; the older ones are superseded, whatever they hold.
func TestDecideAllNewestOnly(t *testing.T) {
	const ns = "operators"
	plans := []planT{
		*waitingPlan(ns, "install-old", []string{"widget.v1.1.0"}, generation(1)),
		*waitingPlan(ns, "install-new", []string{"widget.v1.2.0"}, generation(2)),
		*waitingPlan(ns, "install-done", []string{"widget.v1.0.0"}, generation(0), approved("Complete")),
	}
	got := decideAll(plans, contractIn(ns, widget))
	verdicts := []Verdict{got[0].Verdict, got[1].Verdict, got[2].Verdict}
	if want := []Verdict{Ignore, Approve, AlreadyApproved}; !slices.Equal(verdicts, want) {
		t.Fatalf("verdicts %v, want %v", verdicts, want)
	}
	if want := "superseded by InstallPlan install-new (generation 2)"; !strings.Contains(got[0].Reason, want) {
		t.Errorf("reason %q does not contain %q", got[0].Reason, want)
	}
}
