package render

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// crdV1beta1 is the CRD API version Kubernetes stopped serving in 1.22.
const crdV1beta1 = "apiextensions.k8s.io/v1beta1"

// typedKinds are the kinds of bundle objects OLM's InstallPlan decodes into a Go type and writes
// with a typed client (catalog/operator.go ExecutePlan, which matches the step's kind alone);
// objects of other kinds go through the dynamic client as written.
var typedKinds = map[string]func() (any, string){
	"ClusterRole":        func() (any, string) { return &rbacv1.ClusterRole{}, rbacv1.SchemeGroupVersion.String() },
	"ClusterRoleBinding": func() (any, string) { return &rbacv1.ClusterRoleBinding{}, rbacv1.SchemeGroupVersion.String() },
	"Role":               func() (any, string) { return &rbacv1.Role{}, rbacv1.SchemeGroupVersion.String() },
	"RoleBinding":        func() (any, string) { return &rbacv1.RoleBinding{}, rbacv1.SchemeGroupVersion.String() },
	"ServiceAccount":     func() (any, string) { return &corev1.ServiceAccount{}, "v1" },
	"Service":            func() (any, string) { return &corev1.Service{}, "v1" },
	"ConfigMap":          func() (any, string) { return &corev1.ConfigMap{}, "v1" },
	// A BundleSecret step (resolver/steps.go): any object of kind Secret, whatever its group.
	"Secret": func() (any, string) { return &corev1.Secret{}, "v1" },
}

// typedObject returns a bundle object as OLM's InstallPlan sends it to the API server. A CRD is
// decoded into the typed CustomResourceDefinition of its API version (lib/crd UnmarshalV1 and
// UnmarshalV1Beta1); an object of a typedKinds kind into its Go type, and written with the
// typed client's API version (a v1beta1 RBAC object is written as v1); encoding/json
// underneath in both cases. The round trip drops what the type does not hold (a v1 CRD's
// spec.version) and the zero values it omits (spec.preserveUnknownFields: false in v1,
// priority: 0 of a printer column, empty lists and maps), so the render holds exactly what OLM
// writes. Objects of other kinds are returned as they are.
func typedObject(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var (
		typed      any
		apiVersion = u.GetAPIVersion()
	)
	switch kind := u.GetKind(); {
	case kind == "CustomResourceDefinition" && apiVersion == apiextensionsv1.SchemeGroupVersion.String():
		typed = &apiextensionsv1.CustomResourceDefinition{}
	case kind == "CustomResourceDefinition" && apiVersion == crdV1beta1:
		typed = &apiextensionsv1beta1.CustomResourceDefinition{}
	case kind == "CustomResourceDefinition":
		return nil, fmt.Errorf("CustomResourceDefinition %s: apiVersion %q: OLM installs only apiextensions.k8s.io/v1 and v1beta1 CRDs (lib/crd Version)",
			u.GetName(), apiVersion)
	case typedKinds[kind] != nil:
		typed, apiVersion = typedKinds[kind]()
	default:
		return u, nil
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	if err := json.Unmarshal(data, typed); err != nil {
		return nil, fmt.Errorf("%s %s: not a valid %s %s (OLM fails the install step): %w", u.GetKind(), u.GetName(), u.GetAPIVersion(), u.GetKind(), err)
	}
	if data, err = json.Marshal(typed); err != nil {
		return nil, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	out := &unstructured.Unstructured{Object: map[string]any{}}
	if err := utiljson.Unmarshal(data, &out.Object); err != nil {
		return nil, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	dropNulls(out.Object)
	out.SetAPIVersion(apiVersion)
	out.SetKind(u.GetKind())
	return out, nil
}

// dropNulls removes the fields a Go type encodes as null (a nil list without omitempty, such as
// a ClusterRole's rules): the API server reads them as absent.
func dropNulls(m map[string]any) {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			dropNulls(v)
		case []any:
			for _, e := range v {
				if e, ok := e.(map[string]any); ok {
					dropNulls(e)
				}
			}
		}
	}
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

// foreignSecret warns about a bundle object of kind Secret outside the core group: OLM's
// InstallPlan turns every object of kind Secret into a BundleSecret step and writes a core v1
// Secret of that name from it (resolver/steps.go NewStepResourceFromObject), so the custom
// resource itself is never created; the render does the same.
func (r *renderer) foreignSecret(in *install, o catalog.Object) {
	gvk := o.GroupVersionKind()
	if gvk.Kind != "Secret" || gvk.Group == "" {
		return
	}
	r.warnings.Warnf(o.Origin, gvk.Kind+"."+gvk.Group+"/"+o.GetName(), "kind",
		"bundle %s ships an object of kind Secret in API group %s: OLM's InstallPlan writes a core v1 Secret of that name from it instead (BundleSecret step), and so does the render; the %s object is never created",
		in.sel.Bundle.Name, gvk.Group, gvk.Group)
}
