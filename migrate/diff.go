package migrate

import (
	"encoding/json"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/emit"
)

// rbacKinds are the kinds v0 and v1 name differently.
var rbacKinds = []string{"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}

// diffObjects classes the objects of the two renders (see the package documentation).
func diffObjects(v0, v1 []owned) []Change {
	byKey := map[emit.Key]owned{}
	for _, o := range v1 {
		byKey[o.key] = o
	}
	used := map[emit.Key]bool{}
	var out []Change
	var gone []owned
	secrets := certificateSecrets(v1)
	for _, o := range v0 {
		if o.key.Kind == "Secret" && secrets[o.key] {
			out = append(out, Change{Class: Adopted, Key: o.key, Subscription: o.subscription,
				Note: "the certificate provider's Certificate writes this Secret: it takes it over"})
			continue
		}
		if _, ok := byKey[o.key]; !ok {
			gone = append(gone, o)
			continue
		}
		used[o.key] = true
		class, note := Adopted, "v1 takes it over under the same name"
		if o.key.Kind == "CustomResourceDefinition" {
			class, note = Untouched, "never delete it: its custom resources go with it; v1 takes it over as it is"
		}
		out = append(out, Change{Class: class, Key: o.key, Subscription: o.subscription, Note: note})
	}
	renames := renamed(gone, v1, used)
	for _, o := range gone {
		if to, ok := renames[o.key]; ok {
			from := o.key
			out = append(out, Change{Class: Renamed, Key: to, From: &from, Subscription: o.subscription,
				Note: "the same grant, under v1's name: v1 creates it, and v0's is deleted with the CSV or by hand"})
			continue
		}
		out = append(out, Change{Class: Dropped, Key: o.key, Subscription: o.subscription, Note: droppedNote(o)})
	}
	for _, o := range v1 {
		if !used[o.key] {
			out = append(out, Change{Class: Added, Key: o.key, Subscription: o.subscription, Note: addedNote(o)})
		}
	}
	sortChanges(out)
	return out
}

// renamed pairs v0's RBAC without a namesake in v1 with v1's of the same kind and namespace that
// grants the same: the same rules, or the same subjects bound to a role renamed alike. It marks
// the v1 objects it pairs as used.
func renamed(gone, v1 []owned, used map[emit.Key]bool) map[emit.Key]emit.Key {
	out := map[emit.Key]emit.Key{}
	roleNames := map[string]string{} // v0 role name → v1's, by kind/namespace/name
	for _, bindings := range []bool{false, true} {
		for _, o := range gone {
			if !slices.Contains(rbacKinds, o.key.Kind) || isBinding(o.key.Kind) != bindings {
				continue
			}
			for _, n := range v1 {
				if used[n.key] || n.key.Kind != o.key.Kind || n.key.Namespace != o.key.Namespace || n.subscription != o.subscription {
					continue
				}
				if sameGrant(o.obj, n.obj, roleNames) {
					out[o.key], used[n.key] = n.key, true
					if !bindings {
						roleNames[roleKey(o.key)] = n.key.Name
					}
					break
				}
			}
		}
	}
	return out
}

// isBinding reports whether a kind binds a role.
func isBinding(kind string) bool { return kind == "ClusterRoleBinding" || kind == "RoleBinding" }

// roleKey names a role among the renamed ones.
func roleKey(k emit.Key) string { return k.Kind + "/" + k.Namespace + "/" + k.Name }

// sameGrant reports whether two roles hold the same rules (in any order), or two bindings bind
// the same subjects to roles renamed alike.
func sameGrant(v0, v1 *unstructured.Unstructured, roleNames map[string]string) bool {
	if !isBinding(v0.GetKind()) {
		return sameSet(v0.Object["rules"], v1.Object["rules"])
	}
	if !sameSet(v0.Object["subjects"], v1.Object["subjects"]) {
		return false
	}
	ref0, _, _ := unstructured.NestedStringMap(v0.Object, "roleRef")
	ref1, _, _ := unstructured.NestedStringMap(v1.Object, "roleRef")
	ns := v0.GetNamespace()
	if ref0["kind"] == "ClusterRole" {
		ns = ""
	}
	want := roleNames[roleKey(emit.Key{Group: "rbac.authorization.k8s.io", Kind: ref0["kind"], Namespace: ns, Name: ref0["name"]})]
	return ref0["kind"] == ref1["kind"] && (want == ref1["name"] || ref0["name"] == ref1["name"])
}

// sameSet reports whether two lists hold the same elements, in any order.
func sameSet(a, b any) bool {
	as, bs := canonical(a), canonical(b)
	slices.Sort(as)
	slices.Sort(bs)
	return slices.Equal(as, bs)
}

// canonical encodes each element of a list.
func canonical(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		data, _ := json.Marshal(e)
		out = append(out, string(data))
	}
	return out
}

// droppedNote says why v1 does not keep an object v0 created.
func droppedNote(o owned) string {
	switch o.key.Kind {
	case "ClusterServiceVersion":
		if o.obj.GetLabels()["olm.copiedFrom"] != "" {
			return "a copied CSV: v1 copies nothing into target namespaces"
		}
		return "v1 has no CSV: deleting it (cascade orphan) hands its workload over"
	case "OperatorCondition":
		return "v1 has no OperatorCondition: the operator reads OPERATOR_CONDITION_NAME no more"
	case "Operator":
		return "v1 has no Operator object"
	case "OperatorGroup":
		return "v1 has no OperatorGroup: delete it once no operator of it stays with v0"
	case "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
		switch {
		case o.subscription == "":
			return "the OperatorGroup's aggregation role: v1 creates none; delete it with the OperatorGroup"
		case o.key.Kind == "ClusterRole" && isCRDRole(o.obj):
			return "OLM's admin/edit/view role of a CRD: v1 creates none, so users bound through the aggregated roles lose access unless you keep it"
		}
		return "RBAC v0 created that v1 does not create under any name"
	case "Secret", "Service", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService":
		return "v0's certificate plumbing: v1 uses its certificate provider's"
	}
	return "v1 does not create it"
}

// isCRDRole reports whether a ClusterRole is one of OLM's per-CRD aggregation roles.
func isCRDRole(u *unstructured.Unstructured) bool {
	for k := range u.GetLabels() {
		if len(k) > len("rbac.authorization.k8s.io/aggregate-to-") && k[:len("rbac.authorization.k8s.io/aggregate-to-")] == "rbac.authorization.k8s.io/aggregate-to-" {
			return true
		}
	}
	return false
}

// addedNote says what an object only v1 creates is.
func addedNote(o owned) string {
	switch o.key.Kind {
	case "ClusterExtension":
		return "what Git applies under v1, pinned to the installed version"
	case "ClusterCatalog":
		return "what Git applies under v1: the catalog, pinned by digest"
	case "Issuer", "Certificate":
		return "the certificate provider's, for the operator's webhooks"
	}
	return "operator-controller creates it"
}

// certificateSecrets returns the Secrets v1's certificate provider writes: each cert-manager
// Certificate's spec.secretName.
func certificateSecrets(v1 []owned) map[emit.Key]bool {
	out := map[emit.Key]bool{}
	for _, o := range v1 {
		if o.key.Kind != "Certificate" {
			continue
		}
		if name, _, _ := unstructured.NestedString(o.obj.Object, "spec", "secretName"); name != "" {
			out[emit.Key{Kind: "Secret", Namespace: o.key.Namespace, Name: name}] = true
		}
	}
	return out
}
