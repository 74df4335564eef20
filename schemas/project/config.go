package project

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/olm-render/olm-render/schemas"
)

// The kind's identity.
const (
	APIVersion = "olm-render.dev/v1alpha1"
	Kind       = "RenderConfig"
)

// FileName is the name of a project file.
const FileName = "olm-render.yaml"

// Config is a RenderConfig: the KRM function's functionConfig, and the project file.
type Config struct {
	APIVersion string         `json:"apiVersion" yaml:"apiVersion"`
	Kind       string         `json:"kind" yaml:"kind"`
	Metadata   map[string]any `json:"metadata,omitempty" yaml:"metadata,omitempty"`
	// Catalogs bind catalog snapshots to CatalogSources, overriding their
	// olm-render.dev/catalog annotations.
	Catalogs []CatalogBinding `json:"catalogs,omitempty" yaml:"catalogs,omitempty"`
	// Options are the render options, as the command-line flags of the same meaning.
	Options Options `json:"options,omitempty" yaml:"options,omitempty"`
	// Clusters are the clusters of a fleet, each rendered from its own inputs into its own
	// output directory (a project file only; the KRM function renders what kustomize gives it).
	Clusters []Cluster `json:"clusters,omitempty" yaml:"clusters,omitempty"`
}

// CatalogBinding binds a catalog snapshot to a CatalogSource identity.
type CatalogBinding struct {
	Name      string `json:"name" yaml:"name"`
	Namespace string `json:"namespace" yaml:"namespace"`
	// Path is relative to the file declaring the binding (for the KRM function, to the
	// kustomization's directory), or oci://REF.
	Path     string `json:"path" yaml:"path"`
	Priority *int   `json:"priority,omitempty" yaml:"priority,omitempty"`
}

// Options are the render options. Each has the name of a command-line flag (Flags).
type Options struct {
	AllowFailed            bool   `json:"allowFailed,omitempty" yaml:"allowFailed,omitempty"`
	KeepIntent             bool   `json:"keepIntent,omitempty" yaml:"keepIntent,omitempty"`
	IncludeOLMCRDs         bool   `json:"includeOLMCRDs,omitempty" yaml:"includeOLMCRDs,omitempty"`
	Status                 bool   `json:"status,omitempty" yaml:"status,omitempty"`
	GlobalCatalogNamespace string `json:"globalCatalogNamespace,omitempty" yaml:"globalCatalogNamespace,omitempty"`
	// CertProvider supplies the serving certificates of webhooks and APIServices where OLM
	// does not run (olm: absent); where it runs, OLM generates its own.
	CertProvider string `json:"certProvider,omitempty" yaml:"certProvider,omitempty"`
	KubeVersion  string `json:"kubeVersion,omitempty" yaml:"kubeVersion,omitempty"`
	// Strict true makes every warning about the inputs an error; false makes unknown fields of
	// the kinds a render interprets warnings; unset, they are errors and other warnings stay
	// warnings.
	Strict         *bool  `json:"strict,omitempty" yaml:"strict,omitempty"`
	AllowEmpty     bool   `json:"allowEmpty,omitempty" yaml:"allowEmpty,omitempty"`
	LoadRestrictor string `json:"loadRestrictor,omitempty" yaml:"loadRestrictor,omitempty"`
	For            string `json:"for,omitempty" yaml:"for,omitempty"`
	CopiedCSVs     *bool  `json:"copiedCSVs,omitempty" yaml:"copiedCSVs,omitempty"`
	// OLM is the cluster's OLM: absent (default), running (OLM v0 keeps running) or v1
	// (operator-controller) (render.Target).
	OLM string `json:"olm,omitempty" yaml:"olm,omitempty"`
	// OperatorController is, with olm: v1, the operator-controller version (v1.11 by default).
	OperatorController string `json:"operatorController,omitempty" yaml:"operatorController,omitempty"`
	// FeatureGates are, with olm: v1, operator-controller's alpha gates that are on.
	FeatureGates []string `json:"featureGates,omitempty" yaml:"featureGates,omitempty"`
	// AllowPartial leaves, with olm: v1, a Subscription OLM v1 cannot take to OLM v0.
	AllowPartial bool `json:"allowPartial,omitempty" yaml:"allowPartial,omitempty"`
}

// Cluster is one cluster of a fleet.
type Cluster struct {
	// Name names the cluster on the command line (--cluster) and in messages.
	Name string `json:"name" yaml:"name"`
	// Path is the cluster's inputs (a directory or a kustomization), relative to the project
	// file; its lock is beside them.
	Path string `json:"path" yaml:"path"`
	// OutputDir is where the cluster's render is written, relative to the project file.
	OutputDir string `json:"outputDir,omitempty" yaml:"outputDir,omitempty"`
	// Context is the cluster's kubeconfig context, for the commands that read the cluster
	// (status) when they run for the fleet.
	Context string `json:"context,omitempty" yaml:"context,omitempty"`
	// Catalogs bind snapshots for this cluster only, overriding the project's bindings of the
	// same CatalogSources.
	Catalogs []CatalogBinding `json:"catalogs,omitempty" yaml:"catalogs,omitempty"`
	// Options override the project's for this cluster.
	Options json.RawMessage `json:"options,omitempty" yaml:"options,omitempty"`
}

// Schema returns the OpenAPI schema kyaml validates a functionConfig against.
func (c *Config) Schema() (*spec.Schema, error) {
	s, err := framework.SchemaFromFunctionDefinition(resid.Gvk{Group: "olm-render.dev", Version: "v1alpha1", Kind: Kind}, schemas.RenderConfigDefinition)
	if err != nil {
		return nil, fmt.Errorf("loading the RenderConfig schema: %w", err)
	}
	return s, nil
}

// Validate checks what the schema cannot: the identity, bindings named and bound once, and
// clusters named once with their paths inside the project.
func (c *Config) Validate() error {
	var errs []error
	if c.APIVersion != APIVersion || c.Kind != Kind {
		errs = append(errs, fmt.Errorf("want apiVersion %s, kind %s; got %s %s", APIVersion, Kind, c.APIVersion, c.Kind))
	}
	errs = append(errs, validateBindings("catalogs", c.Catalogs)...)
	names := map[string]bool{}
	for i, cl := range c.Clusters {
		at := fmt.Sprintf("clusters[%d]", i)
		switch {
		case cl.Name == "":
			errs = append(errs, fmt.Errorf("%s.name: a cluster needs a name", at))
		case names[cl.Name]:
			errs = append(errs, fmt.Errorf("%s.name: cluster %q is declared twice", at, cl.Name))
		}
		names[cl.Name] = true
		if err := checkRelative(at+".path", cl.Path, true); err != nil {
			errs = append(errs, err)
		}
		if err := checkRelative(at+".outputDir", cl.OutputDir, false); err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, validateBindings(at+".catalogs", cl.Catalogs)...)
		if _, err := c.ClusterOptions(cl); err != nil {
			errs = append(errs, fmt.Errorf("%s.options: %w", at, err))
		}
	}
	return errors.Join(errs...)
}

// validateBindings checks that each binding names its CatalogSource and path, once.
func validateBindings(field string, bindings []CatalogBinding) []error {
	var errs []error
	seen := map[string]bool{}
	for i, b := range bindings {
		if b.Name == "" || b.Namespace == "" || b.Path == "" {
			errs = append(errs, fmt.Errorf("%s[%d]: name, namespace and path are required", field, i))
		}
		key := b.Namespace + "/" + b.Name
		if seen[key] {
			errs = append(errs, fmt.Errorf("%s[%d]: %s is bound twice", field, i, key))
		}
		seen[key] = true
	}
	return errs
}

// checkRelative refuses a path that is absolute or leaves the project's directory.
func checkRelative(field, p string, required bool) error {
	switch {
	case p == "":
		if required {
			return fmt.Errorf("%s: required, relative to the project file", field)
		}
		return nil
	case path.IsAbs(p) || strings.HasPrefix(p, "/"):
		return fmt.Errorf("%s: %q must be relative to the project file", field, p)
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("%s: %q leaves the project's directory", field, p)
	}
	return nil
}

// Cluster returns the cluster of a name, or nil.
func (c *Config) Cluster(name string) *Cluster {
	i := slices.IndexFunc(c.Clusters, func(cl Cluster) bool { return cl.Name == name })
	if i < 0 {
		return nil
	}
	return &c.Clusters[i]
}

// ClusterNames lists the clusters' names in the order declared.
func (c *Config) ClusterNames() []string {
	out := make([]string, len(c.Clusters))
	for i, cl := range c.Clusters {
		out[i] = cl.Name
	}
	return out
}
