// Package rbac renders the RBAC objects OLM v0 (v0.46.0) creates for an operator: the
// ServiceAccounts, Roles, RoleBindings, ClusterRoles and ClusterRoleBindings an InstallPlan makes
// from a CSV's permissions and clusterPermissions (ForCSV, after OLM's
// RBACForClusterServiceVersion and ExecutePlan), the AllNamespaces lift of the namespaced ones to
// cluster scope (Lift, after ensureSingletonRBAC), the tenant copies for Single- and
// MultiNamespace groups (CopyToNamespace, after ensureTenantRBAC), the three aggregation
// ClusterRoles of every OperatorGroup (OperatorGroupClusterRoles) and the per-provided-API
// ClusterRoles (ProvidedAPIClusterRoles), plus the API-set helpers GVKHash, ProvidedAPIs and
// APISetString behind the olm.providedAPIs annotation.
//
// # Names and labels
//
// Names and hash labels are computed exactly as OLM does, from the JSON of the real Go types:
//
//	Role, RoleBinding          generateName("<csv>-<sa>", {name, permission})
//	ClusterRole, binding       generateName("<csv>", {name, namespace, permission})
//	olm.permissions.hash       base62(SHA-224(json(rules))) or of json({RoleRef, Subjects})
//	OperatorGroup roles        olm.og.<og>.<admin|edit|view>-base62(SHA-224("<ns>/<og>/<suffix>"))
//	per-API roles              <crd>-<version>-<suffix>, <crd>-<version>-crdview,
//	                           <apiservice name>-<version>-<suffix>
//	aggregation label          olm.opgroup.permissions/aggregate-to-<fnv1a64(Kind.version.group)>-<suffix>
//
// generateName cuts the base so the name fits in 63 characters, except that a base and hash of
// exactly 63 characters together give a 64-character name (OLM's off-by-one, kept).
//
// # Deviations from the objects OLM writes
//
//   - ownerReferences are omitted everywhere. OLM points them at the CSV (ServiceAccounts, Roles,
//     RoleBindings, tenant copies), the CRD (kind "customresourcedefinition", lower case) or the
//     APIService (per-API roles), always with the owner's UID, which only exists in a live
//     cluster; apply tools reject an ownerReference without a uid.
//   - ClusterRoleBindings have no metadata.namespace. OLM's InstallPlan step sets the CSV
//     namespace on them and the apiserver drops it, so the stored object has none.
//   - Lists are sorted by name and same-named objects appear once. OLM ranges over maps; a second,
//     identical permission entry yields the same name and OLM's create-or-update leaves one object.
//   - Entries OLM cannot process are refused or skipped: an empty serviceAccountName is an error
//     (the InstallPlan would fail to create an unnamed ServiceAccount), an owned CRD name without a
//     "." is skipped (OLM fails the CSV).
//
// # When permissions are already met
//
// OLM lifts (AllNamespaces) or copies (Single/MultiNamespace) only when the CSV's permissions are
// not already granted, and asks Kubernetes' RBAC authorizer, for the user
// system:serviceaccount:<ns>:<sa> without groups, about every verb × apiGroup × resource ×
// resourceName (or non-resource URL) a rule expands to. Offline the only RBAC known is the CSV's
// own, so Lift and CopyToNamespace answer the same question against the ClusterRoles the CSV's
// clusterPermissions bind to the same ServiceAccount, with the authorizer's matching rules: "*"
// matches any verb, apiGroup or resource, resourceNames restrict (an unnamed request is not
// covered by a named rule), "*/sub" never matches (OLM sends subresources inside the resource),
// non-resource URLs match "*", exactly or by a "prefix*" rule. If every rule is covered nothing is
// lifted or copied. An invalid rule (no verbs, or resources mixed with non-resource URLs) makes
// OLM's check fail with an error, so nothing is lifted or copied either. Grants from outside the
// CSV (cluster-admin bindings, other operators' roles for a shared ServiceAccount, a
// ServiceAccount owned by another CSV) are not seen.
package rbac
