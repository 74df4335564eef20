// Package stored gives objects of OLM's kinds the form the API server stores them in. OLM's
// kinds are custom resources: before storing one, the API server prunes the fields its CRD's
// schema does not know, drops nulls the schema does not allow, and fills in the schema's
// defaults (apiextensions-apiserver's customresource_handler: structuralpruning.PruneWithOptions,
// PruneNonNullableNullsWithoutDefaults, structuraldefaulting.Default; defaults.go). OLM's controllers then
// work from the stored object: a CSV whose bundle leaves out a container port's protocol
// reaches the olm-operator with `protocol: TCP`, which is in the Deployment it builds and in
// the olm.deployment-spec-hash it computes.
//
// The CRDs are operator-framework/api's, the ones OLM installs; this package applies their
// schemas with the API server's own structural schema and pruning code.
package stored

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/operator-framework/api/crds"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// schemas are the structural schemas of OLM's kinds, by group, version and kind.
var schemas = sync.OnceValues(func() (map[schema.GroupVersionKind]*structuralschema.Structural, error) {
	out := map[schema.GroupVersionKind]*structuralschema.Structural{}
	for _, crd := range []*apiextensionsv1.CustomResourceDefinition{
		crds.CatalogSource(), crds.ClusterServiceVersion(), crds.InstallPlan(), crds.OLMConfig(),
		crds.Operator(), crds.OperatorCondition(), crds.OperatorGroup(), crds.Subscription(),
	} {
		for _, v := range crd.Spec.Versions {
			s, err := structural(v.Schema)
			if err != nil {
				return nil, fmt.Errorf("the schema of %s %s: %w", crd.Name, v.Name, err)
			}
			out[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = s
		}
	}
	return out, nil
})

// structural returns a version's structural schema. (The API server also prunes the unknown
// fields of object-valued defaults, structuraldefaulting.PruneDefaults; every default of OLM's
// CRDs is a scalar.)
func structural(val *apiextensionsv1.CustomResourceValidation) (*structuralschema.Structural, error) {
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Apply gives an object (apiVersion and kind set) of one of OLM's kinds its stored form, in
// place; it reports whether the object is of one of OLM's kinds. Objects of other kinds are
// left alone.
func Apply(obj map[string]any) (bool, error) {
	all, err := schemas()
	if err != nil {
		return false, err
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return false, nil
	}
	s, ok := all[gv.WithKind(kind)]
	if !ok {
		return false, nil
	}
	structuralpruning.PruneWithOptions(obj, s, true, structuralschema.UnknownFieldPathOptions{})
	pruneNulls(obj, s)
	applyDefaults(obj, s)
	return true, nil
}

// CSV returns a ClusterServiceVersion in its stored form.
func CSV(csv *v1alpha1.ClusterServiceVersion) (*v1alpha1.ClusterServiceVersion, error) {
	out := &v1alpha1.ClusterServiceVersion{}
	if err := roundTrip(csv, v1alpha1.SchemeGroupVersion.WithKind(v1alpha1.ClusterServiceVersionKind), out); err != nil {
		return nil, fmt.Errorf("ClusterServiceVersion %s: %w", csv.Name, err)
	}
	return out, nil
}

// Subscription returns a Subscription in its stored form.
func Subscription(sub *v1alpha1.Subscription) (*v1alpha1.Subscription, error) {
	out := &v1alpha1.Subscription{}
	if err := roundTrip(sub, v1alpha1.SchemeGroupVersion.WithKind(v1alpha1.SubscriptionKind), out); err != nil {
		return nil, fmt.Errorf("Subscription %s/%s: %w", sub.Namespace, sub.Name, err)
	}
	return out, nil
}

// roundTrip converts a typed object to its unstructured form, applies the stored form and
// converts it back into out.
func roundTrip(in any, gvk schema.GroupVersionKind, out any) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(in)
	if err != nil {
		return err
	}
	m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
	if _, err := Apply(m); err != nil {
		return err
	}
	// The unstructured converter keeps numbers as int64 or float64; a JSON round trip decodes
	// them as the typed fields want.
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}
