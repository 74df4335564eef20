package oracle

import (
	"fmt"
	"slices"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// wholeCase is one install: a bundle of a catalog, in one install mode.
type wholeCase struct {
	// Catalog is the snapshot's path, relative to the shared catalogs.
	Catalog string
	Package string
	Channel string
	Bundle  string
	Mode    v1alpha1.InstallModeType
}

// String names the case.
func (c wholeCase) String() string {
	return fmt.Sprintf("%s/%s@%s/%s", c.Catalog, c.Bundle, c.Channel, c.Mode)
}

// targetsOf are the target namespaces of each install mode's OperatorGroup; nil selects every
// namespace.
var targetsOf = map[v1alpha1.InstallModeType][]string{
	v1alpha1.InstallModeTypeOwnNamespace:    {opsNamespace},
	v1alpha1.InstallModeTypeSingleNamespace: {"team-a"},
	v1alpha1.InstallModeTypeMultiNamespace:  {"team-a", "team-b"},
	v1alpha1.InstallModeTypeAllNamespaces:   nil,
}

// modes lists the install modes in a fixed order.
var modes = []v1alpha1.InstallModeType{v1alpha1.InstallModeTypeOwnNamespace, v1alpha1.InstallModeTypeSingleNamespace,
	v1alpha1.InstallModeTypeMultiNamespace, v1alpha1.InstallModeTypeAllNamespaces}

// inputs returns the objects a user applies for the case.
func (c wholeCase) inputs() installInputs {
	in := installInputs{
		OperatorGroup: &operatorsv1.OperatorGroup{
			TypeMeta:   metav1.TypeMeta{APIVersion: operatorsv1.SchemeGroupVersion.String(), Kind: operatorsv1.OperatorGroupKind},
			ObjectMeta: metav1.ObjectMeta{Name: "og", Namespace: opsNamespace},
			Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: targetsOf[c.Mode]},
		},
		CatalogSource: &v1alpha1.CatalogSource{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.CatalogSourceKind},
			ObjectMeta: metav1.ObjectMeta{Name: "catalog", Namespace: olmNamespace},
			Spec:       v1alpha1.CatalogSourceSpec{SourceType: v1alpha1.SourceTypeGrpc, DisplayName: "catalog"},
		},
		Subscription: &v1alpha1.Subscription{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.SubscriptionKind},
			ObjectMeta: metav1.ObjectMeta{Name: c.Package, Namespace: opsNamespace},
			Spec: &v1alpha1.SubscriptionSpec{Package: c.Package, Channel: c.Channel, StartingCSV: c.Bundle,
				CatalogSource: "catalog", CatalogSourceNamespace: olmNamespace, InstallPlanApproval: v1alpha1.ApprovalAutomatic},
		},
	}
	for _, ns := range []string{olmNamespace, opsNamespace, "team-a", "team-b"} {
		in.Namespaces = append(in.Namespaces, &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	return in
}

// casesOf returns the cases of a catalog: every bundle with manifests, in a channel that holds
// it (its package's default channel when it does), in every install mode its CSV supports.
func casesOf(path string, c *catalog.Catalog) ([]wholeCase, error) {
	var out []wholeCase
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			if !b.HasManifests() || len(b.Channels) == 0 {
				continue
			}
			m, err := b.Manifests()
			if err != nil {
				continue
			}
			channel := b.Channels[0]
			if slices.Contains(b.Channels, p.DefaultChannel) {
				channel = p.DefaultChannel
			}
			for _, mode := range modes {
				if supports(m.CSV, mode) {
					out = append(out, wholeCase{Catalog: path, Package: p.Name, Channel: channel, Bundle: b.Name, Mode: mode})
				}
			}
		}
	}
	return out, nil
}

// supports reports whether a CSV supports an install mode.
func supports(csv *v1alpha1.ClusterServiceVersion, mode v1alpha1.InstallModeType) bool {
	for _, m := range csv.Spec.InstallModes {
		if m.Type == mode {
			return m.Supported
		}
	}
	return false
}
