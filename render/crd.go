package render

import (
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// crdV1beta1 is the CRD API version Kubernetes stopped serving in 1.22.
const crdV1beta1 = "apiextensions.k8s.io/v1beta1"

// typedCRD returns a bundle CRD as OLM's InstallPlan sends it to the API server: decoded into
// the typed CustomResourceDefinition of its API version (lib/crd UnmarshalV1 and
// UnmarshalV1Beta1, encoding/json underneath) and encoded again by the typed client. The round
// trip drops what the type does not hold (a v1 CRD's spec.version or spec.validation) and the
// zero values it omits (spec.preserveUnknownFields: false in v1, priority: 0 of a printer
// column, empty lists and maps), so the render holds exactly what OLM writes.
func typedCRD(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var typed any
	switch u.GetAPIVersion() {
	case apiextensionsv1.SchemeGroupVersion.String():
		typed = &apiextensionsv1.CustomResourceDefinition{}
	case crdV1beta1:
		typed = &apiextensionsv1beta1.CustomResourceDefinition{}
	default:
		return nil, fmt.Errorf("CustomResourceDefinition %s: apiVersion %q: OLM installs only apiextensions.k8s.io/v1 and v1beta1 CRDs (lib/crd Version)",
			u.GetName(), u.GetAPIVersion())
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: %w", u.GetName(), err)
	}
	if err := json.Unmarshal(data, typed); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: not a valid %s CRD (OLM fails the install step): %w", u.GetName(), u.GetAPIVersion(), err)
	}
	if data, err = json.Marshal(typed); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: %w", u.GetName(), err)
	}
	out := map[string]any{}
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: %w", u.GetName(), err)
	}
	return &unstructured.Unstructured{Object: out}, nil
}

// legacyCRD reports a bundle CRD of apiextensions.k8s.io/v1beta1, which Kubernetes serves only
// before 1.22: OLM's CRD step then fails (catalog/step.go NewCRDV1Beta1Step) and the operator is
// not installed. With a cluster version of 1.22 or later it is an error, without one a warning.
func (r *renderer) legacyCRD(in *install, o catalog.Object) error {
	if o.GetKind() != "CustomResourceDefinition" || o.GetAPIVersion() != crdV1beta1 {
		return nil
	}
	const why = "Kubernetes serves apiextensions.k8s.io/v1beta1 CRDs only before 1.22; OLM's InstallPlan fails on a newer cluster"
	object := "CustomResourceDefinition/" + o.GetName()
	if v, ok := r.kubeVersion(); ok {
		if v.Major > 1 || v.Minor >= 22 {
			return fmt.Errorf("%s: %s: apiVersion: %s, and the cluster runs %s: choose a bundle that ships v1 CRDs (bundle %s)",
				o.Origin, object, why, r.opts.KubeVersion, in.sel.Bundle.Name)
		}
		return nil
	}
	r.warnings.Warnf(o.Origin, object, "apiVersion", "%s (bundle %s); pass --kube-version to check against the cluster", why, in.sel.Bundle.Name)
	return nil
}
