package oracle

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	olmfake "github.com/operator-framework/operator-lifecycle-manager/pkg/api/client/clientset/versioned/fake"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/lib/operatorclient"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	extfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apimachinery/pkg/watch"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	metafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	regfake "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/fake"
)

// kubeVersion is the Kubernetes version the fake API server reports and the render assumes.
const kubeVersion = "v1.33.0"

// store names one of the fake clientsets' object trackers.
type store string

// The fake clientsets of a cluster, by the API groups they serve.
const (
	storeKube store = "kube"
	storeExt  store = "apiextensions"
	storeReg  store = "apiregistration"
	storeOLM  store = "operators"
	storeDyn  store = "dynamic"
)

// objectKey identifies one object in one store.
type objectKey struct {
	store     store
	gvr       schema.GroupVersionResource
	namespace string
	name      string
}

var crdResource = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")

// cluster is a fake API server for OLM's controllers: the client-go fake clientsets OLM's own
// unit tests use (Kubernetes, apiextensions, apiregistration, OLM's operators clientset, dynamic
// and metadata), with reactors that do what the real API server does and the fakes do not:
// assign UIDs and creation timestamps, name objects created with generateName, keep UIDs across
// updates, refuse apiextensions.k8s.io/v1beta1 (not served since Kubernetes 1.22), and serve the
// CRDs' metadata (the olm-operator watches CRDs through the metadata client) from the
// apiextensions store. It counts writes, so a caller can tell when the controllers are idle, and
// remembers every object written, so the final state can be read back.
type cluster struct {
	kube *kubefake.Clientset
	ext  *extfake.Clientset
	reg  *regfake.Clientset
	olm  *olmfake.Clientset
	dyn  *dynfake.FakeDynamicClient
	meta *metafake.FakeMetadataClient
	op   operatorclient.ClientInterface
	// trackers serve the fakes' objects and watches.
	trackers map[store]*eventTracker

	writes atomic.Int64
	uids   atomic.Int64
	mu     sync.Mutex
	keys   map[objectKey]bool
	// generated counts the names given for each generateName prefix.
	generated map[string]int
}

// newCluster builds an empty fake cluster whose discovery serves the given API resources.
func newCluster(resources []*metav1.APIResourceList) *cluster {
	c := &cluster{
		kube: kubefake.NewClientset(),
		ext:  extfake.NewSimpleClientset(),
		reg:  regfake.NewSimpleClientset(),
		olm:  olmfake.NewSimpleClientset(),
		dyn:  dynfake.NewSimpleDynamicClient(runtime.NewScheme()),
		meta: metafake.NewSimpleMetadataClient(metadataScheme()),
		keys: map[objectKey]bool{},
	}
	c.kube.Resources = resources
	c.kube.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: kubeVersion, Major: "1", Minor: "33"}
	c.op = operatorclient.NewClient(c.kube, c.ext, c.reg)
	c.trackers = map[store]*eventTracker{storeKube: newEventTracker(c.kube.Tracker()), storeExt: newEventTracker(c.ext.Tracker()),
		storeReg: newEventTracker(c.reg.Tracker()), storeOLM: newEventTracker(c.olm.Tracker()), storeDyn: newEventTracker(c.dyn.Tracker())}
	for s, f := range c.fakes() {
		useEventTracker(f, c.trackers[s])
		f.PrependReactor("*", "*", c.apiServer(s))
	}
	useEventTracker(&c.meta.Fake, newEventTracker(c.meta.Tracker()))
	c.ext.PrependReactor("*", "customresourcedefinitions", refuseV1beta1)
	c.meta.PrependReactor("*", "customresourcedefinitions", c.crdMetadata)
	c.meta.PrependWatchReactor("customresourcedefinitions", c.crdMetadataWatch)
	return c
}

// metadataScheme is the scheme of the metadata client, as OLM's unit tests build it.
func metadataScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	must(kubescheme.AddToScheme(s))
	must(metav1.AddMetaToScheme(s))
	return s
}

// must panics on an error that only a programming mistake can cause.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// fakes returns the reaction chains of the stores.
func (c *cluster) fakes() map[store]*clienttesting.Fake {
	return map[store]*clienttesting.Fake{storeKube: &c.kube.Fake, storeExt: &c.ext.Fake, storeReg: &c.reg.Fake,
		storeOLM: &c.olm.Fake, storeDyn: &c.dyn.Fake}
}

// tracker returns a store's object tracker.
func (c *cluster) tracker(s store) clienttesting.ObjectTracker {
	return c.trackers[s]
}

// apiServer returns the reactor that stands in for the API server's own handling of writes to a
// store; it never handles the action itself. (It switches on the verb: client-go's create and
// update action interfaces are the same interface.)
func (c *cluster) apiServer(s store) clienttesting.ReactionFunc {
	return func(action clienttesting.Action) (bool, runtime.Object, error) {
		name := ""
		switch action.GetVerb() {
		case "create":
			a := action.(clienttesting.CreateAction)
			if a.GetSubresource() != "" {
				break
			}
			m, err := meta.Accessor(a.GetObject())
			if err != nil {
				return false, nil, nil
			}
			clusterScoped(action, m)
			c.created(m)
			if err := resetStatus(a.GetObject()); err != nil {
				return true, nil, err
			}
			if err := storeCustomResource(action.GetResource(), a.GetObject()); err != nil {
				return true, nil, err
			}
			name = m.GetName()
		case "update":
			a := action.(clienttesting.UpdateAction)
			m, err := meta.Accessor(a.GetObject())
			if err != nil {
				return false, nil, nil
			}
			clusterScoped(action, m)
			c.updated(s, action.GetResource(), m)
			if err := c.statusSubresource(s, action.GetResource(), a.GetSubresource(), a.GetObject()); err != nil {
				return true, nil, err
			}
			if err := storeCustomResource(action.GetResource(), a.GetObject()); err != nil {
				return true, nil, err
			}
			name = m.GetName()
		case "patch":
			name = action.(clienttesting.PatchAction).GetName()
		case "delete":
			name = action.(clienttesting.DeleteAction).GetName()
		default:
			return false, nil, nil
		}
		c.writes.Add(1)
		c.mu.Lock()
		c.keys[objectKey{s, action.GetResource(), action.GetNamespace(), name}] = true
		c.mu.Unlock()
		return false, nil, nil
	}
}

// clusterScoped clears the namespace of an object written to a cluster-scoped resource (a
// request without a namespace), as the API server does (OLM's steps carry the operator's
// namespace on ClusterRoleBindings).
func clusterScoped(action clienttesting.Action, m metav1.Object) {
	if action.GetNamespace() == "" {
		m.SetNamespace("")
	}
}

// created sets what the API server sets on a new object. Names for generateName are numbered
// per prefix (the API server's suffix is random) so that they do not depend on the order in
// which concurrent controllers create objects.
func (c *cluster) created(m metav1.Object) {
	if m.GetName() == "" && m.GetGenerateName() != "" {
		c.mu.Lock()
		if c.generated == nil {
			c.generated = map[string]int{}
		}
		c.generated[m.GetGenerateName()]++
		m.SetName(fmt.Sprintf("%s%05d", m.GetGenerateName(), c.generated[m.GetGenerateName()]))
		c.mu.Unlock()
	}
	if m.GetUID() == "" {
		m.SetUID(types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", c.uids.Add(1))))
	}
	if isZeroTime(m.GetCreationTimestamp()) {
		m.SetCreationTimestamp(metav1.NewTime(time.Now()))
	}
}

// resetStatus drops the status of an object being created, as the API server does for every
// kind with a status subresource (OLM's CRDs, Deployments, CRDs, APIServices, Namespaces).
func resetStatus(obj runtime.Object) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	if _, ok := m["status"]; !ok {
		return nil
	}
	delete(m, "status")
	return replaceObject(obj, m)
}

// statusSubresource applies the API server's status subresource semantics to an update: an
// update of the status subresource changes only the status (the stored object keeps its spec
// and metadata), an update of the object itself leaves the stored status alone. Kinds without a
// status are left as they are.
func (c *cluster) statusSubresource(s store, gvr schema.GroupVersionResource, subresource string, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	stored, err := c.tracker(s).Get(gvr, m.GetNamespace(), m.GetName())
	if err != nil {
		return nil // the tracker answers NotFound itself
	}
	req, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	old, err := runtime.DefaultUnstructuredConverter.ToUnstructured(stored)
	if err != nil {
		return err
	}
	_, reqHas := req["status"]
	_, oldHas := old["status"]
	if !reqHas && !oldHas {
		return nil
	}
	var merged map[string]any
	switch subresource {
	case "status":
		merged = old
		merged["status"] = req["status"]
		// The request's resourceVersion is the one the writer read.
		unstructured.SetNestedField(merged, m.GetResourceVersion(), "metadata", "resourceVersion")
	case "":
		merged = req
		if oldHas {
			merged["status"] = old["status"]
		} else {
			delete(merged, "status")
		}
	default:
		return nil
	}
	return replaceObject(obj, merged)
}

// replaceObject makes obj (typed or unstructured) hold the content of m.
func replaceObject(obj runtime.Object, m map[string]any) error {
	if u, ok := obj.(runtime.Unstructured); ok {
		u.SetUnstructuredContent(m)
		return nil
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	v := reflect.ValueOf(obj).Elem()
	v.Set(reflect.Zero(v.Type()))
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, obj); err != nil {
		return err
	}
	if !gvk.Empty() {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
	return nil
}

// updated keeps the immutable metadata of an updated object, as the API server does.
func (c *cluster) updated(s store, gvr schema.GroupVersionResource, m metav1.Object) {
	if m.GetUID() != "" && !isZeroTime(m.GetCreationTimestamp()) {
		return
	}
	old, err := c.tracker(s).Get(gvr, m.GetNamespace(), m.GetName())
	if err != nil {
		return
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return
	}
	if m.GetUID() == "" {
		m.SetUID(om.GetUID())
	}
	if isZeroTime(m.GetCreationTimestamp()) {
		m.SetCreationTimestamp(om.GetCreationTimestamp())
	}
}

// refuseV1beta1 answers apiextensions.k8s.io/v1beta1 requests as an API server of 1.22 or
// later does: the resource does not exist.
func refuseV1beta1(action clienttesting.Action) (bool, runtime.Object, error) {
	if action.GetResource().Version != "v1beta1" {
		return false, nil, nil
	}
	return true, nil, apierrors.NewNotFound(action.GetResource().GroupResource(), "")
}

// crdMetadata serves get and list of CRD metadata from the apiextensions store.
func (c *cluster) crdMetadata(action clienttesting.Action) (bool, runtime.Object, error) {
	switch a := action.(type) {
	case clienttesting.GetAction:
		obj, err := c.trackers[storeExt].Get(crdResource, "", a.GetName())
		if err != nil {
			return true, nil, err
		}
		return true, partial(obj), nil
	case clienttesting.ListAction:
		obj, err := c.trackers[storeExt].List(crdResource, apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"), "")
		if err != nil {
			return true, nil, err
		}
		list := &metav1.List{}
		for _, item := range obj.(*apiextensionsv1.CustomResourceDefinitionList).Items {
			list.Items = append(list.Items, runtime.RawExtension{Object: partial(&item)})
		}
		return true, list, nil
	}
	return false, nil, nil
}

// crdMetadataWatch serves watches of CRD metadata from the apiextensions store.
func (c *cluster) crdMetadataWatch(action clienttesting.Action) (bool, watch.Interface, error) {
	w, err := c.trackers[storeExt].Watch(crdResource, "", watchOptions(action)...)
	if err != nil {
		return true, nil, err
	}
	return true, watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
		if e.Object != nil {
			if _, ok := e.Object.(*apiextensionsv1.CustomResourceDefinition); ok {
				e.Object = partial(e.Object)
			}
		}
		return e, true
	}), nil
}

// partial returns a CRD's metadata as the metadata client returns it.
func partial(obj runtime.Object) *metav1.PartialObjectMetadata {
	m, err := meta.Accessor(obj)
	if err != nil {
		return &metav1.PartialObjectMetadata{}
	}
	out := meta.AsPartialObjectMetadata(m).DeepCopy()
	out.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	return out
}

// emulate does, once, what the rest of a cluster would do for OLM's objects: the apiextensions
// server establishes CRDs, the deployment controller makes Deployments available and the
// aggregator marks APIServices available. It writes only objects that need it.
func (c *cluster) emulate(ctx context.Context) error {
	// The fakes record every request; nothing reads the record.
	for _, f := range c.fakes() {
		f.ClearActions()
	}
	c.meta.ClearActions()
	if err := c.defaultServiceAccounts(ctx); err != nil {
		return err
	}
	crds, err := c.ext.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing CRDs: %w", err)
	}
	for i := range crds.Items {
		if err := c.establish(ctx, &crds.Items[i]); err != nil {
			return err
		}
	}
	deps, err := c.kube.AppsV1().Deployments("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing deployments: %w", err)
	}
	for i := range deps.Items {
		if err := c.rollOut(ctx, &deps.Items[i]); err != nil {
			return err
		}
	}
	apis, err := c.reg.ApiregistrationV1().APIServices().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing APIServices: %w", err)
	}
	for i := range apis.Items {
		if err := c.serve(ctx, &apis.Items[i]); err != nil {
			return err
		}
	}
	return nil
}

// defaultServiceAccounts creates the ServiceAccount "default" of every namespace that lacks
// it, as the service account controller does (OLM checks that a CSV's service accounts exist).
// They are the cluster's own objects, not OLM's: they go to the tracker directly, unrecorded.
func (c *cluster) defaultServiceAccounts(ctx context.Context) error {
	nss, err := c.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing namespaces: %w", err)
	}
	gvr := corev1.SchemeGroupVersion.WithResource("serviceaccounts")
	for _, ns := range nss.Items {
		if _, err := c.trackers[storeKube].Get(gvr, ns.Name, "default"); !apierrors.IsNotFound(err) {
			continue
		}
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns.Name}}
		c.created(sa)
		if err := c.trackers[storeKube].Create(gvr, sa, ns.Name); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the default service account of %s: %w", ns.Name, err)
		}
	}
	return nil
}

// establish sets the conditions the apiextensions server sets on an accepted CRD.
func (c *cluster) establish(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	if len(crd.Status.Conditions) > 0 {
		return nil
	}
	crd.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{
		{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
		{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
	}
	crd.Status.AcceptedNames = crd.Spec.Names
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			crd.Status.StoredVersions = []string{v.Name}
		}
	}
	if _, err := c.ext.ApiextensionsV1().CustomResourceDefinitions().UpdateStatus(ctx, crd, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("establishing CRD %s: %w", crd.Name, err)
	}
	return nil
}

// rollOut sets the status the deployment controller sets once every replica is available.
func (c *cluster) rollOut(ctx context.Context, d *appsv1.Deployment) error {
	replicas := int32(1)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	want := appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas,
		ReadyReplicas: replicas, AvailableReplicas: replicas,
		Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: "True", Reason: "MinimumReplicasAvailable"}}}
	if d.Status.ObservedGeneration == want.ObservedGeneration && d.Status.UpdatedReplicas == replicas && len(d.Status.Conditions) == 1 {
		return nil
	}
	d.Status = want
	if _, err := c.kube.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("rolling out deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	return nil
}

// serve sets the Available condition the aggregator sets on a reachable APIService.
func (c *cluster) serve(ctx context.Context, a *apiregistrationv1.APIService) error {
	for _, cond := range a.Status.Conditions {
		if cond.Type == apiregistrationv1.Available && cond.Status == apiregistrationv1.ConditionTrue {
			return nil
		}
	}
	a.Status.Conditions = append(a.Status.Conditions, apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available,
		Status: apiregistrationv1.ConditionTrue, Reason: "Passed"})
	if _, err := c.reg.ApiregistrationV1().APIServices().UpdateStatus(ctx, a, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("serving APIService %s: %w", a.Name, err)
	}
	return nil
}

// objects returns every object ever written that still exists, as unstructured objects with
// their kind set.
func (c *cluster) objects() ([]map[string]any, error) {
	c.mu.Lock()
	keys := make([]objectKey, 0, len(c.keys))
	for k := range c.keys {
		keys = append(keys, k)
	}
	c.mu.Unlock()
	var out []map[string]any
	seen := map[objectKey]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		obj, err := c.tracker(k.store).Get(k.gvr, k.namespace, k.name)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading %v: %w", k, err)
		}
		u, err := toUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("reading %v: %w", k, err)
		}
		out = append(out, u)
	}
	return out, nil
}

// isZeroTime reports whether a timestamp is unset.
func isZeroTime(t metav1.Time) bool { return t.IsZero() }
