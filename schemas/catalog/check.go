package catalog

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	apipath "k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/olm-render/olm-render/schemas/diag"
)

// checkManifests validates a bundle's manifests as the API server would the objects OLM creates
// from them, and as the CSV's own schema does: an object it would reject makes OLM's install
// fail, so rendering it would be wrong. It checks names, the CSV's deployments (containers and
// images), its install strategy, the deployments its webhooks and APIServices name, CRDs (names,
// versions, a storage version) and webhook types. A CSV whose name is not
// the bundle's (name) is refused too.
func checkManifests(m *Manifests, name string) diag.Problems {
	var problems diag.Problems
	csv := m.CSV
	obj := "ClusterServiceVersion/" + csv.Name
	if name != "" && csv.Name != name {
		problems.Errorf(m.CSVOrigin, obj, "metadata.name", "the bundle is %q but its ClusterServiceVersion is named %q: OLM requires them to be equal", name, csv.Name)
	}
	nameProblems(&problems, m.CSVOrigin, obj, "metadata.name", csv.Name, validation.IsDNS1123Subdomain)
	checkStrategy(&problems, m.CSVOrigin, csv)
	checkDeployments(&problems, m.CSVOrigin, csv)
	checkWebhooks(&problems, m.CSVOrigin, csv)
	checkCertDeployments(&problems, m.CSVOrigin, csv)
	checkOwnedCRDs(&problems, m)
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
	first := map[string]int{}
	for i, d := range strategy.DeploymentSpecs {
		field := fmt.Sprintf("spec.install.spec.deployments[%d]", i)
		nameProblems(problems, origin, obj, field+".name", d.Name, validation.IsDNS1123Subdomain)
		if j, dup := first[d.Name]; dup {
			problems.Errorf(origin, obj, field+".name", "deployment %q is also spec.install.spec.deployments[%d]: OLM would create one Deployment and overwrite it with the other; rename one", d.Name, j)
		} else {
			first[d.Name] = i
		}
		checkSelector(problems, origin, obj, field+".spec", d.Spec)
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

// checkSelector checks a deployment's selector as the API server's apps/v1 validation does: it
// is required, not empty, and matches the pod template's labels.
func checkSelector(problems *diag.Problems, origin diag.Origin, obj, field string, spec appsv1.DeploymentSpec) {
	if spec.Selector == nil {
		problems.Errorf(origin, obj, field+".selector", "required: the API server refuses a Deployment without a selector")
		return
	}
	selector, err := metav1.LabelSelectorAsSelector(spec.Selector)
	switch {
	case err != nil:
		problems.Errorf(origin, obj, field+".selector", "invalid label selector: %v", err)
	case selector.Empty():
		problems.Errorf(origin, obj, field+".selector", "empty selector is invalid for deployment: the API server refuses it")
	case !selector.Matches(labels.Set(spec.Template.Labels)):
		problems.Errorf(origin, obj, field+".template.metadata.labels", "`selector` does not match template `labels` (selector %s, labels %s): the API server refuses the Deployment",
			selector, labels.Set(spec.Template.Labels))
	}
}

// checkOwnedCRDs refuses a CSV owning a CRD its bundle does not hold: OLM leaves the CSV
// Pending (RequirementsNotMet) until the CRD exists, and nothing would create it. It names the
// manifest file meant to hold it when one, by its name, is (a file holding another kind).
func checkOwnedCRDs(problems *diag.Problems, m *Manifests) {
	crds := map[string]bool{}
	for _, o := range m.Objects {
		if o.GetKind() == "CustomResourceDefinition" {
			crds[o.GetName()] = true
		}
	}
	obj := "ClusterServiceVersion/" + m.CSV.Name
	for i, owned := range m.CSV.Spec.CustomResourceDefinitions.Owned {
		if crds[owned.Name] {
			continue
		}
		msg := fmt.Sprintf("the bundle holds no CustomResourceDefinition %q: OLM would leave the CSV Pending until one exists; add its manifest", owned.Name)
		if o, ok := fileNamed(m.Objects, owned.Name); ok {
			msg += fmt.Sprintf(" (%s holds a %s %q, not the CRD)", o.Origin, o.GetKind(), o.GetName())
		}
		problems.Errorf(m.CSVOrigin, obj, fmt.Sprintf("spec.customresourcedefinitions.owned[%d].name", i), "%s", msg)
	}
}

// fileNamed returns the object whose file name holds name (widgets.example.com.crd.yaml).
func fileNamed(objects []Object, name string) (Object, bool) {
	for _, o := range objects {
		if strings.Contains(path.Base(o.Origin.File), name) {
			return o, true
		}
	}
	return Object{}, false
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

// checkStrategy refuses an install strategy OLM does not know: its olm-operator fails the CSV
// (InvalidInstallStrategy, "unrecognized install strategy") and installs nothing of it.
func checkStrategy(problems *diag.Problems, origin diag.Origin, csv *v1alpha1.ClusterServiceVersion) {
	name := csv.Spec.InstallStrategy.StrategyName
	if name == v1alpha1.InstallStrategyNameDeployment {
		return
	}
	problems.Errorf(origin, "ClusterServiceVersion/"+csv.Name, "spec.install.strategy",
		"unrecognized install strategy %q: OLM installs only %q and fails the CSV (InvalidInstallStrategy); set spec.install.strategy: %s",
		name, v1alpha1.InstallStrategyNameDeployment, v1alpha1.InstallStrategyNameDeployment)
}

// checkCertDeployments refuses a webhook or owned APIService naming a deployment the install
// strategy does not define: OLM would create it with no Service and no serving certificate
// behind it.
func checkCertDeployments(problems *diag.Problems, origin diag.Origin, csv *v1alpha1.ClusterServiceVersion) {
	var names []string
	for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		names = append(names, d.Name)
	}
	check := func(field, name string) {
		if name == "" || slices.Contains(names, name) {
			return
		}
		msg := fmt.Sprintf("deployment %q is not one of the install strategy's deployments (spec.install.spec.deployments: %s): OLM would create it with no Service and no serving certificate behind it",
			name, strings.Join(names, ", "))
		if m := diag.Closest(name, names); m != "" {
			msg += fmt.Sprintf(": did you mean %q?", m)
		}
		problems.Errorf(origin, "ClusterServiceVersion/"+csv.Name, field, "%s", msg)
	}
	for i, w := range csv.Spec.WebhookDefinitions {
		check(fmt.Sprintf("spec.webhookdefinitions[%d].deploymentName", i), w.DeploymentName)
	}
	for i, a := range csv.Spec.APIServiceDefinitions.Owned {
		check(fmt.Sprintf("spec.apiservicedefinitions.owned[%d].deploymentName", i), a.DeploymentName)
	}
}

// rbacKinds name objects with path-segment names (system:controller:x is fine).
var rbacKinds = map[string]bool{"Role": true, "ClusterRole": true, "RoleBinding": true, "ClusterRoleBinding": true}

// checkObject checks a bundle object's name as its kind's validation would, and a CRD's shape.
func checkObject(problems *diag.Problems, o Object) {
	obj := o.GetKind() + "/" + o.GetName()
	switch {
	case rbacKinds[o.GetKind()]:
		nameProblems(problems, o.Origin, obj, "metadata.name", o.GetName(), func(s string) []string { return apipath.IsValidPathSegmentName(s) })
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
