// Package machinery is a stand-in for boxcutter's revision, phase and object engines (see the
// module's README.md): every function and method panics.
package machinery

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"pkg.package-operator.run/boxcutter/internal/unavailable"
	"pkg.package-operator.run/boxcutter/machinery/types"
	"pkg.package-operator.run/boxcutter/validation"
)

// Action is what the engine did to an object.
type Action string

// ActionCollision is an object the engine refused to take over.
const ActionCollision Action = "Collision"

// ObjectResult is what reconciling an object came to.
type ObjectResult interface {
	Action() Action
	Object() client.Object
	ProbeResults() types.ProbeResultContainer
	String() string
}

// PhaseResult is what reconciling a phase came to.
type PhaseResult interface {
	GetValidationError() *validation.PhaseValidationError
	GetObjects() []ObjectResult
	IsComplete() bool
}

// RevisionResult is what reconciling a revision came to.
type RevisionResult interface {
	GetValidationError() *validation.RevisionValidationError
	GetPhases() []PhaseResult
	InTransition() bool
	IsComplete() bool
	String() string
}

// RevisionTeardownResult is what tearing a revision down came to.
type RevisionTeardownResult interface {
	IsComplete() bool
}

// Comparator would compare desired and actual objects.
type Comparator struct{}

// NewComparator would return a comparator.
func NewComparator(discoveryClient discovery.OpenAPIV3SchemaInterface, scheme *runtime.Scheme, fieldOwner string) *Comparator {
	unavailable.Panic("machinery.NewComparator")
	return nil
}

// ObjectEngine would reconcile single objects.
type ObjectEngine struct{}

// NewObjectEngine would return an object engine.
func NewObjectEngine(
	scheme *runtime.Scheme, cache client.Reader, writer client.Writer, comparator *Comparator,
	fieldOwner, systemPrefix, managedBy string, unfilteredReader client.Reader,
) *ObjectEngine {
	unavailable.Panic("machinery.NewObjectEngine")
	return nil
}

// PhaseEngine would reconcile phases.
type PhaseEngine struct{}

// NewPhaseEngine would return a phase engine.
func NewPhaseEngine(objectEngine *ObjectEngine, phaseValidator *validation.PhaseValidator) *PhaseEngine {
	unavailable.Panic("machinery.NewPhaseEngine")
	return nil
}

// RevisionEngine would reconcile and tear down revisions.
type RevisionEngine struct{}

// NewRevisionEngine would return a revision engine.
func NewRevisionEngine(phaseEngine *PhaseEngine, revisionValidator *validation.RevisionValidator, writer client.Writer) *RevisionEngine {
	unavailable.Panic("machinery.NewRevisionEngine")
	return nil
}

// Reconcile would roll a revision out.
func (*RevisionEngine) Reconcile(ctx context.Context, rev types.Revision, opts ...types.RevisionReconcileOption) (RevisionResult, error) {
	unavailable.Panic("RevisionEngine.Reconcile")
	return nil, nil
}

// Teardown would remove a revision's objects.
func (*RevisionEngine) Teardown(ctx context.Context, rev types.Revision, opts ...types.RevisionTeardownOption) (RevisionTeardownResult, error) {
	unavailable.Panic("RevisionEngine.Teardown")
	return nil, nil
}
