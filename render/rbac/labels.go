package rbac

import (
	"crypto/sha256"
	"encoding/json"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/olm-render/olm-render/render/hash"
)

// Label keys and values OLM puts on the RBAC objects it creates.
const (
	// OwnerLabel names the owning CSV or OperatorGroup (OLM ownerutil.OwnerKey).
	OwnerLabel = "olm.owner"
	// OwnerNamespaceLabel is the owner's namespace (OLM ownerutil.OwnerNamespaceKey).
	OwnerNamespaceLabel = "olm.owner.namespace"
	// OwnerKindLabel is the owner's kind (OLM ownerutil.OwnerKind).
	OwnerKindLabel = "olm.owner.kind"
	// PermissionsHashLabel carries the rules hash on (Cluster)Roles and the roleRef+subjects hash on
	// (Cluster)RoleBindings (OLM resolver.ContentHashLabelKey).
	PermissionsHashLabel = "olm.permissions.hash"
	// ManagedLabel marks every object OLM manages (OLM install.OLMManagedLabelKey).
	ManagedLabel = "olm.managed"
	// ManagedValue is the value of ManagedLabel.
	ManagedValue = "true"
	// CopiedFromLabel names the operator namespace on tenant copies (API v1alpha1.CopiedLabelKey).
	CopiedFromLabel = "olm.copiedFrom"

	csvKind           = "ClusterServiceVersion"
	operatorGroupKind = "OperatorGroup"
)

// ownerLabels returns OLM's ownerutil.OwnerLabel map plus olm.managed.
func ownerLabels(name, namespace, kind string) map[string]string {
	return map[string]string{
		OwnerLabel:          name,
		OwnerNamespaceLabel: namespace,
		OwnerKindLabel:      kind,
		ManagedLabel:        ManagedValue,
	}
}

// RulesHash is OLM's PolicyRuleHashLabelValue: base62 of the SHA-224 of json.Marshal(rules) (no
// trailing newline, unlike DeepHashObject).
func RulesHash(rules []rbacv1.PolicyRule) string {
	// Marshalling cannot fail: PolicyRule holds only strings.
	raw, _ := json.Marshal(rules)
	return base62(sha256.Sum224(raw))
}

// BindingHash is OLM's RoleReferenceAndSubjectHashLabelValue: base62 of the SHA-224 of the JSON of
// an anonymous struct with untagged fields RoleRef and Subjects.
func BindingHash(ref rbacv1.RoleRef, subjects []rbacv1.Subject) string {
	container := struct {
		RoleRef  rbacv1.RoleRef
		Subjects []rbacv1.Subject
	}{RoleRef: ref, Subjects: subjects}
	// Marshalling cannot fail: RoleRef and Subject hold only strings.
	raw, _ := json.Marshal(&container)
	return base62(sha256.Sum224(raw))
}

// stringHash is the base62 SHA-224 of s (OLM operatorgroup.go hash).
func stringHash(s string) string {
	return base62(sha256.Sum224([]byte(s)))
}

func base62(sum [sha256.Size224]byte) string { return hash.Base62(sum) }
