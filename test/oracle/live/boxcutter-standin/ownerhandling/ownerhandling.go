// Package ownerhandling is a stand-in for boxcutter's owner strategies (see the module's
// README.md): every function panics.
package ownerhandling

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"pkg.package-operator.run/boxcutter/internal/unavailable"
)

// OwnerStrategyNative would own objects through ownerReferences.
type OwnerStrategyNative struct{}

// NewNative would return the native owner strategy.
func NewNative(scheme *runtime.Scheme) *OwnerStrategyNative {
	unavailable.Panic("ownerhandling.NewNative")
	return nil
}

// SetControllerReference would make owner obj's controller.
func (*OwnerStrategyNative) SetControllerReference(owner, obj metav1.Object) error {
	unavailable.Panic("OwnerStrategyNative.SetControllerReference")
	return nil
}

// IsController would report whether owner controls obj.
func (*OwnerStrategyNative) IsController(owner, obj metav1.Object) bool {
	unavailable.Panic("OwnerStrategyNative.IsController")
	return false
}
