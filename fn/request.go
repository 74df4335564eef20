package fn

import (
	"fmt"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/gitops"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// Request returns the pipeline request a RenderConfig's options describe (without inputs).
func Request(c *RenderConfig) (pipeline.Request, error) {
	o := c.Options
	provider, err := webhook.ParseProvider(o.CertProvider)
	if err != nil {
		return pipeline.Request{}, fmt.Errorf("RenderConfig options.certProvider: %w", err)
	}
	restrictor, err := inputs.ParseLoadRestrictor(o.LoadRestrictor)
	if err != nil {
		return pipeline.Request{}, fmt.Errorf("RenderConfig options.loadRestrictor: %w", err)
	}
	if err := render.CheckKubeVersion(o.KubeVersion); err != nil {
		return pipeline.Request{}, fmt.Errorf("RenderConfig options.kubeVersion: %w", err)
	}
	engine, err := gitops.ParseEngine(o.For)
	if err != nil {
		return pipeline.Request{}, fmt.Errorf("RenderConfig options.for: %w", err)
	}
	target, err := render.ParseTarget(o.OLM)
	if err != nil {
		return pipeline.Request{}, fmt.Errorf("RenderConfig options.olm: %w", err)
	}
	v1, err := v1Options(o)
	if err != nil {
		return pipeline.Request{}, err
	}
	return pipeline.Request{
		Strict: o.Strict != nil && *o.Strict, AllowUnknownFields: o.Strict != nil && !*o.Strict,
		AllowEmpty: o.AllowEmpty, LoadRestrictor: restrictor,
		Resolve: resolver.Options{GlobalCatalogNamespace: o.GlobalCatalogNamespace, ForOLMv1: target == render.TargetV1},
		Render: render.Options{AllowFailed: o.AllowFailed, KeepIntent: o.KeepIntent, IncludeOLMCRDs: o.IncludeOLMCRDs,
			Status: o.Status, CertProvider: provider, KubeVersion: o.KubeVersion, Engine: engine,
			NoCopiedCSVs: o.CopiedCSVs != nil && !*o.CopiedCSVs, Target: target, V1: v1},
	}, nil
}

// v1Options reads the options of the OLM v1 target.
func v1Options(o RenderOptions) (olmv1.Options, error) {
	version, err := olmv1.ParseVersion(o.OperatorController)
	if err != nil {
		return olmv1.Options{}, fmt.Errorf("RenderConfig options.operatorController: %w", err)
	}
	gates, err := olmv1.ParseGates(o.FeatureGates)
	if err != nil {
		return olmv1.Options{}, fmt.Errorf("RenderConfig options.featureGates: %w", err)
	}
	return olmv1.Options{OperatorController: version, Gates: gates, AllowPartial: o.AllowPartial}, nil
}
