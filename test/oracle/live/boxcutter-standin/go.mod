// A stand-in for pkg.package-operator.run/boxcutter, which the Go module proxy does not serve.
// See README.md: it declares the API surface operator-controller v1.11.0 compiles against, and
// fails loudly if anything but the Helm applier's tracking cache is ever used.
module pkg.package-operator.run/boxcutter

go 1.26.0

require (
	github.com/go-logr/logr v1.4.3
	k8s.io/apimachinery v0.36.2
	k8s.io/client-go v0.36.2
	sigs.k8s.io/controller-runtime v0.24.1
)
