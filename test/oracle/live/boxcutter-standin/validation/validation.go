// Package validation is a stand-in for boxcutter's preflight validation (see the module's
// README.md): every function panics.
package validation

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"pkg.package-operator.run/boxcutter/internal/unavailable"
)

// PhaseValidator would validate a phase before it is reconciled.
type PhaseValidator struct{}

// NewClusterPhaseValidator would return a validator of cluster-scoped phases.
func NewClusterPhaseValidator(restMapper meta.RESTMapper, writer client.Writer) *PhaseValidator {
	unavailable.Panic("validation.NewClusterPhaseValidator")
	return nil
}

// RevisionValidator would validate a revision before it is reconciled.
type RevisionValidator struct{}

// NewRevisionValidator would return a revision validator.
func NewRevisionValidator() *RevisionValidator {
	unavailable.Panic("validation.NewRevisionValidator")
	return nil
}

// RevisionValidationError is a revision's preflight failure.
type RevisionValidationError struct{}

// Error would describe the failure.
func (*RevisionValidationError) Error() string {
	unavailable.Panic("RevisionValidationError.Error")
	return ""
}

// PhaseValidationError is a phase's preflight failure.
type PhaseValidationError struct{}

// Error would describe the failure.
func (*PhaseValidationError) Error() string {
	unavailable.Panic("PhaseValidationError.Error")
	return ""
}
