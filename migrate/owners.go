package migrate

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render/emit"
)

// owned is an object of a render and the Subscription it belongs to ("" when none).
type owned struct {
	obj          *unstructured.Unstructured
	key          emit.Key
	subscription string
}

// owners tells which eligible Subscription an object belongs to.
type owners struct {
	byCSV       map[string]string   // namespace/csv → namespace/subscription
	byComponent map[string]string   // <package>.<namespace> → namespace/subscription
	byExtension map[string]string   // ClusterExtension name → namespace/subscription
	byCatalog   map[string]string   // ClusterCatalog name → the first namespace/subscription using it
	crds        map[string]string   // CRD name → namespace/subscription, from v0's CRDs
	byKey       map[emit.Key]string // an object v1 creates → its namespace/subscription
}

// newOwners indexes the eligible Subscriptions.
func newOwners(verdicts []olmv1.Verdict) *owners {
	o := &owners{byCSV: map[string]string{}, byComponent: map[string]string{}, byExtension: map[string]string{},
		byCatalog: map[string]string{}, crds: map[string]string{}, byKey: map[emit.Key]string{}}
	for _, v := range verdicts {
		if v.Outcome != olmv1.Eligible || v.Generated {
			continue
		}
		o.byCSV[v.Namespace+"/"+v.Bundle] = v.ID()
		o.byComponent[v.Package+"."+v.Namespace] = v.ID()
		if v.ClusterExtension != "" {
			o.byExtension[v.ClusterExtension] = v.ID()
		}
		if _, ok := o.byCatalog[v.ClusterCatalog]; !ok && v.ClusterCatalog != "" {
			o.byCatalog[v.ClusterCatalog] = v.ID()
		}
	}
	return o
}

// attribute returns the objects of a render that belong to an eligible Subscription (or, for
// v0, to an OperatorGroup), each with its owner. v1 says whether the render is v1's.
func (o *owners) attribute(objs []*unstructured.Unstructured, v1 bool) []owned {
	var out []owned
	// CRDs first: the per-CRD ClusterRoles of v0 are attributed by their CRD.
	for _, pass := range []bool{true, false} {
		for _, u := range objs {
			if (u.GetKind() == "CustomResourceDefinition") != pass {
				continue
			}
			sub, ok := o.owner(u, v1)
			if !ok {
				continue
			}
			if pass && !v1 {
				o.crds[u.GetName()] = sub
			}
			out = append(out, owned{obj: u, key: emit.KeyOf(u), subscription: sub})
		}
	}
	return out
}

// owner returns the Subscription an object belongs to, or ("", true) for an object of the
// OperatorGroups of a v0 render; false when it is none of the move's.
func (o *owners) owner(u *unstructured.Unstructured, v1 bool) (string, bool) {
	labels := u.GetLabels()
	if v1 {
		if sub, ok := o.byExtension[labels["olm.operatorframework.io/owner-name"]]; ok {
			return sub, true
		}
		switch u.GetKind() {
		case "ClusterExtension":
			sub, ok := o.byExtension[u.GetName()]
			return sub, ok
		case "ClusterCatalog":
			sub, ok := o.byCatalog[u.GetName()]
			return sub, ok
		}
		return "", false
	}
	if u.GetKind() == "Operator" {
		sub, ok := o.byComponent[u.GetName()]
		return sub, ok
	}
	if labels["olm.owner.kind"] == "ClusterServiceVersion" {
		ns := labels["olm.owner.namespace"]
		if ns == "" {
			ns = u.GetNamespace()
		}
		sub, ok := o.byCSV[ns+"/"+labels["olm.owner"]]
		return sub, ok
	}
	if u.GetKind() == "ClusterServiceVersion" {
		from := labels["olm.copiedFrom"]
		if from == "" {
			from = u.GetNamespace()
		}
		sub, ok := o.byCSV[from+"/"+u.GetName()]
		return sub, ok
	}
	for k := range labels {
		if component, ok := strings.CutPrefix(k, "operators.coreos.com/"); ok {
			sub, found := o.byComponent[component]
			return sub, found
		}
	}
	for k, v := range u.GetAnnotations() {
		if strings.HasPrefix(k, "operatorframework.io/installed-alongside-") {
			sub, ok := o.byCSV[v]
			return sub, ok
		}
	}
	if sub, ok := o.byKey[emit.KeyOf(u)]; ok {
		return sub, true
	}
	return o.byName(u)
}

// byName attributes what OLM names after the CSV or its CRDs: the OperatorCondition and its Role
// and RoleBinding (named as the CSV), the per-CRD ClusterRoles (<crd>-<version>-<verb>), and the
// OperatorGroup's aggregation ClusterRoles (olm.og.<group>.<verb>-<hash>), which no
// Subscription owns alone.
func (o *owners) byName(u *unstructured.Unstructured) (string, bool) {
	if sub, ok := o.byCSV[u.GetNamespace()+"/"+u.GetName()]; ok {
		return sub, true
	}
	if u.GetKind() != "ClusterRole" {
		return "", false
	}
	if strings.HasPrefix(u.GetName(), "olm.og.") {
		return "", true
	}
	best, owner := "", ""
	for crd, sub := range o.crds {
		if strings.HasPrefix(u.GetName(), crd+"-") && len(crd) > len(best) {
			best, owner = crd, sub
		}
	}
	return owner, best != ""
}
