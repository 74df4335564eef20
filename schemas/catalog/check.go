package catalog

import (
	"fmt"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/olm-render/olm-render/schemas/diag"
)

// checkManifests validates a bundle's manifests as the API server would the objects OLM creates
// from them, and as the CSV's own schema does: an object it would reject makes OLM's install
// fail, so rendering it would be wrong. It checks names, the CSV's deployments (containers and
// images), CRDs (names, versions, a storage version) and webhook types. A CSV whose name is not
// the bundle's (name) is refused too.
func checkManifests(m *Manifests, name string) diag.Problems {
	var problems diag.Problems
	csv := m.CSV
	obj := "ClusterServiceVersion/" + csv.Name
	if name != "" && csv.Name != name {
		problems.Errorf(m.CSVOrigin, obj, "metadata.name", "the bundle is %q but its ClusterServiceVersion is named %q: OLM requires them to be equal", name, csv.Name)
	}
	nameProblems(&problems, m.CSVOrigin, obj, "metadata.name", csv.Name, validation.IsDNS1123Subdomain)
	checkDeployments(&problems, m.CSVOrigin, csv)
	checkWebhooks(&problems, m.CSVOrigin, csv)
	for _, o := range m.Objects {
		checkObject(&problems, o)
	}
	return problems
}

// nameProblems reports a name a validator refuses.
func nameProblems(problems *diag.Problems, origin diag.Origin, obj, field, name string, valid func(string) []string) {
	if name == "" {
		problems.Errorf(origin, obj, field, "required")
		return
	}
	if msgs := valid(name); len(msgs) > 0 {
		problems.Errorf(origin, obj, field, "invalid name %q: %s", name, strings.Join(msgs, "; "))
	}
}

// checkDeployments checks the CSV's install strategy deployments as the apps validation would.
func checkDeployments(problems *diag.Problems, origin diag.Origin, csv *v1alpha1.ClusterServiceVersion) {
	obj := "ClusterServiceVersion/" + csv.Name
	strategy := csv.Spec.InstallStrategy.StrategySpec
	for kind, perms := range map[string][]v1alpha1.StrategyDeploymentPermissions{"permissions": strategy.Permissions, "clusterPermissions": strategy.ClusterPermissions} {
		for i, p := range perms {
			nameProblems(problems, origin, obj, fmt.Sprintf("spec.install.spec.%s[%d].serviceAccountName", kind, i), p.ServiceAccountName, validation.IsDNS1123Subdomain)
		}
	}
	for i, d := range strategy.DeploymentSpecs {
		field := fmt.Sprintf("spec.install.spec.deployments[%d]", i)
		nameProblems(problems, origin, obj, field+".name", d.Name, validation.IsDNS1123Subdomain)
		if sa := d.Spec.Template.Spec.ServiceAccountName; sa != "" {
			nameProblems(problems, origin, obj, field+".spec.template.spec.serviceAccountName", sa, validation.IsDNS1123Subdomain)
		}
		containers := d.Spec.Template.Spec.Containers
		if len(containers) == 0 {
			problems.Errorf(origin, obj, field+".spec.template.spec.containers", "required: a Deployment needs a container")
		}
		for j, c := range append(d.Spec.Template.Spec.InitContainers, containers...) {
			cf := fmt.Sprintf("%s.spec.template.spec.containers[%d]", field, j)
			if j < len(d.Spec.Template.Spec.InitContainers) {
				cf = fmt.Sprintf("%s.spec.template.spec.initContainers[%d]", field, j)
			} else {
				cf = fmt.Sprintf("%s.spec.template.spec.containers[%d]", field, j-len(d.Spec.Template.Spec.InitContainers))
			}
			nameProblems(problems, origin, obj, cf+".name", c.Name, validation.IsDNS1123Label)
			if strings.TrimSpace(c.Image) == "" {
				problems.Errorf(origin, obj, cf+".image", "required")
			}
		}
	}
}

// webhookTypes are the webhook types the CSV schema allows.
var webhookTypes = []v1alpha1.WebhookAdmissionType{v1alpha1.ValidatingAdmissionWebhook, v1alpha1.MutatingAdmissionWebhook, v1alpha1.ConversionWebhook}

func checkWebhooks(problems *diag.Problems, origin diag.Origin, csv *v1alpha1.ClusterServiceVersion) {
	for i, w := range csv.Spec.WebhookDefinitions {
		field := fmt.Sprintf("spec.webhookdefinitions[%d]", i)
		known := false
		for _, t := range webhookTypes {
			known = known || w.Type == t
		}
		if !known {
			problems.Errorf(origin, "ClusterServiceVersion/"+csv.Name, field+".type", "unknown webhook type %q: want ValidatingAdmissionWebhook, MutatingAdmissionWebhook or ConversionWebhook", w.Type)
		}
	}
}

// rbacKinds name objects with path-segment names (system:controller:x is fine).
var rbacKinds = map[string]bool{"Role": true, "ClusterRole": true, "RoleBinding": true, "ClusterRoleBinding": true}

// checkObject checks a bundle object's name as its kind's validation would, and a CRD's shape.
func checkObject(problems *diag.Problems, o Object) {
	obj := o.GetKind() + "/" + o.GetName()
	switch {
	case rbacKinds[o.GetKind()]:
		nameProblems(problems, o.Origin, obj, "metadata.name", o.GetName(), func(s string) []string { return path.IsValidPathSegmentName(s) })
	case o.GetKind() == "Service":
		nameProblems(problems, o.Origin, obj, "metadata.name", o.GetName(), validation.IsDNS1035Label)
	case o.GetKind() == "CustomResourceDefinition":
		checkCRD(problems, o)
	default:
		nameProblems(problems, o.Origin, obj, "metadata.name", o.GetName(), validation.IsDNS1123Subdomain)
	}
}

// checkCRD checks what the API server requires of every CRD: its name is <plural>.<group>, it
// has names, a scope and at least one version, exactly one of them stored.
func checkCRD(problems *diag.Problems, o Object) {
	obj := "CustomResourceDefinition/" + o.GetName()
	u := o.Unstructured
	group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
	kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
	scope, _, _ := unstructured.NestedString(u.Object, "spec", "scope")
	switch {
	case group == "" || plural == "" || kind == "":
		problems.Errorf(o.Origin, obj, "spec", "not a valid CustomResourceDefinition: spec.group, spec.names.plural and spec.names.kind are required")
		return
	case o.GetName() != plural+"."+group:
		problems.Errorf(o.Origin, obj, "metadata.name", "must be spec.names.plural + \".\" + spec.group: %q", plural+"."+group)
	case scope != "Namespaced" && scope != "Cluster" && (scope != "" || u.GetAPIVersion() == "apiextensions.k8s.io/v1"):
		problems.Errorf(o.Origin, obj, "spec.scope", "must be Namespaced or Cluster, got %q", scope)
	}
	checkCRDVersions(problems, o, obj)
}

func checkCRDVersions(problems *diag.Problems, o Object, obj string) {
	versions, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
	single, _, _ := unstructured.NestedString(o.Object, "spec", "version")
	if len(versions) == 0 {
		if single == "" || o.GetAPIVersion() == "apiextensions.k8s.io/v1" {
			problems.Errorf(o.Origin, obj, "spec.versions", "required: a CustomResourceDefinition serves at least one version")
		}
		return
	}
	stored := 0
	for _, v := range versions {
		if m, ok := v.(map[string]any); ok && m["storage"] == true {
			stored++
		}
	}
	if stored != 1 {
		problems.Errorf(o.Origin, obj, "spec.versions", "exactly one version must be the storage version, found %d", stored)
	}
}
