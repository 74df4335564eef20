package inputs

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/olm-render/olm-render/schemas/diag"
)

// operatorsKinds are the kinds the operators.coreos.com group serves, and their versions.
var operatorsKinds = map[string][]string{
	"CatalogSource": {"v1alpha1"}, "ClusterServiceVersion": {"v1alpha1"}, "InstallPlan": {"v1alpha1"},
	"Subscription": {"v1alpha1"}, "OperatorGroup": {"v1", "v1alpha2"}, "OLMConfig": {"v1"},
	"Operator": {"v1"}, "OperatorCondition": {"v1", "v2"},
}

// checkKind refuses an object of a kind or version its API group does not serve: in
// operators.coreos.com and in the API groups Kubernetes itself serves, a typo there would
// otherwise pass through, and the operator it meant would silently not be rendered. Objects of
// other groups (custom resources) pass. It reports whether the object is fine.
func checkKind(it Item, problems *diag.Problems) bool {
	gvk := it.Object.GroupVersionKind()
	var msg string
	switch {
	case gvk.Group == operatorsGroup:
		msg = operatorsKindProblem(gvk)
	case scheme.Scheme.IsGroupRegistered(gvk.Group):
		msg = builtinKindProblem(gvk)
	}
	if msg == "" {
		return true
	}
	problems.Errorf(it.Origin, objectName(it.Object), "kind", "%s", msg)
	return false
}

func operatorsKindProblem(gvk schema.GroupVersionKind) string {
	versions, ok := operatorsKinds[gvk.Kind]
	if !ok {
		msg := fmt.Sprintf("operators.coreos.com serves no kind %q", gvk.Kind)
		if s := diag.Closest(gvk.Kind, slices.Sorted(maps.Keys(operatorsKinds))); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
		return msg
	}
	if !slices.Contains(versions, gvk.Version) {
		return fmt.Sprintf("%s is served as %s, not %s: set apiVersion to %s/%s", gvk.Kind,
			joinVersions(versions), gvk.GroupVersion(), operatorsGroup, versions[0])
	}
	return ""
}

func builtinKindProblem(gvk schema.GroupVersionKind) string {
	gv := gvk.GroupVersion()
	if !scheme.Scheme.IsVersionRegistered(gv) {
		return fmt.Sprintf("API group %q serves no version %q: served are %s", gvk.Group, gvk.Version,
			joinGroupVersions(scheme.Scheme.PrioritizedVersionsForGroup(gvk.Group)))
	}
	if scheme.Scheme.Recognizes(gvk) {
		return ""
	}
	msg := fmt.Sprintf("%s serves no kind %q", gv, gvk.Kind)
	if s := diag.Closest(gvk.Kind, slices.Sorted(maps.Keys(scheme.Scheme.KnownTypes(gv)))); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", s)
	}
	return msg
}

func joinVersions(versions []string) string {
	out := make([]string, len(versions))
	for i, v := range versions {
		out[i] = operatorsGroup + "/" + v
	}
	return strings.Join(out, " or ")
}

func joinGroupVersions(gvs []schema.GroupVersion) string {
	out := make([]string, len(gvs))
	for i, gv := range gvs {
		out[i] = gv.String()
	}
	return strings.Join(out, ", ")
}
