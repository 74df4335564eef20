package types

import "sigs.k8s.io/controller-runtime/pkg/client"

// ProgressProbeType is the probe type that guards a phase's progression.
const ProgressProbeType = "Progress"

// Prober evaluates an object's state.
type Prober interface {
	Probe(obj client.Object) ProbeResult
}

// ProbeStatus is a probe's verdict.
type ProbeStatus string

// ProbeStatusTrue is a probe that passed.
const ProbeStatusTrue ProbeStatus = "True"

// ProbeResult is a probe's verdict and messages.
type ProbeResult struct {
	Status   ProbeStatus
	Messages []string
}

// ProbeResultContainer holds probe results by type.
type ProbeResultContainer map[string]ProbeResult
