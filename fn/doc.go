// Package fn is olm-render as a KRM function (the KRM Functions Specification, through kyaml's
// fn/framework): a kustomize transformer that replaces the Subscriptions, OperatorGroups and
// CatalogSources it is given by every object OLM would create for them, keeps Namespaces, and
// passes every other resource through unchanged.
//
// Its functionConfig is a RenderConfig (apiVersion olm-render.dev/v1alpha1): catalogs (name,
// namespace, path, priority) and render options. Catalog paths are relative to the
// kustomization's directory (the function's working directory) and may not leave it. Problems
// are returned as results with severity, resourceRef, field and file; any error-severity result
// makes the function exit non-zero, warnings never do.
package fn
