package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/gitops"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// Options control a render.
type Options struct {
	// AllowFailed renders a CSV OLM would fail with its phase, reason and message and without
	// Deployments, instead of failing the render.
	AllowFailed bool
	// KeepIntent also emits the Subscriptions (declared and generated) and CatalogSources.
	KeepIntent bool
	// IncludeOLMCRDs adds the operators.coreos.com CRDs, so the output applies to a cluster
	// that runs no OLM.
	IncludeOLMCRDs bool
	// Status renders the status OLM would write on CSVs (phase, reason, message).
	Status bool
	// CertProvider supplies the serving certificates of webhooks and APIServices where OLM's
	// controllers do not run (TargetAbsent); webhook.CertManager when empty. Where OLM runs
	// (TargetRunning) it generates its own and none may be chosen: the prediction holds OLM's
	// objects, with what OLM generates marked (package generated).
	CertProvider webhook.Provider
	// KubeVersion is the cluster's Kubernetes version (v1.30.2): a CSV whose minKubeVersion is
	// higher stays Pending (RequirementsNotMet), as OLM leaves it. Not checked when empty.
	KubeVersion string
	// Engine is the tool that applies the render (gitops.Kubectl when empty): Argo CD's sync
	// waves and sync options, or Flux's prune marks, are added for it (see package gitops).
	Engine gitops.Engine
	// Target is the kind of cluster the render is for (TargetAbsent when empty): with
	// TargetRunning, Result.Objects are what to apply where OLM keeps running and
	// Result.Prediction the objects OLM will create. TargetV1 is not rendered here but by
	// package olmv1, to which pipeline.Render hands it with V1.
	Target Target
	// V1 describes the operator-controller a TargetV1 render is for (its version, its feature
	// gates, its certificate provider) and whether a Subscription v1 cannot take fails the
	// render. pipeline.Render fills V1.CertProvider and V1.Engine from CertProvider and Engine
	// when they are empty, so one --cert-provider and one engine serve every target. The other
	// targets ignore it.
	V1 olmv1.Options
	// NoCopiedCSVs leaves out every copied CSV (OLMConfig's disableCopiedCSVs leaves out only
	// those of AllNamespaces operators, as OLM does): for renders no olm-operator reads.
	NoCopiedCSVs bool
}

// Result is a render's output.
type Result struct {
	// Objects are sorted in apply order (see emit.Sort).
	Objects []*unstructured.Unstructured
	// Prediction are, with TargetRunning, the objects OLM will create, each marked so that
	// nothing applies it (LocalConfigAnnotation, PredictionAnnotation), for review; sorted.
	Prediction []*unstructured.Unstructured
	// Warnings did not fail the render.
	Warnings diag.Problems
}

// Failure is a render that failed because OLM would fail one or more CSVs.
type Failure struct {
	CSVs []CSVFailure
}

// CSVFailure is one CSV OLM would not install: Failed, or Pending with unmet requirements.
type CSVFailure struct {
	Namespace, CSV string
	// Phase is the phase OLM leaves the CSV in: Failed, or Pending for unmet requirements.
	Phase v1alpha1.ClusterServiceVersionPhase
	// OperatorGroup is the CSV's OperatorGroup, when it has exactly one.
	OperatorGroup string
	Reason        string
	Message       string
	// Subscription is the Subscription that installs the CSV, with its origin.
	Subscription *inputs.Subscription
	// Fix says what to change, when olm-render can tell.
	Fix string
	// Cause is the problem of the user's own object that decides the failure, when one does (the
	// OperatorGroup whose targets the CSV does not support): reported before the failure.
	Cause *diag.Problem
}

// Error lists the failures, one a line.
func (f *Failure) Error() string {
	lines := make([]string, 0, len(f.CSVs))
	for _, c := range f.CSVs {
		lines = append(lines, c.String())
	}
	return strings.Join(lines, "\n")
}

// String describes the failure with the files and objects involved.
func (c CSVFailure) String() string {
	outcome := "would fail"
	if c.Phase == v1alpha1.CSVPhasePending {
		outcome = "would stay Pending"
	}
	s := fmt.Sprintf("ClusterServiceVersion %s/%s %s: %s: %s", c.Namespace, c.CSV, outcome, c.Reason, c.Message)
	if c.Subscription != nil {
		s += fmt.Sprintf(" (Subscription %s/%s", c.Subscription.Namespace, c.Subscription.Name)
		if o := c.Subscription.Origin.String(); o != "" {
			s += " in " + o
		}
		s += ")"
	}
	if c.OperatorGroup != "" {
		s += fmt.Sprintf(" (OperatorGroup %s/%s)", c.Namespace, c.OperatorGroup)
	}
	if c.Fix != "" {
		s += ": " + c.Fix
	}
	return s
}

// Problems returns the failures as problems, for the KRM function's results and the command
// line: the user's own objects that decide them first (Cause), then each failure.
func (f *Failure) Problems() diag.Problems {
	var causes, out diag.Problems
	for _, c := range f.CSVs {
		if c.Cause != nil {
			causes.Add(*c.Cause)
		}
	}
	for _, c := range f.CSVs {
		p := diag.Problem{Severity: diag.Error, Object: "ClusterServiceVersion/" + c.Namespace + "/" + c.CSV, Field: "status.reason",
			Message: fmt.Sprintf("%s: %s", c.Reason, c.Message)}
		if c.Fix != "" {
			p.Message += ": " + c.Fix
		}
		if c.Subscription != nil {
			p.Origin, p.Field = c.Subscription.Origin, "spec"
			p.Object = "Subscription/" + c.Subscription.Namespace + "/" + c.Subscription.Name
		}
		out = append(out, p)
	}
	return append(causes.Sorted(), out.Sorted()...)
}

// Render renders the objects OLM would create for a resolution. TargetV1 is package olmv1's
// (pipeline.Render dispatches it): asked for it, Render fails.
func Render(set *inputs.Set, res *resolver.Result, opts Options) (*Result, error) {
	if opts.Target == TargetV1 {
		return nil, fmt.Errorf("OLM target %s is rendered by package olmv1 (pipeline.Render dispatches it)", TargetV1)
	}
	provider, err := certProvider(opts)
	if err != nil {
		return nil, err
	}
	opts.CertProvider = provider
	if opts.Target == TargetRunning {
		// The prediction holds the Subscriptions OLM generates for dependencies, too.
		opts.KeepIntent = true
	}
	r := newRenderer(set, opts)
	if err := r.plan(res); err != nil {
		return nil, err
	}
	if len(r.failures) > 0 && !opts.AllowFailed {
		slices.SortFunc(r.failures, func(a, b CSVFailure) int {
			return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.CSV, b.CSV))
		})
		return nil, &Failure{CSVs: r.failures}
	}
	if err := r.render(); err != nil {
		return nil, err
	}
	objs, err := r.out.objects()
	if err != nil {
		return nil, err
	}
	emit.Sort(objs)
	var prediction []*unstructured.Unstructured
	if opts.Target == TargetRunning {
		if objs, prediction, err = r.running(res, objs); err != nil {
			return nil, err
		}
		emit.Sort(objs)
	}
	objs, notes, err := gitops.Prepare(objs, opts.Engine)
	if err != nil {
		return nil, err
	}
	r.warnings = append(r.warnings, notes...)
	return &Result{Objects: objs, Prediction: prediction, Warnings: r.warnings.Sorted()}, nil
}

// certProvider returns the certificate provider of a render: OLM's own where OLM runs, and
// the one chosen (cert-manager when none is) where it does not. A provider chosen for a
// cluster where OLM runs is an error, as is OLM's own for one where it does not.
func certProvider(opts Options) (webhook.Provider, error) {
	switch {
	case opts.Target == TargetRunning && opts.CertProvider != "":
		return "", fmt.Errorf("certificate provider %s: OLM generates its own certificates where it runs (--olm=running), and the prediction shows them; --cert-provider applies to --olm=absent", opts.CertProvider)
	case opts.Target == TargetRunning:
		return webhook.OLM, nil
	case opts.CertProvider == webhook.OLM:
		return "", fmt.Errorf("certificate provider %s: OLM generates its own certificates only where it runs (--olm=running); where it does not, use cert-manager, openshift-service-ca or none", opts.CertProvider)
	case opts.CertProvider == "":
		return webhook.CertManager, nil
	}
	return opts.CertProvider, nil
}

// CheckKubeVersion validates a cluster's Kubernetes version as Options.KubeVersion takes it:
// v1.30.2, 1.30.2 or 1.30.2-gke.100 ("" for none).
func CheckKubeVersion(v string) error {
	if v == "" {
		return nil
	}
	if _, err := semver.Parse(strings.Split(strings.TrimPrefix(v, "v"), "-")[0]); err != nil {
		return fmt.Errorf("%q: want MAJOR.MINOR.PATCH, e.g. v1.30.2", v)
	}
	return nil
}
