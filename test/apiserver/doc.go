// Package apiserver proves renders on a real Kubernetes API server: kube-apiserver and etcd
// built from the Go module proxy (hack/envtest-assets.sh), started with controller-runtime's
// envtest, and rendered output applied the way Flux applies it (fluxcd/pkg/ssa, server-side, in
// stages). `make test` and `make test-e2e` set KUBEBUILDER_ASSETS; without it the suite skips,
// except under CI (CI set), where it fails.
package apiserver
