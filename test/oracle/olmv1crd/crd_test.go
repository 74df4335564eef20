// Package olmv1crd validates the ClusterCatalogs and ClusterExtensions olm-render emits for
// OLM v1 against operator-controller's own CRDs (testdata/crds, copied with their source
// commits), as the API server would on create: pruning, defaulting, OpenAPI validation and the
// CRDs' CEL rules. It lives in the oracle module because CEL validation needs k8s.io/apiserver,
// which the product does not depend on.
package olmv1crd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/test/fixture"
)

// schema is the v1 schema of a CRD, with what validates it.
type schema struct {
	structural *structuralschema.Structural
	openAPI    validation.SchemaValidator
	cel        *cel.Validator
}

// loadSchema reads a CRD file's v1 version.
func loadSchema(t *testing.T, path string) schema {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	i := slices.IndexFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == "v1" })
	if i < 0 {
		t.Fatalf("%s: no v1", path)
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[i].Schema.OpenAPIV3Schema, internal, nil); err != nil {
		t.Fatal(err)
	}
	s, err := structuralschema.NewStructural(internal)
	if err != nil {
		t.Fatal(err)
	}
	openAPI, _, err := validation.NewSchemaValidator(internal)
	if err != nil {
		t.Fatal(err)
	}
	return schema{structural: s, openAPI: openAPI, cel: cel.NewValidator(s, true, celconfig.PerCallLimit)}
}

// create does to an object what the API server does on create: it prunes unknown fields
// (returned), defaults, and validates (the errors returned).
func (s schema) create(obj *unstructured.Unstructured) (pruned []string, errs field.ErrorList) {
	x := obj.DeepCopy().Object
	pruned = pruning.PruneWithOptions(x, s.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	defaulting.PruneNonNullableNullsWithoutDefaults(x, s.structural)
	defaulting.Default(x, s.structural)
	errs = validation.ValidateCustomResource(nil, x, s.openAPI)
	celErrs, _ := s.cel.Validate(context.Background(), nil, s.structural, x, nil, celconfig.RuntimeCELCostBudget)
	return pruned, append(errs, celErrs...)
}

// render renders one of olmv1's test inputs.
func render(t *testing.T, name string, opts olmv1.Options) []*unstructured.Unstructured {
	t.Helper()
	set, err := inputs.Load([]string{filepath.Join("..", "..", "..", "olmv1", "testdata", name, "input")}, fixture.Options(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := resolver.Resolve(context.Background(), set, resolver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := olmv1.Render(set, res, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out.Objects
}

// TestOLMv1CRDs validates what the renders of olmv1's test inputs apply against
// operator-controller's CRDs: every ClusterCatalog against both channels' CRD; a ClusterExtension
// without spec.config against both channels' CRD; one with spec.config against the experimental
// CRD, while the standard CRD prunes spec.config (it needs the experimental CRD, which the gates
// come with); one for v1.10 (naming its installer) against v1.10.0's CRD, which one for v1.11
// (naming none) fails.
func TestOLMv1CRDs(t *testing.T) {
	crds := func(version, channel, kind string) schema {
		return loadSchema(t, filepath.Join("testdata", "crds", version, channel, "olm.operatorframework.io_"+kind+".yaml"))
	}
	tests := []struct {
		name, input string
		opts        olmv1.Options
		version     string
		channel     string
		// pruned is what the CRD prunes of the ClusterExtension; invalid what it refuses.
		pruned, invalid string
	}{
		{"v1.11, standard", "kube-green", olmv1.Options{}, "v1.11.0", "standard", "", ""},
		{"v1.11, experimental", "kube-green", olmv1.Options{}, "v1.11.0", "experimental", "", ""},
		{"config, experimental", "gates", olmv1.Options{Gates: olmv1.Gates}, "v1.11.0", "experimental", "", ""},
		{"config, standard", "gates", olmv1.Options{Gates: olmv1.Gates}, "v1.11.0", "standard", "spec.config", ""},
		{"installer on v1.10", "kube-green", olmv1.Options{OperatorController: olmv1.Version{Major: 1, Minor: 10}}, "v1.10.0", "standard", "", ""},
		{"installer on v1.11 (deprecated, accepted)", "kube-green", olmv1.Options{OperatorController: olmv1.Version{Major: 1, Minor: 10}}, "v1.11.0", "standard", "", ""},
		{"no installer on v1.10", "kube-green", olmv1.Options{}, "v1.10.0", "standard", "", "spec.serviceAccount: Required value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extensions := crds(tt.version, tt.channel, "clusterextensions")
			var catalogs *schema
			if tt.version == "v1.11.0" {
				s := crds(tt.version, tt.channel, "clustercatalogs")
				catalogs = &s
			}
			n := 0
			for _, o := range render(t, tt.input, tt.opts) {
				var s *schema
				switch o.GetKind() {
				case "ClusterExtension":
					s = &extensions
				case "ClusterCatalog":
					s = catalogs
				}
				if s == nil {
					continue
				}
				n++
				pruned, errs := s.create(o)
				if got := strings.Join(pruned, ","); o.GetKind() == "ClusterExtension" && got != tt.pruned || o.GetKind() == "ClusterCatalog" && got != "" {
					t.Errorf("%s %s: pruned %q, want %q", o.GetKind(), o.GetName(), got, tt.pruned)
				}
				got := errs.ToAggregate()
				switch {
				case tt.invalid == "" && got != nil:
					t.Errorf("%s %s: %v", o.GetKind(), o.GetName(), got)
				case tt.invalid != "" && o.GetKind() == "ClusterExtension" && (got == nil || !strings.Contains(got.Error(), tt.invalid)):
					t.Errorf("%s %s: %v, want %q", o.GetKind(), o.GetName(), got, tt.invalid)
				}
			}
			if n < 2 && tt.version == "v1.11.0" || n < 1 {
				t.Errorf("validated %d objects", n)
			}
		})
	}
}
