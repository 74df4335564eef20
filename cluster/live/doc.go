// Package live applies rendered objects to a cluster and compares them with it, the way Flux's
// kustomize-controller does: server-side apply through fluxcd/pkg/ssa's ResourceManager, in
// stages (CRDs, Namespaces and cluster definitions first, then the rest), and drift detection by
// server-side dry-run apply.
package live
