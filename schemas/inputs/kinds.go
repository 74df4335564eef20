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
	default:
		msg = nearGroupProblem(gvk)
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

// nearGroupProblem refuses an object whose API group is a typo of operators.coreos.com or of
// a group Kubernetes serves (operator.coreos.com, operators.coreos.io, app): when a group
// within two edits serves the kind, the object is not the custom resource it claims to be but
// a Subscription or OperatorGroup that would otherwise pass through unrendered.
func nearGroupProblem(gvk schema.GroupVersionKind) string {
	for _, g := range nearGroups(gvk.Group) {
		if versions, ok := servedVersions(g, gvk.Kind); ok {
			return fmt.Sprintf("API group %q is not served here and %s is a kind of %q; did you mean apiVersion %s?",
				gvk.Group, gvk.Kind, g, schema.GroupVersion{Group: g, Version: versions[0]})
		}
	}
	return ""
}

// nearGroups lists the groups Kubernetes or OLM serve within two edits of group, closest first.
func nearGroups(group string) []string {
	const maxEdits = 2
	var near []string
	seen := map[string]bool{}
	for _, g := range append([]string{operatorsGroup}, registeredGroups()...) {
		if g == group || seen[g] || diag.Distance(strings.ToLower(g), strings.ToLower(group)) > maxEdits {
			continue
		}
		seen[g] = true
		near = append(near, g)
	}
	slices.SortStableFunc(near, func(a, b string) int {
		return diag.Distance(a, group) - diag.Distance(b, group)
	})
	return near
}

// registeredGroups lists the API groups of the client-go scheme, sorted.
func registeredGroups() []string {
	groups := map[string]bool{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		groups[gvk.Group] = true
	}
	return slices.Sorted(maps.Keys(groups))
}

// servedVersions returns the versions of group that serve kind, preferred first.
func servedVersions(group, kind string) ([]string, bool) {
	if group == operatorsGroup {
		v, ok := operatorsKinds[kind]
		return v, ok
	}
	var versions []string
	for _, gv := range scheme.Scheme.PrioritizedVersionsForGroup(group) {
		if scheme.Scheme.Recognizes(gv.WithKind(kind)) {
			versions = append(versions, gv.Version)
		}
	}
	return versions, len(versions) > 0
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
