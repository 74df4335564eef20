// Package render renders every object OLM v0 would create for resolved Subscriptions: for each
// chosen bundle, the CSV with its OperatorGroup annotations, its CRDs and other bundle objects,
// the RBAC of its install strategy (lifted for AllNamespaces groups, copied for Single- and
// MultiNamespace groups), its Deployments, its OperatorCondition, its per-API ClusterRoles and
// its copied CSVs; for each OperatorGroup, its status.namespaces, its olm.providedAPIs
// annotation and its aggregation ClusterRoles; the Operator objects of OLM's operator
// controller; and the adoption labels. Membership failures (no or several OperatorGroups,
// unsupported install modes, no target namespaces, provided-API conflicts between groups) are
// errors with OLM's reasons and messages, or, with AllowFailed, a Failed CSV and no Deployments,
// as OLM leaves the cluster.
//
// See docs/olm-differences.md and docs/offline.md for what is deliberately different from a live
// cluster (UIDs and ownerReferences, status, generated names and certificates).
package render
