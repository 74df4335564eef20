// Package project reads a repository's project file, olm-render.yaml: a RenderConfig
// (apiVersion olm-render.dev/v1alpha1) holding the settings every command of the repository
// needs, so that no command line repeats them.
//
// # The file
//
// A RenderConfig is the functionConfig of the KRM function, and the same kind is the project
// file of the CLI and the Argo CD plugin:
//
//	apiVersion: olm-render.dev/v1alpha1
//	kind: RenderConfig
//	metadata:
//	  name: platform
//	options:
//	  olm: running                              # the cluster's OLM: absent or running
//	  globalCatalogNamespace: openshift-marketplace
//	  kubeVersion: v1.31.0
//	catalogs:                                   # snapshots bound to CatalogSources
//	- {namespace: openshift-marketplace, name: community, path: catalogs/community}
//	clusters:                                   # a fleet: one render per cluster
//	- {name: east, path: clusters/east, outputDir: rendered/east}
//
// Paths are relative to the file. Options map one to one to the command-line flags of the same
// meaning (Flags); a flag given on the command line overrides the file, and a cluster's own
// options override the file's for that cluster.
//
// # Finding it
//
// Find looks for olm-render.yaml in the directory of the first input and in each directory
// above it, up to and including the root every read is confined to: the nearest one wins.
package project
