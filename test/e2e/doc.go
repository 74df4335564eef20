// Package e2e runs olm-render with the real tools users run it with: a real kustomize v5 binary
// (installed by `make tools` into bin/tools) building examples/kustomize with the olm-render KRM
// function, and the Argo CD plugin contract.
package e2e
