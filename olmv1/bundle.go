package olmv1

import (
	"encoding/json"
	"fmt"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

// crdV1beta1 is the CRD API version Kubernetes stopped serving in 1.22.
const crdV1beta1 = "apiextensions.k8s.io/v1beta1"

// bundle is a registry+v1 bundle as operator-controller's bundle source reads it
// (rukpak/bundle/source): the CSV as written in the bundle (no API server defaults it), the
// CRDs decoded into apiextensions.k8s.io/v1's type, and every other object.
type bundle struct {
	pkg       string
	name      string
	csv       *v1alpha1.ClusterServiceVersion
	csvOrigin diag.Origin
	crds      []bundleCRD
	others    []catalog.Object
}

// bundleCRD is one CRD of a bundle, with the apiVersion it was written in.
type bundleCRD struct {
	apiextensionsv1.CustomResourceDefinition
	Origin diag.Origin
}

// readBundle reads a chosen bundle's manifests.
func readBundle(b *catalog.Bundle) (*bundle, error) {
	m, err := b.Manifests()
	if err != nil {
		return nil, err
	}
	out := &bundle{pkg: b.Package, name: b.Name, csv: m.CSV.DeepCopy(), csvOrigin: m.CSVOrigin}
	for _, o := range m.Objects {
		if o.GetKind() != "CustomResourceDefinition" {
			out.others = append(out.others, o)
			continue
		}
		crd, err := decodeCRD(o)
		if err != nil {
			return nil, err
		}
		out.crds = append(out.crds, crd)
	}
	return out, nil
}

// decodeCRD decodes a bundle CRD into the v1 type, whatever its apiVersion, as
// operator-controller's bundle source does (the apiVersion it was written in is kept).
func decodeCRD(o catalog.Object) (bundleCRD, error) {
	data, err := json.Marshal(o.Object)
	if err != nil {
		return bundleCRD{}, fmt.Errorf("%s: CustomResourceDefinition %s: %w", o.Origin, o.GetName(), err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(data, &crd); err != nil {
		return bundleCRD{}, fmt.Errorf("%s: CustomResourceDefinition %s: not a CustomResourceDefinition operator-controller can read: %w", o.Origin, o.GetName(), err)
	}
	return bundleCRD{CustomResourceDefinition: crd, Origin: o.Origin}, nil
}

// modes returns the install modes the CSV supports.
func (b *bundle) modes() map[v1alpha1.InstallModeType]bool {
	out := map[v1alpha1.InstallModeType]bool{}
	for _, m := range b.csv.Spec.InstallModes {
		if m.Supported {
			out[m.Type] = true
		}
	}
	return out
}

// csvObject names the CSV, for reasons.
func (b *bundle) csvObject() string { return "ClusterServiceVersion/" + b.csv.Name }

// webhookDeployments returns the deployments that serve webhooks.
func (b *bundle) webhookDeployments() map[string]bool {
	out := map[string]bool{}
	for _, wh := range b.csv.Spec.WebhookDefinitions {
		out[wh.DeploymentName] = true
	}
	return out
}
