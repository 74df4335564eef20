// Package probing is a stand-in for boxcutter's probes (see the module's README.md): every
// probe panics.
package probing

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"pkg.package-operator.run/boxcutter/internal/unavailable"
	"pkg.package-operator.run/boxcutter/machinery/types"
)

// Prober evaluates an object's state.
type Prober = types.Prober

// Result is a probe's verdict.
type Result = types.ProbeResult

// And would pass when every probe passes.
type And []Prober

// Probe would run every probe.
func (And) Probe(client.Object) Result {
	unavailable.Panic("probing.And.Probe")
	return Result{}
}

// ConditionProbe would check a status condition.
type ConditionProbe struct {
	Type   string
	Status string
}

// Probe would check the condition.
func (*ConditionProbe) Probe(client.Object) Result {
	unavailable.Panic("probing.ConditionProbe.Probe")
	return Result{}
}

// FieldsEqualProbe would check that two fields are equal.
type FieldsEqualProbe struct {
	FieldA string
	FieldB string
}

// Probe would compare the fields.
func (*FieldsEqualProbe) Probe(client.Object) Result {
	unavailable.Panic("probing.FieldsEqualProbe.Probe")
	return Result{}
}

// FieldValueProbe would check a field's value.
type FieldValueProbe struct {
	FieldPath string
	Value     string
}

// Probe would check the field.
func (*FieldValueProbe) Probe(client.Object) Result {
	unavailable.Panic("probing.FieldValueProbe.Probe")
	return Result{}
}

// ObservedGenerationProbe would wait for the observed generation before probing.
type ObservedGenerationProbe struct {
	Prober
}

// Probe would probe once the generation is observed.
func (*ObservedGenerationProbe) Probe(client.Object) Result {
	unavailable.Panic("probing.ObservedGenerationProbe.Probe")
	return Result{}
}

// GroupKindSelector would probe objects of one group and kind.
type GroupKindSelector struct {
	Prober
	schema.GroupKind
}

// Probe would probe a matching object.
func (*GroupKindSelector) Probe(client.Object) Result {
	unavailable.Panic("probing.GroupKindSelector.Probe")
	return Result{}
}

// LabelSelector would probe objects matching a label selector.
type LabelSelector struct {
	Prober
	labels.Selector
}

// Probe would probe a matching object.
func (*LabelSelector) Probe(client.Object) Result {
	unavailable.Panic("probing.LabelSelector.Probe")
	return Result{}
}
