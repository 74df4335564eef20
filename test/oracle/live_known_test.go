package oracle

import (
	"bytes"
	"context"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/olm-render/olm-render/test/oracle/live"
)

// liveKnownDifferences are the difference classes that only the live cluster shows, each with
// why and the code that decides it (OLM's, under pkg/controller/, or the API server's). The
// classes both yardsticks share are knownDifferences.
var liveKnownDifferences = map[differenceClass]liveKnown{
	{Kind: "ClusterServiceVersion", Path: outsidePath, Side: sideOLM}: {knownDifference{
		"a render copies a CSV only into the namespaces the inputs declare; OLM copies a global operator's CSV into every namespace of the cluster, the cluster's own (default, kube-system, kube-public, kube-node-lease) included (docs/offline.md)",
		"operators/olm/operatorgroup.go (ensureCSVsInNamespaces)"}, false},
	{Kind: "Namespace", Path: `metadata.labels["olm.operatorgroup.uid/<uid>"]`, Side: sideOLM}: {knownDifference{
		"the olm.operatorgroup.uid/<uid> label's key is the OperatorGroup's UID, assigned by the API server: olm-render omits it (docs/offline.md)",
		"operators/olm/operator.go (syncNamespace)"}, false},

	// Timing: what OLM's controllers do here depends on what their informers' caches hold
	// when they sync, which a real cluster decides by timing too.
	{Kind: "ClusterRole", Path: liftedPath, Side: sideOLM}:                            {liftedRBAC, true},
	{Kind: "ClusterRoleBinding", Path: liftedPath, Side: sideOLM}:                     {liftedRBAC, true},
	{Kind: "Role", Path: copiedPath, Side: sideOLM}:                                   {copiedRBAC, true},
	{Kind: "RoleBinding", Path: copiedPath, Side: sideOLM}:                            {copiedRBAC, true},
	{Kind: "ClusterRole", Path: `metadata.labels["olm.owner"]`, Side: sideOLM}:        {rerunStep, true},
	{Kind: "ClusterRoleBinding", Path: `metadata.labels["olm.owner"]`, Side: sideOLM}: {rerunStep, true},
	{Kind: "CustomResourceDefinition", Path: componentLabelPath, Side: sideOurs}:      {adoption, true},
	{Kind: "Role", Path: componentLabelPath, Side: sideOLM}:                           {adoption, true},
	{Kind: "RoleBinding", Path: componentLabelPath, Side: sideOLM}:                    {adoption, true},
}

// liveKnown is a class only the live cluster shows.
type liveKnown struct {
	knownDifference
	// Timing marks a class whose occurrence depends on timing: the report names it without
	// counting it, and a case may or may not show it from one run to the next.
	Timing bool
}

// The reasons of the timing-dependent classes.
var (
	liftedRBAC = knownDifference{
		"a global operator's Roles and RoleBindings are lifted to ClusterRoles and ClusterRoleBindings of the same name when the olm-operator finds its permissions not met at cluster scope; it looks through its informers' caches, so when a CSV syncs before the ClusterRoleBindings of its clusterPermissions are cached, OLM lifts roles that a settled cluster does not need (olm-render renders the settled answer: docs/olm-differences.md)",
		"operators/olm/operatorgroup.go (ensureRBACInTargetNamespace, ensureSingletonRBAC; requirements.go permissionStatus)"}
	copiedRBAC = knownDifference{
		"a Single- or MultiNamespace operator's Roles and RoleBindings are copied into each target namespace when the olm-operator finds its permissions not met there; it looks through its informers' caches, so early syncs copy roles that a settled cluster does not need (olm-render renders the settled answer: docs/olm-differences.md)",
		"operators/olm/operatorgroup.go (ensureCSVsInNamespaces, ensureTenantRBAC)"}
	rerunStep = knownDifference{
		"the catalog operator labels a bundle's ClusterRole or ClusterRoleBinding olm.owner=<csv> only when its step finds the object already there: when the InstallPlan's steps run a second time (the plan's status update lost a race, e.g. with the adoption controller labelling the plan); the first run creates it unlabelled, as olm-render renders it",
		"operators/catalog/step_ensurer.go (EnsureClusterRole, EnsureClusterRoleBinding)"}
	adoption = knownDifference{
		"the olm-operator's adoption controller labels the objects of an operator operators.coreos.com/<package>.<namespace> asynchronously, and an object a controller replaced with a full Update from an older copy loses it until the next reconcile",
		"operators/adoption_controller.go"}
)

// outsidePath is the path of the class of objects in namespaces the inputs do not declare.
const outsidePath = "(object in a namespace the inputs do not declare)"

// isLiveKnown reports whether a class is expected on the live cluster only.
func isLiveKnown(cl differenceClass) bool {
	_, ok := liveKnownDifferences[cl]
	return ok
}

// isTiming reports whether a class is a timing-dependent one of the live cluster.
func isTiming(cl differenceClass) bool {
	return liveKnownDifferences[cl].Timing
}

// liveReason says why a class is expected, or that it is not.
func liveReason(cl differenceClass) string {
	if k, ok := knownFor(cl); ok {
		return k.Reason + " [" + k.DecidedBy + "]"
	}
	if k, ok := liveKnownDifferences[cl]; ok {
		return k.Reason + " [" + k.DecidedBy + "]"
	}
	return "NOT KNOWN"
}

// renderMaps renders the inputs for a Kubernetes version and returns the objects.
func renderMaps(ctx context.Context, in installInputs, dir, kubeVersion string) ([]map[string]any, error) {
	o, err := renderAt(ctx, in, dir, kubeVersion)
	if err != nil {
		return nil, err
	}
	objs := make([]map[string]any, 0, len(o.Objects))
	for _, u := range o.Objects {
		objs = append(objs, u.Object)
	}
	return objs, nil
}

// serverVersion returns the live API server's version, for the render's --kube-version.
func serverVersion(t *testing.T, cl *live.Cluster) string {
	t.Helper()
	v, err := cl.Kube.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("the API server's version: %v", err)
	}
	return v.GitVersion
}

// fromMap converts an unstructured object to a typed one.
func fromMap(m map[string]any, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(m, into)
}

// checkGolden compares data with a golden file, or writes it with -update.
func checkGolden(t *testing.T, path string, data []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (write it with -update)", err)
	}
	if !bytes.Equal(want, data) {
		t.Errorf("%s is out of date (run with -update and review the change):\n%s", path, lineDiff(string(want), string(data)))
	}
}
