package importer

import (
	"slices"
	"strings"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// serverMetadata are the metadata fields the API server manages.
var serverMetadata = []string{
	"managedFields", "resourceVersion", "uid", "generation", "creationTimestamp", "ownerReferences",
	"selfLink", "deletionTimestamp", "deletionGracePeriodSeconds",
}

// Labels and annotations OLM or the cluster add, matched by prefix (ending in "/" or ".") or name.
var (
	addedLabels = []string{
		"operators.coreos.com/",       // OLM's component label, operators.coreos.com/<package>.<namespace>
		"olm.operatorgroup.uid/",      // OLM's label on an OperatorGroup's target Namespaces
		"kubernetes.io/metadata.name", // the API server's label on every Namespace
	}
	addedAnnotations = []string{
		"kubectl.kubernetes.io/last-applied-configuration",
		"openshift.io/sa.scc.", // OpenShift's per-Namespace UID and SELinux ranges
	}
)

// providedAPIsAnnotation is the annotation OLM keeps on an OperatorGroup with the APIs its
// operators provide.
const providedAPIsAnnotation = "olm.providedAPIs"

// clean returns the object as the user declared it: without status, server metadata and what
// OLM or the cluster added (see the package documentation).
func clean(u *unstructured.Unstructured) *unstructured.Unstructured {
	u = u.DeepCopy()
	for _, f := range serverMetadata {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(u.Object, "status")
	u.SetLabels(without(u.GetLabels(), addedLabels))
	u.SetAnnotations(without(u.GetAnnotations(), addedAnnotations))
	switch u.GetKind() {
	case "Namespace":
		cleanNamespace(u)
	case "OperatorGroup":
		cleanOperatorGroup(u)
	}
	return u
}

// without returns m without the keys matching one of keys (a prefix when it ends in "/" or "."),
// nil when nothing is left.
func without(m map[string]string, keys []string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if !slices.ContainsFunc(keys, func(p string) bool { return matches(k, p) }) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func matches(key, pattern string) bool {
	if strings.HasSuffix(pattern, "/") || strings.HasSuffix(pattern, ".") {
		return strings.HasPrefix(key, pattern)
	}
	return key == pattern
}

// cleanNamespace drops the finalizer the API server adds to every Namespace.
func cleanNamespace(u *unstructured.Unstructured) {
	finalizers, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "finalizers")
	if slices.Equal(finalizers, []string{"kubernetes"}) {
		unstructured.RemoveNestedField(u.Object, "spec", "finalizers")
	}
	if spec, ok := u.Object["spec"].(map[string]any); ok && len(spec) == 0 {
		delete(u.Object, "spec")
	}
}

// cleanOperatorGroup drops the olm.providedAPIs annotation OLM maintains on a group whose
// provided APIs are not static, and the upgradeStrategy the CRD defaults.
func cleanOperatorGroup(u *unstructured.Unstructured) {
	static, _, _ := unstructured.NestedBool(u.Object, "spec", "staticProvidedAPIs")
	if !static {
		annotations := u.GetAnnotations()
		delete(annotations, providedAPIsAnnotation)
		if len(annotations) == 0 {
			annotations = nil
		}
		u.SetAnnotations(annotations)
	}
	if nestedString(u, "spec", "upgradeStrategy") == string(operatorsv1.UpgradeStrategyDefault) {
		unstructured.RemoveNestedField(u.Object, "spec", "upgradeStrategy")
	}
}
