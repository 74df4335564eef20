// Package diff compares two renders object by object, the way a reviewer reads a pull request:
// a summary of added, deleted and modified objects, the operator upgrades the change amounts to,
// then one unified diff per object.
//
// # Normalisation
//
// Before comparing, every object is normalised with fluxcd/pkg/ssa's normalize package (the same
// defaulting Flux applies before a dry-run diff), fields named by Options.IgnoreFields are
// removed, and Secret values are masked (ssa.SanitizeUnstructuredData): a Secret's diff shows
// which keys changed, never their values.
//
// # Identity
//
// Objects are matched by group, kind, namespace and name, so an apiVersion change shows as a
// modification. Changes are ordered as ssa.ReconcileOrder orders kinds, then by namespace and name.
//
// # Formats
//
// Text is a summary followed by unified diffs; Markdown is meant for a pull-request comment (the
// summary first, one <details> block per object) and stays under a size budget, cutting long
// diffs and then whole objects, and saying so; JSON carries the same data for tools.
package diff
