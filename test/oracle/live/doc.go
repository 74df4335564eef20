// Package live runs OLM v0.46.0 for real: its own olm-operator and catalog-operator binaries,
// built from the Go module proxy, against a real kube-apiserver and etcd (the envtest assets
// hack/envtest-assets.sh builds), with a catalog served over gRPC by operator-registry's own
// server code, the code `opm serve` runs.
//
// What is real: the API server (validation, defaulting, admission, server-side apply, the
// apiextensions server establishing CRDs and deleting their objects), every OLM controller and
// everything OLM does: resolution, InstallPlans and their approval, CSV phases, Deployments,
// RBAC, copied CSVs, OperatorConditions, Operator objects, webhook configurations and their
// certificates.
//
// What is stood in for, because no node and no kube-controller-manager run here (Kubelet):
//   - the deployment controller and the kubelet: a Deployment is marked rolled out and available
//     (status only; no ReplicaSet or Pod exists);
//   - the service account controller: every namespace gets its "default" ServiceAccount.
//
// What is missing: pods (nothing runs an operator's image, so nothing reconciles its custom
// resources or answers its webhooks), the aggregator's availability of an APIService backed by
// a Service (an operator that provides APIServices never becomes available), garbage collection
// by ownerReferences and namespace deletion (Reset deletes what a case created itself).
//
// A Cluster is started once and shared by many installs: Reset returns it to the state it had
// when it started, with OLM's controllers restarted. Controllers can be stopped and started
// (StopOLM, StartOLM) and objects edited behind their back through the clients, so that a test
// can drive upgrades and apply-time behaviour.
//
// Beside OLM v0, the same API server runs OLM v1 (StartV1): operator-controller and catalogd
// v1.11.0, built from the module proxy by V1Binaries with a declared stand-in for boxcutter (the
// Helm applier runs as released; the Boxcutter runtime is refused), catalogd serving its
// catalogs and its mutating webhook over TLS with a CA the harness makes, operator-controller
// trusting it, both pulling images through a registries.conf the test points at its in-process
// registry. cert-manager's CRDs are installed for the Issuers and Certificates operator-
// controller writes for webhooks; no cert-manager controller runs. Each controller runs in a
// mount namespace of its own holding its ServiceAccount's token where a pod has it.
package live
