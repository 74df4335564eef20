// Package permissions computes what a render lets each subject do, and whether a pull request
// that changes the render (typically an operator upgrade) makes those permissions grow.
//
// It reads the RBAC objects among a render's objects (Roles, ClusterRoles, RoleBindings and
// ClusterRoleBindings of group rbac.authorization.k8s.io; every other kind is ignored), resolves
// each binding to its role, and expands the role's rules into atomic Grants: one subject, one
// scope, one apiGroup, one resource, one resourceName and one verb (or one non-resource URL and
// one verb).
//
// # Subjects and scopes
//
// A ServiceAccount subject is written "namespace/name"; a ServiceAccount subject of a
// RoleBinding without a namespace lives in the binding's namespace, as the API server defaults
// it. User and Group subjects are written "User:name" and "Group:name".
//
// A RoleBinding grants its role's rules in its own namespace (Grant.Namespace); a
// ClusterRoleBinding grants its ClusterRole's rules cluster-wide (Grant.Namespace ""). Rules on
// non-resource URLs only take effect through a ClusterRoleBinding, so a RoleBinding contributes
// none: the Kubernetes authorizer ignores them there too.
//
// # Matching by content
//
// Grants carry no role or binding names. OLM names the roles and bindings it generates after
// the ClusterServiceVersion and a hash of the rules (for example
// "etcdoperator.v0.9.4-7bhms0aunrepbgjou8jyb3p9f43edgvgrq6tmg"), so two renders are compared by
// what they grant, never by object name: renaming a role or a binding without changing its rules
// or subjects changes nothing.
//
// # Wildcards and coverage
//
// Wildcards ("*" verbs, apiGroups, resources, "*/subresource" resources and "prefix*"
// non-resource URLs) are kept as written, never expanded. When comparing, a grant of the new
// render is new only if no grant of the old render for the same subject covers it, with the
// semantics of the Kubernetes RBAC authorizer: a "*" verb, apiGroup or resource covers any
// value, "*/scale" covers every scale subresource, an empty resourceName covers every name,
// "/apis*" covers every URL under /apis, and a cluster-wide grant covers the same grant in any
// namespace. Removals are found the same way in the other direction.
//
// # Changes
//
// Compare classifies every uncovered grant as "added" or "removed", except that a cluster-wide
// grant whose content the old render already granted in some namespace is "widened". Grants are
// grouped into Changes for review: one Change per subject, kind, scope, apiGroup and
// resourceName for the resources (or non-resource URLs) that share the same set of verbs, which
// usually reproduces the PolicyRule a reviewer reads in the ClusterServiceVersion. Each Change
// lists the reasons it deserves attention in Sensitive (secrets, wildcards, escalate, bind,
// impersonate, writes to pods/exec, RBAC, admission webhooks or CRDs, nodes/proxy, widening to
// cluster-wide). Summary turns Changes into one line each.
//
// # Unknown roles
//
// A binding whose role is not among the objects (a built-in role such as "view", or a role
// created outside the render) grants permissions this package cannot see. They are never
// dropped: the binding yields, for each subject, one marker Grant whose Resource reads
// "<unknown ClusterRole/view>" (or "<unknown Role/name>"), whose Verb is empty and whose other
// fields are empty except Subject and Namespace. A marker is covered only by the same marker (in
// the same namespace or cluster-wide), so binding a subject to a role outside the render is
// reported as "added" (and counts for Grew), and dropping such a binding as "removed". Their
// Sensitive reason is "unknown permissions". Because the role's name is all that is known, a
// rename of a missing role shows as a removal plus an addition.
//
// # Aggregated ClusterRoles
//
// A ClusterRole with an aggregationRule is a user-facing role (OLM generates per-API admin, edit
// and view roles, and per-OperatorGroup roles); by itself it grants nothing to anybody, and
// neither its rules nor its selectors are looked at unless a binding refers to it. When one is
// bound, its grants are, conservatively, the union of its own rules and the rules of every
// ClusterRole of the render its clusterRoleSelectors select (itself excluded, followed
// transitively through selected roles that aggregate in turn). The aggregation controller of a
// real cluster would replace its own rules by the rules of the selected roles, and could select
// roles that are not part of the render, so the bound role also yields, per selector, a marker
// Grant whose Resource reads "<aggregated ClusterRoles matching SELECTOR>" (treated like an
// unknown role's marker). Labels that make a ClusterRole contribute to the cluster's built-in
// admin, edit and view roles are not evaluated: those roles are not part of a render.
//
// # Errors
//
// Objects the API server would reject are errors rather than guesses, such as wrong types, a
// missing roleRef, a RoleBinding or Role without a namespace, a ServiceAccount subject of a
// ClusterRoleBinding without a namespace, a rule without verbs, a resource rule without apiGroups
// or resources, a rule that mixes resources and non-resource URLs, a Role with non-resource URLs,
// or two roles of the same kind, namespace and name. Empty strings among verbs, resources,
// resourceNames and nonResourceURLs are refused as well, since "" has a meaning of its own in a
// Grant (any name, not a resource, a marker). Such an
// error is a *MalformedError naming the object ("Kind/namespace/name", or "Kind/name" without a
// namespace) and the field, such as "rules[0].verbs[1]". A render expanding to more than
// MaxGrants grants is an error too, so that hostile input cannot exhaust memory.
//
// # Determinism
//
// Permissions sorts its grants, and Compare its changes, so their output depends neither on map
// iteration nor on the order of the objects.
package permissions
