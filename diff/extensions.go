package diff

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/blang/semver/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/olmv1"
)

// Controllers that act on what Git applies where OLM runs.
const (
	// ControllerOLM is OLM v0's catalog and OLM operators (--olm=running).
	ControllerOLM = "OLM"
	// ControllerOperatorController is OLM v1's operator-controller (--olm=v1).
	ControllerOperatorController = "operator-controller"
)

// selfCertified is the upgradeConstraintPolicy under which operator-controller installs any
// version, older ones too.
const selfCertified = "SelfCertified"

// olmExt is what one render says of a ClusterExtension.
type olmExt struct {
	name, namespace, pkg string
	// version is spec.source.catalog.version: olm-render pins it to one bundle's version.
	version string
	// policy is spec.source.catalog.upgradeConstraintPolicy.
	policy string
}

// isClusterExtension reports whether an object is an OLM v1 ClusterExtension.
func isClusterExtension(u *unstructured.Unstructured) bool {
	return u.GetKind() == "ClusterExtension" && u.GetAPIVersion() == olmv1.APIVersion
}

// addExtension records a ClusterExtension.
func (s *olmSide) addExtension(u *unstructured.Unstructured) {
	ns, _, _ := unstructured.NestedString(u.Object, "spec", "namespace")
	pkg, _, _ := unstructured.NestedString(u.Object, "spec", "source", "catalog", "packageName")
	version, _, _ := unstructured.NestedString(u.Object, "spec", "source", "catalog", "version")
	policy, _, _ := unstructured.NestedString(u.Object, "spec", "source", "catalog", "upgradeConstraintPolicy")
	s.extensions[u.GetName()] = &olmExt{name: u.GetName(), namespace: ns, pkg: pkg, version: version, policy: policy}
}

// extensionChanges says what operator-controller will do for every ClusterExtension of either
// side whose version moved, sorted by namespace and name.
func extensionChanges(before, after *olmSide) []OLMChange {
	names := make([]string, 0, len(before.extensions)+len(after.extensions))
	for n := range before.extensions {
		names = append(names, n)
	}
	for n := range after.extensions {
		if before.extensions[n] == nil {
			names = append(names, n)
		}
	}
	var out []OLMChange
	for _, n := range names {
		if c, ok := extensionChangeOf(before.extensions[n], after.extensions[n]); ok {
			c.Text = c.String()
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(x, y OLMChange) int {
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Extension, y.Extension))
	})
	return out
}

// extensionChangeOf says what operator-controller will do for one ClusterExtension, b before
// and a after (either nil); false when its version did not move.
func extensionChangeOf(b, a *olmExt) (OLMChange, bool) {
	if a == nil {
		return OLMChange{Namespace: b.namespace, Extension: b.name, Package: b.pkg, Move: MoveRemove, From: b.version}, true
	}
	c := OLMChange{Namespace: a.namespace, Extension: a.name, Package: a.pkg, Move: MoveInstall, To: a.version, selfCertified: a.policy == selfCertified}
	if b == nil {
		return c, true
	}
	if b.version == a.version {
		return c, false
	}
	c.Move, c.From = MoveUpgrade, b.version
	from, errFrom := semver.ParseTolerant(b.version)
	to, errTo := semver.ParseTolerant(a.version)
	if errFrom == nil && errTo == nil && to.LT(from) {
		c.Move, c.fromVersion, c.toVersion = MoveDowngrade, from.String(), to.String()
	}
	return c, true
}

// extensionText says what operator-controller will do for a ClusterExtension.
func (c OLMChange) extensionText() string {
	switch c.Move {
	case MoveInstall:
		return fmt.Sprintf("operator-controller will install %s %s", c.Package, c.To)
	case MoveUpgrade:
		return fmt.Sprintf("operator-controller will upgrade %s %s → %s", c.Package, c.From, c.To)
	case MoveDowngrade:
		if c.selfCertified {
			return fmt.Sprintf("operator-controller will downgrade %s %s → %s: upgradeConstraintPolicy is SelfCertified", c.Package, c.From, c.To)
		}
		return fmt.Sprintf("operator-controller will not install %s %s: it never goes back from %s unless upgradeConstraintPolicy is SelfCertified, so %s stays and the ClusterExtension reports the error in its Progressing condition", c.Package, c.To, c.From, c.From)
	case MoveRemove:
		return fmt.Sprintf("operator-controller will uninstall %s %s: deleting ClusterExtension %s deletes everything it installed, its CRDs and every custom resource of them too", c.Package, c.From, c.Extension)
	}
	return ""
}

// extensionDowngradeFindings returns a downgrade finding for each ClusterExtension whose
// version goes back.
func extensionDowngradeFindings(changes []OLMChange) []Finding {
	var out []Finding
	for _, c := range changes {
		if c.Extension == "" || c.Move != MoveDowngrade {
			continue
		}
		msg := fmt.Sprintf("the version (spec.source.catalog.version) goes back from %s to %s: operator-controller refuses it unless upgradeConstraintPolicy is SelfCertified", c.From, c.To)
		if c.selfCertified {
			msg = fmt.Sprintf("the version (spec.source.catalog.version) goes back from %s to %s, which operator-controller installs because upgradeConstraintPolicy is SelfCertified", c.From, c.To)
		}
		out = append(out, Finding{Gate: GateDowngrade, Operator: c.Namespace + "/" + c.Package,
			Object: Key{Group: "olm.operatorframework.io", Kind: "ClusterExtension", Name: c.Extension}.String(), Message: msg})
	}
	return out
}
