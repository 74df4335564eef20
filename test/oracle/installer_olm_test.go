package oracle

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/install"
	corev1 "k8s.io/api/core/v1"

	"github.com/olm-render/olm-render/render/generated"
	"github.com/olm-render/olm-render/render/webhook"
)

// TestOLMCertificatesAgainstOLMInstaller compares, for every CSV with webhooks or owned
// APIServices, what olm-render predicts of OLM's own certificates (the OLM provider, for
// --olm=running) with OLM's: the Secret its installer creates (name, type, labels,
// annotations; its data and olmcahash generated, which OLM's holds), and each deployment spec
// as installCertRequirementsForDeployment leaves it (AddDefaultCertVolumeAndVolumeMounts,
// SetCAAnnotation), the values OLM generates standing as the prediction's placeholder.
func TestOLMCertificatesAgainstOLMInstaller(t *testing.T) {
	var compared, equal int
	check := func(what string, want, got any) {
		compared++
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-OLM +olm-render):\n%s", what, diff)
			return
		}
		equal++
	}
	for _, csv := range csvs(t) {
		if len(csv.Spec.WebhookDefinitions) == 0 && len(csv.Spec.APIServiceDefinitions.Owned) == 0 {
			continue
		}
		csv.APIVersion, csv.Kind = "operators.coreos.com/v1alpha1", "ClusterServiceVersion"
		theirs := olmCertObjects(t, csv)
		res, err := webhook.Render(webhook.Input{CSV: csv, Targets: []string{""}, Provider: webhook.OLM})
		if err != nil {
			t.Fatal(err)
		}
		ours := map[string]*corev1.Secret{}
		for _, o := range res.Objects {
			if s, ok := o.(*corev1.Secret); ok {
				ours[s.Name] = s
			}
		}
		if got, want := slices.Sorted(maps.Keys(ours)), slices.Sorted(maps.Keys(theirs.secrets)); !slices.Equal(got, want) {
			t.Errorf("%s: olm-render predicts Secrets %v, OLM creates %v", csv.Name, got, want)
		}
		for name, s := range theirs.secrets {
			if o := ours[name]; o != nil {
				check(csv.Name+" Secret "+name, secretAsPredicted(s), o)
			}
		}
		serving := map[string]bool{}
		for _, desc := range csv.Spec.WebhookDefinitions {
			serving[desc.DeploymentName] = true
		}
		for _, desc := range csv.Spec.APIServiceDefinitions.Owned {
			serving[desc.DeploymentName] = true
		}
		for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
			spec := d.Spec.DeepCopy()
			if err := res.MutateDeployment(d.Name, spec); err != nil {
				t.Fatal(err)
			}
			want := d.Spec.DeepCopy()
			if serving[d.Name] {
				if want.Template.Spec.ServiceAccountName == "" {
					want.Template.Spec.ServiceAccountName = "default"
				}
				install.AddDefaultCertVolumeAndVolumeMounts(want, install.SecretName(install.ServiceName(d.Name)))
				install.SetCAAnnotation(want, generated.Placeholder)
			}
			check(csv.Name+" deployment "+d.Name, want, spec)
		}
	}
	t.Logf("OLM's own certificates: %d of %d Secrets and deployment specs equal to OLM's", equal, compared)
	if compared < 50 {
		t.Errorf("only %d objects compared", compared)
	}
}

// secretAsPredicted is a Secret OLM's installer created as the prediction holds it: its data
// left out and its CA hash the placeholder, both listed as generated, which OLM's must hold.
func secretAsPredicted(s *corev1.Secret) *corev1.Secret {
	p := s.DeepCopy()
	p.APIVersion, p.Kind = "v1", "Secret"
	if len(p.Data) > 0 {
		p.Data = nil
		generated.Mark(p, generated.Pointer("data"))
	}
	if _, ok := p.Annotations[install.OLMCAHashAnnotationKey]; ok {
		p.Annotations[install.OLMCAHashAnnotationKey] = generated.Placeholder
		generated.Mark(p, generated.Pointer("metadata", "annotations", install.OLMCAHashAnnotationKey))
	}
	p.OwnerReferences = nil // the CSV's UID, which no render has (docs/offline.md)
	return p
}
