// Package boxcutter is a stand-in for pkg.package-operator.run/boxcutter, which the Go module
// proxy does not serve: it declares what operator-controller v1.11.0's Boxcutter runtime compiles
// against, and every function panics (see README.md). The harness runs the Helm applier.
package boxcutter

import "pkg.package-operator.run/boxcutter/machinery/types"

// Phase is a collection of objects lifecycled together.
type Phase = types.Phase

// RevisionBuilder is a revision options can be attached to.
type RevisionBuilder = types.RevisionBuilder

// RevisionReconcileOption changes how a revision is reconciled.
type RevisionReconcileOption = types.RevisionReconcileOption

// WithCollisionProtection is the option setting collision protection.
type WithCollisionProtection = types.WithCollisionProtection

// ProgressProbeType is the probe type that guards a phase's progression.
const ProgressProbeType = types.ProgressProbeType

// The constructors and options of the Boxcutter runtime; each panics.
var (
	NewPhase                          = types.NewPhase
	NewRevisionWithOwner              = types.NewRevisionWithOwner
	WithSiblingOwners                 = types.WithSiblingOwners
	WithProbe                         = types.WithProbe
	WithAggregatePhaseReconcileErrors = types.WithAggregatePhaseReconcileErrors
	WithObjectReconcileOptions        = types.WithObjectReconcileOptions
)
