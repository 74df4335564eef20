// Package oracle compares olm-render with OLM v0.46.0's own code, imported as a library: the
// RBAC OLM's InstallPlan creates for a CSV (resolver.RBACForClusterServiceVersion) and the
// Deployment changes of its install strategy and Subscription config overrides (the inject
// functions and the spec hash), for every CSV under ../shared/catalogs; its resolver on seeded
// random problems; and, in TestWholeInstall, whole installs: OLM's olm-operator queues, the
// catalog operator's InstallPlan execution and its controller-runtime reconcilers installing
// each channel head of the corpus (every bundle with -whole-all) in every install mode it
// supports on a fake cluster, every object compared with the render (testdata/whole-report.txt
// holds the agreement by kind and by case, and every known difference with the OLM code that
// decides it; -whole-catalogs runs it on any other catalogs, say a checkout of a community
// catalog).
//
// The live tests (live_*_test.go, on package live) run OLM v0.46.0 for real: its olm-operator and
// catalog-operator binaries against a real kube-apiserver and etcd, installing from a file-based
// catalog served by operator-registry's gRPC server (docs/live-olm.md). TestLiveInstall holds
// every channel head of the corpus's operators catalog, in every install mode, against the render
// and against the in-process oracle side by side (testdata/live-report.txt); TestLiveQuickstart
// and TestLiveUpgrade install the quickstart and walk etcd's replaces chain; TestLiveRunning runs
// --olm=running with `olm-render approve` (testdata/live-running.txt).
//
// It is a separate module so the product never depends on OLM; run it with `make test-oracle`
// (the live tests alone: `make test-live`).
package oracle
