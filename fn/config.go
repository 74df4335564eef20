package fn

import (
	"errors"
	"fmt"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/resid"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// The functionConfig's identity.
const (
	APIVersion = "olm-render.dev/v1alpha1"
	Kind       = "RenderConfig"
)

// RenderConfig configures the function.
type RenderConfig struct {
	APIVersion string           `json:"apiVersion" yaml:"apiVersion"`
	Kind       string           `json:"kind" yaml:"kind"`
	Metadata   map[string]any   `json:"metadata,omitempty" yaml:"metadata,omitempty"`
	Catalogs   []CatalogBinding `json:"catalogs,omitempty" yaml:"catalogs,omitempty"`
	Options    RenderOptions    `json:"options,omitempty" yaml:"options,omitempty"`
}

// CatalogBinding binds a catalog snapshot to a CatalogSource identity.
type CatalogBinding struct {
	Name      string `json:"name" yaml:"name"`
	Namespace string `json:"namespace" yaml:"namespace"`
	// Path is relative to the kustomization's directory.
	Path     string `json:"path" yaml:"path"`
	Priority *int   `json:"priority,omitempty" yaml:"priority,omitempty"`
}

// RenderOptions are the render options of the CLI.
type RenderOptions struct {
	AllowFailed            bool   `json:"allowFailed,omitempty" yaml:"allowFailed,omitempty"`
	KeepIntent             bool   `json:"keepIntent,omitempty" yaml:"keepIntent,omitempty"`
	IncludeOLMCRDs         bool   `json:"includeOLMCRDs,omitempty" yaml:"includeOLMCRDs,omitempty"`
	Status                 bool   `json:"status,omitempty" yaml:"status,omitempty"`
	GlobalCatalogNamespace string `json:"globalCatalogNamespace,omitempty" yaml:"globalCatalogNamespace,omitempty"`
	CertProvider           string `json:"certProvider,omitempty" yaml:"certProvider,omitempty"`
	KubeVersion            string `json:"kubeVersion,omitempty" yaml:"kubeVersion,omitempty"`
	Strict                 bool   `json:"strict,omitempty" yaml:"strict,omitempty"`
	AllowEmpty             bool   `json:"allowEmpty,omitempty" yaml:"allowEmpty,omitempty"`
	LoadRestrictor         string `json:"loadRestrictor,omitempty" yaml:"loadRestrictor,omitempty"`
	For                    string `json:"for,omitempty" yaml:"for,omitempty"`
	CopiedCSVs             *bool  `json:"copiedCSVs,omitempty" yaml:"copiedCSVs,omitempty"`
	// OLM is the cluster's OLM: absent (default) or running (render.Target).
	OLM string `json:"olm,omitempty" yaml:"olm,omitempty"`
}

// Schema returns the OpenAPI schema kyaml validates the config against.
func (c *RenderConfig) Schema() (*spec.Schema, error) {
	s, err := framework.SchemaFromFunctionDefinition(resid.Gvk{Group: "olm-render.dev", Version: "v1alpha1", Kind: Kind}, schemas.RenderConfigDefinition)
	if err != nil {
		return nil, fmt.Errorf("loading the RenderConfig schema: %w", err)
	}
	return s, nil
}

// CheckFields refuses a RenderConfig (YAML or JSON, from file) holding fields a RenderConfig
// does not have, naming each with the field it most likely meant (options.keepIntnet: did you
// mean options.keepIntent?). A document that does not decode is left to the decoder's own error.
func CheckFields(file string, data []byte) error {
	js, err := k8syaml.YAMLToJSON(data)
	if err != nil {
		return nil
	}
	unknown, err := inputs.UnknownFields(js, &RenderConfig{})
	if err != nil {
		return nil
	}
	var problems diag.Problems
	for _, f := range unknown {
		msg := "unknown field"
		if f.Suggestion != "" {
			msg += ": did you mean " + f.Suggestion + "?"
		}
		problems.Errorf(diag.Origin{File: file}, Kind, f.Path, "%s (a RenderConfig has no such field)", msg)
	}
	return problems.Err()
}

// Validate checks what the schema cannot.
func (c *RenderConfig) Validate() error {
	var errs []error
	if c.APIVersion != APIVersion || c.Kind != Kind {
		errs = append(errs, fmt.Errorf("functionConfig must be %s %s, got %s %s", APIVersion, Kind, c.APIVersion, c.Kind))
	}
	seen := map[string]bool{}
	for i, b := range c.Catalogs {
		if b.Name == "" || b.Namespace == "" || b.Path == "" {
			errs = append(errs, fmt.Errorf("catalogs[%d]: name, namespace and path are required", i))
		}
		key := b.Namespace + "/" + b.Name
		if seen[key] {
			errs = append(errs, fmt.Errorf("catalogs[%d]: %s is bound twice", i, key))
		}
		seen[key] = true
	}
	return errors.Join(errs...)
}
