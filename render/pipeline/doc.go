// Package pipeline runs olm-render's one-way data flow for the CLI, the KRM function and the
// Argo CD plugin: load (inputs and catalog snapshots) → resolve (Subscriptions to bundles) →
// render (bundles, OperatorGroups and Namespaces to objects). Emitting the objects is left to
// the caller (see render/emit), so the same run can feed a stream, a directory or a
// ResourceList.
package pipeline
