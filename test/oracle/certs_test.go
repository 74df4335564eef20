package oracle

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/install"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/webhook"
)

// TestCertResourcesAgainstOLM compares, for every CSV with webhooks or owned APIServices, the
// Deployment's certificate volumes and mounts with OLM's AddDefaultCertVolumeAndVolumeMounts,
// and the names of the Service, Secret, certificate RBAC and certificate hostnames with OLM's
// naming functions. (The Service and RBAC objects themselves OLM builds inside its installer,
// against a client; they are checked by golden tests and the API server suite.)
func TestCertResourcesAgainstOLM(t *testing.T) {
	var compared, equal int
	for _, csv := range csvs(t) {
		res, err := webhook.Render(webhook.Input{CSV: csv, Targets: []string{""}, Provider: webhook.CertManager})
		if err != nil {
			t.Errorf("%s: %v", csv.Name, err)
			continue
		}
		names := map[string]bool{}
		var hosts [][]string
		for _, o := range res.Objects {
			switch o := o.(type) {
			case interface{ GetName() string }:
				names[o.GetName()] = true
			}
			if u, ok := o.(*unstructured.Unstructured); ok && u.GetKind() == "Certificate" {
				dns, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "dnsNames")
				hosts = append(hosts, dns)
			}
		}
		for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
			ours := d.Spec.DeepCopy()
			if err := res.MutateDeployment(d.Name, ours); err != nil {
				t.Fatal(err)
			}
			if cmp.Equal(ours, d.Spec.DeepCopy()) {
				continue // serves no webhook or APIService
			}
			service := install.ServiceName(d.Name)
			theirs := d.Spec.DeepCopy()
			if theirs.Template.Spec.ServiceAccountName == "" {
				theirs.Template.Spec.ServiceAccountName = "default"
			}
			install.AddDefaultCertVolumeAndVolumeMounts(theirs, install.SecretName(service))
			compared++
			ok := true
			if diff := cmp.Diff(theirs, ours); diff != "" {
				t.Errorf("%s deployment %s volumes and mounts (-OLM +olm-render):\n%s", csv.Name, d.Name, diff)
				ok = false
			}
			for _, name := range []string{service, install.SecretName(service), install.AuthDelegatorClusterRoleBindingName(service), install.AuthReaderRoleBindingName(service)} {
				if !names[name] {
					t.Errorf("%s: no object named %s (OLM's name)", csv.Name, name)
					ok = false
				}
			}
			if !slices.ContainsFunc(hosts, func(h []string) bool { return slices.Equal(h, install.HostnamesForService(service, csv.Namespace)) }) {
				t.Errorf("%s: no certificate for OLM's hostnames %v", csv.Name, install.HostnamesForService(service, csv.Namespace))
				ok = false
			}
			if ok {
				equal++
			}
		}
	}
	t.Logf("certificate resources: %d of %d deployments equal to OLM's (volumes, mounts, names, hostnames)", equal, compared)
	if compared < 20 {
		t.Errorf("only %d deployments compared", compared)
	}
}
