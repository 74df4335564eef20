// Package oracle compares olm-render with OLM v0.46.0's own code, imported as a library: the
// RBAC OLM's InstallPlan creates for a CSV (resolver.RBACForClusterServiceVersion) and the
// Deployment changes of its install strategy and Subscription config overrides (the inject
// functions and the spec hash), for every CSV under ../shared/catalogs. It is a separate module
// so the product never depends on OLM; run it with `make test-oracle`.
package oracle
