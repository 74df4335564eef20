// Package migrate plans the move of operators from OLM v0 to OLM v1 (operator-controller), from
// Git, before anything touches a cluster: which Subscriptions v1 can take over (olmv1.Check's
// verdicts), what the cluster holds before and after (the objects OLM v0 created, by the v0
// render, against what operator-controller will create, by the v1 render), and the ordered
// steps that hand each installed operator over without deleting its CRDs, its custom resources
// or its workload.
//
// # The cluster diff
//
// Each object of the two renders that belongs to a Subscription v1 takes is classed:
//
//   - untouched: a CRD both create. It must survive the move: deleting it deletes every custom
//     resource of it. v1 takes it over as it is.
//   - adopted: an object both create under the same name (the operator's Deployment, its
//     ServiceAccounts, Services, webhook configurations): v1 takes it over.
//   - renamed: RBAC both create with the same rules, under v0's name (FNV-32a hash) and v1's
//     (<csv>-<serviceaccount>-<sha224 hash>).
//   - dropped: what v0 created that v1 will not own: the CSV and its copies, the
//     OperatorCondition and its RBAC, the Operator object, the OperatorGroup's aggregation
//     ClusterRoles, the per-CRD admin/edit/view ClusterRoles, v0's webhook certificates.
//   - added: what only v1 creates: the ClusterExtension and ClusterCatalog, RBAC without a v0
//     counterpart, certificate-provider objects.
//
// Objects are attributed to a Subscription by what OLM writes on them: the olm.owner labels
// (the CSV), the component label operators.coreos.com/<package>.<namespace>, a CRD's
// installed-alongside annotation, and for v1 the owner-name label of the ClusterExtension.
package migrate
