package olmv1

import (
	"fmt"
	"slices"
	"strings"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olm-render/olm-render/schemas/inputs"
)

// scope is the watch a Subscription's OperatorGroup asks for, as a ClusterExtension can say it.
type scope struct {
	// mode is the install mode the group amounts to; "" when v1 cannot express it.
	mode v1alpha1.InstallModeType
	// watch is the watched namespace of OwnNamespace and SingleNamespace.
	watch string
	// group is the namespace's OperatorGroup, when it has exactly one.
	group *inputs.OperatorGroup
	// reasons are why v1 cannot express the group's watch; notes what it ignores of it.
	reasons, notes []Reason
}

// targets are the namespaces the bundle is rendered to watch: [""] for all.
func (s scope) targets() []string {
	if s.mode == v1alpha1.InstallModeTypeAllNamespaces {
		return []string{""}
	}
	return []string{s.watch}
}

// scopeOf reads the OperatorGroup of a namespace. A namespace without one is taken to watch all
// namespaces (v0 fails its CSVs; v1 needs no group). Several groups, a label selector and
// several target namespaces are what v1 cannot express.
func scopeOf(set *inputs.Set, ns string) scope {
	var groups []*inputs.OperatorGroup
	for _, og := range set.OperatorGroups {
		if og.Namespace == ns {
			groups = append(groups, og)
		}
	}
	switch len(groups) {
	case 0:
		return scope{mode: v1alpha1.InstallModeTypeAllNamespaces, notes: []Reason{{Code: NoteNoOperatorGroup,
			Message: "namespace " + ns + " has no OperatorGroup (OLM v0 fails its CSVs there); a ClusterExtension needs none and watches all namespaces"}}}
	case 1:
		return groupScope(groups[0])
	}
	var names []string
	for _, og := range groups {
		names = append(names, og.Namespace+"/"+og.Name+" ("+og.Origin.String()+")")
	}
	og := groups[0]
	return scope{reasons: []Reason{{Code: CodeInstallMode, Origin: og.Origin, Object: groupObject(og),
		Message: "namespace " + ns + " has several OperatorGroups (" + strings.Join(names, ", ") + "), as OLM v0 refuses (TooManyOperatorGroups): no single watch to give a ClusterExtension",
		Rule:    "ClusterExtension spec.config.inline.watchNamespace"}}}
}

// groupScope reads one OperatorGroup.
func groupScope(og *inputs.OperatorGroup) scope {
	s := scope{group: og, notes: groupNotes(og)}
	targets := slices.Compact(slices.Sorted(slices.Values(og.Spec.TargetNamespaces)))
	switch {
	case len(targets) > 1:
		s.reasons = append(s.reasons, Reason{Code: CodeInstallMode, Origin: og.Origin, Object: groupObject(og), Field: "spec.targetNamespaces",
			Message: fmt.Sprintf("targets %d namespaces (%s): MultiNamespace, which OLM v1 cannot install (a ClusterExtension watches all namespaces or one)", len(targets), strings.Join(targets, ", ")),
			Rule:    "applier/provider.go (install modes), rukpak/bundle/registryv1.go (watchNamespace is one namespace)"})
	case len(targets) == 1 && targets[0] == og.Namespace:
		s.mode, s.watch = v1alpha1.InstallModeTypeOwnNamespace, og.Namespace
	case len(targets) == 1:
		s.mode, s.watch = v1alpha1.InstallModeTypeSingleNamespace, targets[0]
	case og.Spec.Selector != nil && (len(og.Spec.Selector.MatchLabels) > 0 || len(og.Spec.Selector.MatchExpressions) > 0):
		s.reasons = append(s.reasons, Reason{Code: CodeInstallMode, Origin: og.Origin, Object: groupObject(og), Field: "spec.selector",
			Message: "selects its target namespaces by label, which OLM v1 cannot express: a ClusterExtension watches all namespaces or one namespace by name (watchNamespace)",
			Rule:    "rukpak/bundle/registryv1.go (watchNamespace is one namespace)"})
	default:
		s.mode = v1alpha1.InstallModeTypeAllNamespaces
	}
	return s
}

// groupNotes are what v1 ignores of an OperatorGroup: its scoped ServiceAccount and its
// upgrade strategy.
func groupNotes(og *inputs.OperatorGroup) []Reason {
	var out []Reason
	if og.Spec.ServiceAccountName != "" {
		out = append(out, Reason{Code: NoteScopedServiceAccount, Origin: og.Origin, Object: groupObject(og), Field: "spec.serviceAccountName",
			Message: "OLM v0 installs with ServiceAccount " + og.Spec.ServiceAccountName + "'s permissions; OLM v1 ignores it (from v1.11 operator-controller installs with its own, cluster-admin, identity; up to v1.10 with the ClusterExtension's spec.serviceAccount)"})
	}
	if og.Spec.UpgradeStrategy != "" && og.Spec.UpgradeStrategy != operatorsv1.UpgradeStrategyDefault {
		out = append(out, Reason{Code: NoteUpgradeStrategy, Origin: og.Origin, Object: groupObject(og), Field: "spec.upgradeStrategy",
			Message: fmt.Sprintf("upgrade strategy %s has no counterpart in OLM v1, which ignores it", og.Spec.UpgradeStrategy)})
	}
	return out
}

// groupObject names an OperatorGroup.
func groupObject(og *inputs.OperatorGroup) string {
	return "OperatorGroup/" + og.Namespace + "/" + og.Name
}
