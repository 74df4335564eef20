// Package types declares boxcutter's revisions, phases, options and probes as operator-controller
// v1.11.0 uses them. It is a stand-in (see the module's README.md): every function and method
// panics.
package types

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"pkg.package-operator.run/boxcutter/internal/unavailable"
)

// Phase is a collection of objects lifecycled together.
type Phase interface {
	GetName() string
	GetObjects() []client.Object
}

// PhaseBuilder is a Phase options can be attached to.
type PhaseBuilder interface {
	Phase
	WithReconcileOptions(opts ...PhaseReconcileOption) PhaseBuilder
}

// NewPhase would create a phase.
func NewPhase(name string, objects []client.Object) PhaseBuilder {
	unavailable.Panic("types.NewPhase")
	return nil
}

// Revision is a set of phases at a point in time.
type Revision interface {
	GetName() string
	GetRevisionNumber() int64
	GetPhases() []Phase
}

// RevisionBuilder is a Revision options can be attached to.
type RevisionBuilder interface {
	Revision
	WithReconcileOptions(opts ...RevisionReconcileOption) RevisionBuilder
}

// OwnerStrategy sets and reads an object's owner.
type OwnerStrategy interface {
	SetControllerReference(owner, obj metav1.Object) error
	IsController(owner, obj metav1.Object) bool
}

// NewRevisionWithOwner would create a revision owned by owner.
func NewRevisionWithOwner(name string, revNumber int64, phases []Phase, owner client.Object, ownerStrat OwnerStrategy) RevisionBuilder {
	unavailable.Panic("types.NewRevisionWithOwner")
	return nil
}
