package e2e

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/olm-render/olm-render/resolver/contract"
)

// The locked CSV of the Subscriptions below, and the CSVs around it.
const (
	lockedCSV = "widget-operator.v0.2.0"
	belowCSV  = "widget-operator.v0.1.0"
	pastCSV   = "widget-operator.v0.3.0"
	nextCSV   = "widget-operator.v0.4.0"
)

// healthCase is one object at one stage, with what Argo CD and Flux make of it.
type healthCase struct {
	name        string
	obj         map[string]any
	argoStatus  string
	argoMessage string
	flux        string
}

// TestHealthSubscription runs the Argo CD Lua health check and the Flux CEL health check
// expressions (--olm=running) on a Subscription at each stage OLM takes it through: applied
// with no status, resolved, its InstallPlan waiting for approval and installing, at its locked
// CSV, below and past it, failing; and on Subscriptions olm-render did not pin.
func TestHealthSubscription(t *testing.T) {
	pending := condition("InstallPlanPending", "True", "RequiresApproval", "")
	catalogsHealthy := condition("CatalogSourcesUnhealthy", "False", "AllCatalogSourcesHealthy", "all available catalogsources are healthy")
	runHealthCases(t, "subscription.lua", fluxExprs(t, targetRunning, "operators.coreos.com/v1alpha1", "Subscription"), []healthCase{{
		// Seconds after the apply, before the catalog-operator syncs it. Flux cannot evaluate
		// the expressions (Unknown) and keeps waiting.
		name:        "applied, no status",
		obj:         pinnedSubscription(),
		argoStatus:  "Progressing",
		argoMessage: "no status yet: waiting for OLM's catalog-operator to resolve it (locked to widget-operator.v0.2.0)",
		flux:        fluxError,
	}, {
		name:        "resolving",
		obj:         subscriptionStatus(pinnedSubscription(), "", "", catalogsHealthy),
		argoStatus:  "Progressing",
		argoMessage: "no installedCSV yet (locked to widget-operator.v0.2.0): waiting for OLM to resolve it",
		flux:        fluxInProgress,
	}, {
		name:        "unpacking the bundle",
		obj:         subscriptionStatus(pinnedSubscription(), "", lockedCSV, catalogsHealthy, condition("BundleUnpacking", "True", "UnpackingInProgress", "")),
		argoStatus:  "Progressing",
		argoMessage: "no installedCSV yet (locked to widget-operator.v0.2.0): unpacking the bundle of widget-operator.v0.2.0",
		flux:        fluxInProgress,
	}, {
		name:        "first InstallPlan waiting for approval",
		obj:         withPlan(subscriptionStatus(pinnedSubscription(), "", lockedCSV, catalogsHealthy, pending)),
		argoStatus:  "Progressing",
		argoMessage: "no installedCSV yet (locked to widget-operator.v0.2.0): InstallPlan install-4xk2p: waits for approval by olm-render approve",
		flux:        fluxInProgress,
	}, {
		name:        "first InstallPlan waiting for approval, not referenced yet",
		obj:         subscriptionStatus(pinnedSubscription(), "", lockedCSV, catalogsHealthy, pending),
		argoStatus:  "Progressing",
		argoMessage: "no installedCSV yet (locked to widget-operator.v0.2.0): an InstallPlan: waits for approval by olm-render approve",
		flux:        fluxInProgress,
	}, {
		name:        "first InstallPlan installing",
		obj:         withPlan(subscriptionStatus(pinnedSubscription(), "", lockedCSV, catalogsHealthy, condition("InstallPlanPending", "True", "Installing", ""))),
		argoStatus:  "Progressing",
		argoMessage: "no installedCSV yet (locked to widget-operator.v0.2.0): InstallPlan install-4xk2p: Installing",
		flux:        fluxInProgress,
	}, {
		name:        "at the locked CSV",
		obj:         subscriptionStatus(pinnedSubscription(), lockedCSV, lockedCSV, catalogsHealthy),
		argoStatus:  "Healthy",
		argoMessage: "at the locked CSV widget-operator.v0.2.0",
		flux:        fluxCurrent,
	}, {
		// The pinned catalog holds a newer CSV: OLM offers it, the approver holds it.
		name:        "at the locked CSV, an upgrade past it waiting",
		obj:         withPlan(subscriptionStatus(pinnedSubscription(), lockedCSV, pastCSV, catalogsHealthy, pending)),
		argoStatus:  "Healthy",
		argoMessage: "at the locked CSV widget-operator.v0.2.0; OLM offers widget-operator.v0.3.0, past the lock, which olm-render approve holds",
		flux:        fluxCurrent,
	}, {
		// The lock moved up: the next InstallPlan leads to it.
		name:        "below the locked CSV, its InstallPlan waiting for approval",
		obj:         withPlan(subscriptionStatus(pinnedSubscription(), belowCSV, lockedCSV, catalogsHealthy, pending)),
		argoStatus:  "Progressing",
		argoMessage: "installed widget-operator.v0.1.0, on the way to the locked widget-operator.v0.2.0: InstallPlan install-4xk2p: waits for approval by olm-render approve",
		flux:        fluxInProgress,
	}, {
		// The CatalogSource's new index is still being pulled: OLM offers nothing yet.
		name:        "below the locked CSV, no upgrade offered yet",
		obj:         subscriptionStatus(pinnedSubscription(), belowCSV, belowCSV, catalogsHealthy),
		argoStatus:  "Progressing",
		argoMessage: "installed widget-operator.v0.1.0, on the way to the locked widget-operator.v0.2.0: waiting for OLM to resolve it",
		flux:        fluxInProgress,
	}, {
		name:        "past the locked CSV",
		obj:         subscriptionStatus(pinnedSubscription(), pastCSV, pastCSV, catalogsHealthy),
		argoStatus:  "Degraded",
		argoMessage: "installed widget-operator.v0.3.0 beyond the locked widget-operator.v0.2.0: an InstallPlan was approved outside the contract",
		flux:        fluxFailed,
	}, {
		name:        "past the locked CSV, another upgrade waiting",
		obj:         withPlan(subscriptionStatus(pinnedSubscription(), pastCSV, nextCSV, catalogsHealthy, pending)),
		argoStatus:  "Degraded",
		argoMessage: "installed widget-operator.v0.3.0 beyond the locked widget-operator.v0.2.0: an InstallPlan was approved outside the contract",
		flux:        fluxFailed,
	}, {
		// Versions compare as numbers: 0.10.0 is past 0.9.0, though "1" sorts before "9".
		name:        "past the locked CSV by number, not by text",
		obj:         withPlan(subscriptionStatus(pinnedSubscription("widget-operator.v0.9.0"), "widget-operator.v0.10.0", "widget-operator.v0.11.0", pending)),
		argoStatus:  "Degraded",
		argoMessage: "installed widget-operator.v0.10.0 beyond the locked widget-operator.v0.9.0: an InstallPlan was approved outside the contract",
		flux:        fluxFailed,
	}, {
		name:        "release installed, its prerelease locked",
		obj:         withPlan(subscriptionStatus(pinnedSubscription("widget-operator.v1.0.0-rc.1"), "widget-operator.v1.0.0", "widget-operator.v1.0.1", pending)),
		argoStatus:  "Degraded",
		argoMessage: "installed widget-operator.v1.0.0 beyond the locked widget-operator.v1.0.0-rc.1: an InstallPlan was approved outside the contract",
		flux:        fluxFailed,
	}, {
		name:        "prerelease installed, its release locked",
		obj:         withPlan(subscriptionStatus(pinnedSubscription("widget-operator.v1.0.0"), "widget-operator.v1.0.0-rc.1", "widget-operator.v1.0.0", pending)),
		argoStatus:  "Progressing",
		argoMessage: "installed widget-operator.v1.0.0-rc.1, on the way to the locked widget-operator.v1.0.0: InstallPlan install-4xk2p: waits for approval by olm-render approve",
		flux:        fluxInProgress,
	}, {
		// Names that carry no version in the <prefix>.v<semver> form: with OLM offering no
		// upgrade from the installed CSV, it cannot be below the lock.
		name:        "another CSV than the locked one, names without versions, no upgrade offered",
		obj:         subscriptionStatus(pinnedSubscription("gadget-operator.stable"), "gadget-operator.next", "gadget-operator.next", catalogsHealthy),
		argoStatus:  "Degraded",
		argoMessage: "installed gadget-operator.next, not the locked gadget-operator.stable, and OLM offers no upgrade from it",
		flux:        fluxFailed,
	}, {
		name:        "another CSV than the locked one, names without versions, an upgrade offered",
		obj:         withPlan(subscriptionStatus(pinnedSubscription("gadget-operator.stable"), "gadget-operator.old", "gadget-operator.stable", pending)),
		argoStatus:  "Progressing",
		argoMessage: "installed gadget-operator.old, on the way to the locked gadget-operator.stable: InstallPlan install-4xk2p: waits for approval by olm-render approve",
		flux:        fluxInProgress,
	}, {
		name:        "another package's CSV installed",
		obj:         subscriptionStatus(pinnedSubscription(), "gadget-operator.v9.0.0", "gadget-operator.v9.0.0"),
		argoStatus:  "Degraded",
		argoMessage: "installed gadget-operator.v9.0.0, not the locked widget-operator.v0.2.0, and OLM offers no upgrade from it",
		flux:        fluxFailed,
	}, {
		name: "resolution failed",
		obj: subscriptionStatus(pinnedSubscription(), "", "", catalogsHealthy,
			condition("ResolutionFailed", "True", "ConstraintsNotSatisfiable", "no operators found in channel stable of package widget-operator")),
		argoStatus:  "Degraded",
		argoMessage: "ResolutionFailed: ConstraintsNotSatisfiable: no operators found in channel stable of package widget-operator",
		flux:        fluxFailed,
	}, {
		name: "InstallPlan failed",
		obj: withPlan(subscriptionStatus(pinnedSubscription(), belowCSV, lockedCSV, catalogsHealthy,
			condition("InstallPlanFailed", "True", "InstallComponentFailed", "install timeout"))),
		argoStatus:  "Degraded",
		argoMessage: "InstallPlanFailed: InstallComponentFailed: install timeout",
		flux:        fluxFailed,
	}, {
		name: "at the locked CSV, catalog unhealthy",
		obj: subscriptionStatus(pinnedSubscription(), lockedCSV, lockedCSV,
			condition("CatalogSourcesUnhealthy", "True", "CatalogSourcesUpdated", "targeted catalogsource openshift-marketplace/community-operators-pinned unhealthy")),
		argoStatus:  "Degraded",
		argoMessage: "CatalogSourcesUnhealthy: CatalogSourcesUpdated: targeted catalogsource openshift-marketplace/community-operators-pinned unhealthy",
		flux:        fluxFailed,
	}, {
		name: "bundle unpacking failed",
		obj: subscriptionStatus(pinnedSubscription(), "", lockedCSV, catalogsHealthy,
			condition("BundleUnpackFailed", "True", "BundleUnpackFailed", "bundle unpacking failed: DeadlineExceeded")),
		argoStatus:  "Degraded",
		argoMessage: "BundleUnpackFailed: BundleUnpackFailed: bundle unpacking failed: DeadlineExceeded",
		flux:        fluxFailed,
	}, {
		// Not olm-render's: Argo CD judges it as its built-in check does; Flux's --olm=running
		// Kustomization applies none.
		name:        "Automatic, healthy",
		obj:         subscriptionStatus(unpinned(pinnedSubscription(), "Automatic"), lockedCSV, lockedCSV, catalogsHealthy),
		argoStatus:  "Healthy",
		argoMessage: "1: CatalogSourcesUnhealthy | False\n",
		flux:        fluxCurrent,
	}, {
		name:        "Automatic, no status",
		obj:         unpinned(pinnedSubscription(), "Automatic"),
		argoStatus:  "Progressing",
		argoMessage: "An install plan for a subscription is pending installation",
		flux:        fluxCurrent,
	}, {
		name:        "Manual without startingCSV, upgrade waiting",
		obj:         withPlan(subscriptionStatus(unpinned(pinnedSubscription(), "Manual"), lockedCSV, pastCSV, catalogsHealthy, pending)),
		argoStatus:  "Healthy",
		argoMessage: "An install plan for a subscription is pending installation but install plan approval is set to manual so considering this as healthy: 1: CatalogSourcesUnhealthy | False\n2: InstallPlanPending | True\n",
		flux:        fluxCurrent,
	}, {
		name: "Automatic, InstallPlan failed",
		obj: subscriptionStatus(unpinned(pinnedSubscription(), "Automatic"), lockedCSV, pastCSV, catalogsHealthy,
			condition("InstallPlanFailed", "True", "InstallComponentFailed", "install timeout")),
		argoStatus:  "Degraded",
		argoMessage: "1: CatalogSourcesUnhealthy | False\n2: InstallPlanFailed | True\n",
		flux:        fluxCurrent,
	}})
}

// longName is the longest prefix a CSV name with a version can have (object names have at most
// 253 characters), of the letter that sorts last: the Argo CD script takes it apart within Argo
// CD's one-second budget.
var longName = strings.Repeat("z", 253-len(".v1.0.1"))

// TestHealthSubscriptionVersionOrder checks that the Argo CD script and the Flux expressions
// order CSV names alike: past the lock (Degraded, failed, with or without an upgrade offered),
// below it (Progressing, inProgress) or not said by the names (Degraded when OLM offers no
// upgrade from the installed CSV, Progressing when it does).
func TestHealthSubscriptionVersionOrder(t *testing.T) {
	const (
		past    = "past"
		below   = "below"
		unknown = "unknown"
	)
	script := argoScript(t, "subscription.lua")
	exprs := fluxExprs(t, targetRunning, "operators.coreos.com/v1alpha1", "Subscription")
	for _, tc := range []struct{ installed, locked, want string }{
		{"etcdoperator.v0.9.4", "etcdoperator.v0.9.2", past},
		{"etcdoperator.v0.9.2", "etcdoperator.v0.9.4", below},
		{"a.v2.0.0", "a.v1.99.99", past},
		{"a.v1.2.10", "a.v1.2.9", past},
		{"a.v01.2.3", "a.v1.2.4", below},
		{"a.v1.0.0", "a.v1.0.0-0", past},
		{"a.v1.0.0-0", "a.v1.0.0", below},
		{"a.v1.0.0-1", "a.v1.0.0-2", unknown},
		{"amq-streams.v2.5.0-0", "amq-streams.v2.4.1", past},
		{"x.y.v1.0.0", "x.y.v0.9.0", past},
		{"b.v1.0.0", "a.v0.9.0", unknown},
		{"foo.vault.v1.0.0", "foo.vault.v0.1.0", unknown},
		{"a.1.0.0", "a.0.9.0", unknown},
		{"a.v1.0", "a.v0.9", unknown},
		{"a.v1.0.0.0", "a.v0.9.0", unknown},
		{"a.v1.0.0-", "a.v0.9.0", unknown},
		{".v1.0.0", ".v0.9.0", unknown},
		{"A.v1.0.0", "A.v0.9.0", unknown},
		{"a.v1234567890123456.0.0", "a.v1.0.0", unknown},
		{"a.v123456789012345.0.0", "a.v1.0.0", past},
		{longName + ".v1.0.1", longName + ".v1.0.0", past},
	} {
		t.Run(tc.installed+" "+tc.locked, func(t *testing.T) {
			stuck := subscriptionStatus(pinnedSubscription(tc.locked), tc.installed, tc.installed)
			moving := subscriptionStatus(pinnedSubscription(tc.locked), tc.installed, "z.next")
			want := map[string][2]string{past: {"Degraded", "Degraded"}, below: {"Progressing", "Progressing"}, unknown: {"Degraded", "Progressing"}}[tc.want]
			for i, sub := range []map[string]any{stuck, moving} {
				status, message := argoHealth(t, script, sub)
				if status != want[i] {
					t.Errorf("Argo CD health with currentCSV %s = %s %q, want %s", sub["status"].(map[string]any)["currentCSV"], status, message, want[i])
				}
				if got, wantFlux := fluxOutcome(t, exprs, sub), map[string]string{"Degraded": fluxFailed, "Progressing": fluxInProgress}[want[i]]; got != wantFlux {
					t.Errorf("Flux outcome with currentCSV %s = %s, want %s", sub["status"].(map[string]any)["currentCSV"], got, wantFlux)
				}
			}
		})
	}
}

// TestHealthApprovalContract runs the Argo CD Lua health check and the Flux CEL health check
// expressions (--olm=running) on the approval contract ConfigMap as olm-render approve leaves
// it, and on ConfigMaps that are no contract.
func TestHealthApprovalContract(t *testing.T) {
	runHealthCases(t, "configmap.lua", fluxExprs(t, targetRunning, "v1", "ConfigMap"), []healthCase{{
		name:        "ordinary ConfigMap",
		obj:         configMap(nil, nil),
		argoStatus:  "Healthy",
		argoMessage: "",
		flux:        fluxCurrent,
	}, {
		name:        "ConfigMap with a health annotation but no contract label",
		obj:         configMap(map[string]any{"app": "x"}, map[string]any{contract.HealthAnnotation: "Degraded"}),
		argoStatus:  "Healthy",
		argoMessage: "",
		flux:        fluxCurrent,
	}, {
		name:        "contract label not true",
		obj:         configMap(map[string]any{contract.Label: "false"}, nil),
		argoStatus:  "Healthy",
		argoMessage: "",
		flux:        fluxCurrent,
	}, {
		name:        "contract as rendered, before the approver reports",
		obj:         contractConfigMap(t, nil),
		argoStatus:  "Progressing",
		argoMessage: "waiting for olm-render approve to report",
		flux:        fluxInProgress,
	}, {
		name: "contract, Progressing",
		obj: contractConfigMap(t, map[string]any{
			contract.HealthAnnotation:        "Progressing",
			contract.HealthMessageAnnotation: "Subscription widget-operator: InstallPlan install-4xk2p, which would move it toward widget-operator.v0.2.0, is being approved",
		}),
		argoStatus:  "Progressing",
		argoMessage: "Subscription widget-operator: InstallPlan install-4xk2p, which would move it toward widget-operator.v0.2.0, is being approved",
		flux:        fluxInProgress,
	}, {
		name: "contract, Healthy",
		obj: contractConfigMap(t, map[string]any{
			contract.HealthAnnotation:        "Healthy",
			contract.HealthMessageAnnotation: "at the locked CSVs: gadget-operator.v1.0.0, widget-operator.v0.2.0",
		}),
		argoStatus:  "Healthy",
		argoMessage: "at the locked CSVs: gadget-operator.v1.0.0, widget-operator.v0.2.0",
		flux:        fluxCurrent,
	}, {
		name: "contract, Degraded",
		obj: contractConfigMap(t, map[string]any{
			contract.HealthAnnotation:        "Degraded",
			contract.HealthMessageAnnotation: "Subscription widget-operator: installed CSV widget-operator.v0.3.0 is outside the contract (locked to widget-operator.v0.2.0)",
		}),
		argoStatus:  "Degraded",
		argoMessage: "Subscription widget-operator: installed CSV widget-operator.v0.3.0 is outside the contract (locked to widget-operator.v0.2.0)",
		flux:        fluxFailed,
	}, {
		name:        "contract, health without a message",
		obj:         contractConfigMap(t, map[string]any{contract.HealthAnnotation: "Healthy"}),
		argoStatus:  "Healthy",
		argoMessage: "",
		flux:        fluxCurrent,
	}, {
		name:        "contract, a message without health",
		obj:         contractConfigMap(t, map[string]any{contract.HealthMessageAnnotation: "stale"}),
		argoStatus:  "Progressing",
		argoMessage: "waiting for olm-render approve to report",
		flux:        fluxInProgress,
	}, {
		name: "contract, a health value Argo CD has but the approver never writes",
		obj: contractConfigMap(t, map[string]any{
			contract.HealthAnnotation:        "Suspended",
			contract.HealthMessageAnnotation: "paused",
		}),
		argoStatus:  "Progressing",
		argoMessage: "unknown health Suspended from olm-render approve: paused",
		flux:        fluxInProgress,
	}})
}

// runHealthCases runs an Argo CD health script and Flux's expressions on each case.
func runHealthCases(t *testing.T, script string, exprs map[string]string, cases []healthCase) {
	t.Helper()
	lua := argoScript(t, script)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, message := argoHealth(t, lua, tc.obj)
			if status != tc.argoStatus || message != tc.argoMessage {
				t.Errorf("Argo CD health = %s %q, want %s %q", status, message, tc.argoStatus, tc.argoMessage)
			}
			if got := fluxOutcome(t, exprs, tc.obj); got != tc.flux {
				t.Errorf("Flux outcome = %s, want %s", got, tc.flux)
			}
		})
	}
}

// pinnedSubscription returns a Subscription as olm-render render --olm=running writes it:
// Manual, starting at its locked CSV (lockedCSV, or the one given).
func pinnedSubscription(locked ...string) map[string]any {
	startingCSV := lockedCSV
	if len(locked) > 0 {
		startingCSV = locked[0]
	}
	return map[string]any{
		"apiVersion": "operators.coreos.com/v1alpha1",
		"kind":       "Subscription",
		"metadata": map[string]any{
			"name":       "widget-operator",
			"namespace":  "operators",
			"generation": int64(1),
		},
		"spec": map[string]any{
			"channel":             "stable",
			"installPlanApproval": "Manual",
			"name":                "widget-operator",
			"source":              "community-operators-pinned",
			"sourceNamespace":     "openshift-marketplace",
			"startingCSV":         startingCSV,
		},
	}
}

// unpinned returns a Subscription with the approval given and no startingCSV: one olm-render
// did not pin.
func unpinned(sub map[string]any, approval string) map[string]any {
	spec := sub["spec"].(map[string]any)
	spec["installPlanApproval"] = approval
	delete(spec, "startingCSV")
	return sub
}

// subscriptionStatus sets the status the catalog-operator writes: the installed and current
// CSVs (empty ones left out, as OLM's omitempty fields are) and the conditions. The state
// follows from them as OLM derives it.
func subscriptionStatus(sub map[string]any, installed, current string, conditions ...map[string]any) map[string]any {
	status := map[string]any{"lastUpdated": "2026-01-02T03:04:05Z"}
	if installed != "" {
		status["installedCSV"] = installed
	}
	if current != "" {
		status["currentCSV"] = current
	}
	switch {
	case current != "" && current != installed:
		status["state"] = "UpgradePending"
	case current != "":
		status["state"] = "AtLatestKnown"
	}
	if len(conditions) > 0 {
		list := make([]any, len(conditions))
		for i, c := range conditions {
			list[i] = c
		}
		status["conditions"] = list
	}
	return withField(sub, "status", status)
}

// withPlan sets the InstallPlan the Subscription's status references.
func withPlan(sub map[string]any) map[string]any {
	status := sub["status"].(map[string]any)
	status["installPlanGeneration"] = int64(1)
	status["installPlanRef"] = map[string]any{
		"apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan",
		"name": "install-4xk2p", "namespace": "operators",
	}
	status["installplan"] = map[string]any{
		"apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan",
		"name": "install-4xk2p", "uuid": "86a26d57-b292-408b-8cc9-b829d5ecdb15",
	}
	return sub
}

// condition returns a Subscription condition, with an empty reason or message left out.
func condition(typ, status, reason, message string) map[string]any {
	c := map[string]any{"type": typ, "status": status, "lastTransitionTime": "2026-01-02T03:04:05Z"}
	if reason != "" {
		c["reason"] = reason
	}
	if message != "" {
		c["message"] = message
	}
	return c
}

// configMap returns a ConfigMap with the labels and annotations given (nil: none).
func configMap(labels, annotations map[string]any) map[string]any {
	metadata := map[string]any{"name": "settings", "namespace": "operators"}
	if labels != nil {
		metadata["labels"] = labels
	}
	if annotations != nil {
		metadata["annotations"] = annotations
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": map[string]any{"key": "value"}}
}

// contractConfigMap returns the approval contract ConfigMap of namespace operators as olm-render
// renders it (resolver/contract, so the health checks read the label and annotations the render
// and the approver write), with the annotations olm-render approve added (nil: none).
func contractConfigMap(t *testing.T, health map[string]any) map[string]any {
	t.Helper()
	cm, err := contract.ConfigMap(contract.Namespace{Namespace: "operators", Subscriptions: []contract.Subscription{{
		Name: "widget-operator", Package: "widget-operator", Channel: "stable", Locked: lockedCSV, Steps: []string{belowCSV},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
	if err != nil {
		t.Fatal(err)
	}
	metadata := obj["metadata"].(map[string]any)
	annotations, _ := metadata["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	for k, v := range health {
		annotations[k] = v
	}
	metadata["annotations"] = annotations
	return jsonObject(t, obj)
}
