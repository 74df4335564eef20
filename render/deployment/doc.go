// Package deployment renders the Deployments OLM v0's install strategy creates for a CSV
// (pkg/controller/install/deployment.go), with every change OLM makes, in OLM's order: the CSV's
// annotations onto the pod template, OLM's labels, the Subscription's spec.config overrides with
// OLM's merge rules (pkg/controller/operators/olm/overrides/inject), OPERATOR_CONDITION_NAME,
// revisionHistoryLimit 1 and the olm.deployment-spec-hash label; and the OperatorCondition OLM
// creates for the CSV, with its Role and RoleBinding.
//
// # Deviations
//
//   - No ownerReferences: they need the CSV's UID, which only a live cluster has.
//   - Proxy variables: OLM adds HTTP_PROXY/HTTPS_PROXY/NO_PROXY from OpenShift's cluster Proxy
//     when spec.config.env sets none of them; offline there is no cluster Proxy, as on upstream
//     Kubernetes, so none are added.
//   - OLM's env merge turns a variable declared twice in a container into the last value plus an
//     empty-named variable, which the API server rejects; here a duplicate keeps its last value
//     once. Nobody can depend on a Deployment the API server refuses.
//   - OLM clears the whole affinity when spec.config.affinity has an empty podAntiAffinity; that
//     bug is reproduced, since users may have worked around it.
package deployment
