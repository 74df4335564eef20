package approve

import (
	"context"
	"slices"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
)

// fakeCluster is a cluster of fake clients: OLM's kinds in the dynamic one, ConfigMaps and
// Events in the kube one.
type fakeCluster struct {
	clients Clients
	dynamic *dynamicfake.FakeDynamicClient
	kube    *kubefake.Clientset
}

// newFakeCluster returns a fake cluster holding the objects: InstallPlans, Subscriptions, CSVs
// and ConfigMaps.
func newFakeCluster(t *testing.T, objs ...runtime.Object) *fakeCluster {
	t.Helper()
	var olm, core []runtime.Object
	for _, o := range objs {
		if cm, ok := o.(*corev1.ConfigMap); ok {
			core = append(core, cm)
			continue
		}
		olm = append(olm, toUnstructured(t, o))
	}
	lists := map[schema.GroupVersionResource]string{
		installPlansResource:  "InstallPlanList",
		subscriptionsResource: "SubscriptionList",
		csvsResource:          "ClusterServiceVersionList",
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, olm...)
	kube := kubefake.NewClientset(core...)
	return &fakeCluster{clients: Clients{Dynamic: dyn, Kube: kube}, dynamic: dyn, kube: kube}
}

// toUnstructured converts a typed OLM object.
func toUnstructured(t *testing.T, o runtime.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// plan reads an InstallPlan.
func (f *fakeCluster) plan(t *testing.T, ns, name string) *v1alpha1.InstallPlan {
	t.Helper()
	u, err := f.dynamic.Resource(installPlansResource).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := planOf(u)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// configMap reads a ConfigMap.
func (f *fakeCluster) configMap(t *testing.T, ns, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := f.kube.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// events returns the Events posted, as "namespace/object type reason", sorted.
func (f *fakeCluster) events(t *testing.T) []string {
	t.Helper()
	list, err := f.kube.CoreV1().Events("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.InvolvedObject.Namespace+"/"+e.InvolvedObject.Name+" "+e.Type+" "+e.Reason)
	}
	slices.Sort(out)
	return out
}

// configMapPatches counts the patches of ConfigMaps so far.
func (f *fakeCluster) configMapPatches() int {
	n := 0
	for _, a := range f.kube.Actions() {
		if a.GetVerb() == "patch" && a.GetResource().Resource == "configmaps" {
			n++
		}
	}
	return n
}

// writes returns every request but a read (get, list, watch) either client received, as
// "verb resource namespace", in order: OLM's kinds first, then ConfigMaps and Events.
func (f *fakeCluster) writes() []string {
	var out []string
	for _, a := range append(f.dynamic.Actions(), f.kube.Actions()...) {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		out = append(out, a.GetVerb()+" "+a.GetResource().Resource+" "+a.GetNamespace())
	}
	return out
}
