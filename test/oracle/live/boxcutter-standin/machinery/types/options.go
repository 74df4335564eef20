package types

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"pkg.package-operator.run/boxcutter/internal/unavailable"
)

// RevisionReconcileOption changes how a revision is reconciled.
type RevisionReconcileOption interface {
	ApplyToRevisionReconcileOptions()
}

// RevisionTeardownOption changes how a revision is torn down.
type RevisionTeardownOption interface {
	ApplyToRevisionTeardownOptions()
}

// PhaseReconcileOption changes how a phase is reconciled.
type PhaseReconcileOption interface {
	ApplyToPhaseReconcileOptions()
	RevisionReconcileOption
}

// ObjectReconcileOption changes how an object is reconciled.
type ObjectReconcileOption interface {
	ApplyToObjectReconcileOptions()
	PhaseReconcileOption
}

// CollisionProtection says which objects already on the cluster may be taken over.
type CollisionProtection string

// WithCollisionProtection is the option setting CollisionProtection.
type WithCollisionProtection CollisionProtection

// ApplyToObjectReconcileOptions would set the option.
func (WithCollisionProtection) ApplyToObjectReconcileOptions() {
	unavailable.Panic("WithCollisionProtection.ApplyToObjectReconcileOptions")
}

// ApplyToPhaseReconcileOptions would set the option.
func (WithCollisionProtection) ApplyToPhaseReconcileOptions() {
	unavailable.Panic("WithCollisionProtection.ApplyToPhaseReconcileOptions")
}

// ApplyToRevisionReconcileOptions would set the option.
func (WithCollisionProtection) ApplyToRevisionReconcileOptions() {
	unavailable.Panic("WithCollisionProtection.ApplyToRevisionReconcileOptions")
}

// WithSiblingOwnerClassifier classifies unknown controllers as sibling revisions.
type WithSiblingOwnerClassifier func(ownerRef metav1.OwnerReference) bool

// ApplyToObjectReconcileOptions would set the option.
func (WithSiblingOwnerClassifier) ApplyToObjectReconcileOptions() {
	unavailable.Panic("WithSiblingOwnerClassifier.ApplyToObjectReconcileOptions")
}

// ApplyToPhaseReconcileOptions would set the option.
func (WithSiblingOwnerClassifier) ApplyToPhaseReconcileOptions() {
	unavailable.Panic("WithSiblingOwnerClassifier.ApplyToPhaseReconcileOptions")
}

// ApplyToRevisionReconcileOptions would set the option.
func (WithSiblingOwnerClassifier) ApplyToRevisionReconcileOptions() {
	unavailable.Panic("WithSiblingOwnerClassifier.ApplyToRevisionReconcileOptions")
}

// WithSiblingOwners would classify the given objects as siblings.
func WithSiblingOwners(siblings []client.Object) WithSiblingOwnerClassifier {
	unavailable.Panic("types.WithSiblingOwners")
	return nil
}

// WithProbe would register a probe of the given type.
func WithProbe(t string, probe Prober) ObjectReconcileOption {
	unavailable.Panic("types.WithProbe")
	return nil
}

// WithAggregatePhaseReconcileErrors would aggregate a phase's object errors.
func WithAggregatePhaseReconcileErrors() PhaseReconcileOption {
	unavailable.Panic("types.WithAggregatePhaseReconcileErrors")
	return nil
}

// WithObjectReconcileOptions would apply options to one object only.
func WithObjectReconcileOptions(obj client.Object, opts ...ObjectReconcileOption) PhaseReconcileOption {
	unavailable.Panic("types.WithObjectReconcileOptions")
	return nil
}
