package oracle

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/operator-framework/api/crds"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/olm-render/olm-render/schemas/stored"
)

// olmSchemas are the structural schemas of OLM's CRDs (operator-framework/api's), by group,
// resource and version and by group, version and kind, as the API server serves them
// (customresource_handler.go: the structural schema with its defaults pruned).
var olmSchemas = sync.OnceValues(func() (map[any]*structuralschema.Structural, error) {
	out := map[any]*structuralschema.Structural{}
	for _, crd := range []*apiextensionsv1.CustomResourceDefinition{
		crds.CatalogSource(), crds.ClusterServiceVersion(), crds.InstallPlan(), crds.OLMConfig(),
		crds.Operator(), crds.OperatorCondition(), crds.OperatorGroup(), crds.Subscription(),
	} {
		for _, v := range crd.Spec.Versions {
			internal := &apiextensionsinternal.CustomResourceValidation{}
			if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
				return nil, err
			}
			s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", crd.Name, v.Name, err)
			}
			s = s.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(s); err != nil {
				return nil, err
			}
			out[schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}] = s
			out[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = s
		}
	}
	return out, nil
})

// storeCustomResource does to an object of one of OLM's kinds written to the fake cluster what
// the API server does to a custom resource it stores (customresource_handler.go: prune the
// fields the schema does not know, drop the nulls it does not allow, fill in its defaults),
// with the API server's own packages.
func storeCustomResource(gvr schema.GroupVersionResource, obj runtime.Object) error {
	all, err := olmSchemas()
	if err != nil {
		return err
	}
	s, ok := all[gvr]
	if !ok {
		return nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	storeWith(m, s)
	return replaceObject(obj, m)
}

// storeWith prunes and defaults an object with a structural schema, in place.
func storeWith(m map[string]any, s *structuralschema.Structural) {
	structuralpruning.PruneWithOptions(m, s, true, structuralschema.UnknownFieldPathOptions{})
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(m, s)
	structuraldefaulting.Default(m, s)
}

// storedRender returns the render's objects of OLM's kinds as the API server would store them
// (the fake cluster stores what OLM writes that way too); other objects are left alone.
func storedRender(objs []map[string]any) ([]map[string]any, error) {
	all, err := olmSchemas()
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		gv, err := schema.ParseGroupVersion(str(o["apiVersion"]))
		if s, ok := all[gv.WithKind(str(o["kind"]))]; err == nil && ok {
			o = deepCopyJSON(o).(map[string]any)
			storeWith(o, s)
		}
		out = append(out, o)
	}
	return out, nil
}

// TestStoredCSVsAgainstAPIServer compares olm-render's stored form of every CSV of the corpus
// (schemas/stored, which the render builds Deployments and their spec hash from) with the API
// server's own pruning and defaulting of it.
func TestStoredCSVsAgainstAPIServer(t *testing.T) {
	gvr := v1alpha1.SchemeGroupVersion.WithResource("clusterserviceversions")
	changed := 0
	all := csvs(t)
	for _, csv := range all {
		theirs := csv.DeepCopy()
		theirs.APIVersion, theirs.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.ClusterServiceVersionKind
		if err := storeCustomResource(gvr, theirs); err != nil {
			t.Fatalf("%s: %v", csv.Name, err)
		}
		ours, err := stored.CSV(csv)
		if err != nil {
			t.Fatalf("%s: %v", csv.Name, err)
		}
		ours.APIVersion, ours.Kind = theirs.APIVersion, theirs.Kind
		if diff := cmp.Diff(theirs, ours); diff != "" {
			t.Errorf("%s (-API server +olm-render):\n%s", csv.Name, diff)
		}
		if !equality.Semantic.DeepEqual(theirs.Spec, csv.Spec) {
			changed++
		}
	}
	t.Logf("%d of %d CSVs are changed by their CRD's defaults; olm-render's stored form equals the API server's for all", changed, len(all))
}
