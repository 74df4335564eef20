package oracle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/install"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/operators"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/operators/decorators"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/go-logr/logr"
)

// wholeScheme knows every typed object of the install: Kubernetes, apiextensions,
// apiregistration and OLM's APIs, and the metadata-only objects (the olm-operator manager's
// scheme, cmd/olm/manager.go: metav1.AddMetaToScheme and operators.AddToScheme).
var wholeScheme = managerScheme()

// managerScheme returns a new scheme of the olm-operator manager. (Its reconcilers register
// their types again on the scheme they are given, so each set of reconcilers gets its own: a
// shared scheme would be written while other cases read it.)
func managerScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(metav1.AddMetaToScheme(s))
	utilruntime.Must(operators.AddToScheme(s))
	return s
}

// toUnstructured converts a typed object to an unstructured map with apiVersion and kind.
func toUnstructured(obj runtime.Object) (map[string]any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.DeepCopy().Object, nil
	}
	gvk, err := apiutil.GVKForObject(obj, wholeScheme)
	if err != nil {
		return nil, fmt.Errorf("kind of %T: %w", obj, err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
	return m, nil
}

// settleAndReconcile alternates the client-go controllers (settle) and the olm-operator
// manager's controller-runtime reconcilers (reconcileAll) until the reconcilers change nothing.
// It returns the CSVs that did not succeed.
func settleAndReconcile(ctx context.Context, c *cluster) (string, error) {
	for range 6 {
		failure, err := settle(ctx, c, 150*time.Millisecond)
		if err != nil {
			return "", err
		}
		changed, reconcileErr, err := reconcileAll(ctx, c)
		if err != nil {
			return "", err
		}
		if !changed {
			if reconcileErr != nil {
				// The manager would requeue; with nothing changing, it would fail the same way.
				failure = strings.TrimPrefix(failure+"; ", "; ") + "reconciler: " + reconcileErr.Error()
			}
			return failure, nil
		}
	}
	return "", errors.New("the reconcilers kept changing objects")
}

// managerCacheSelects reports whether the olm-operator manager's cache holds an object (its
// cache only holds objects of these kinds with olm.managed=true, and CSVs that are not
// copies: cmd/olm/manager.go).
func managerCacheSelects(u *unstructured.Unstructured) bool {
	switch u.GetKind() {
	case "Deployment", "Service", "CustomResourceDefinition", "APIService", "ConfigMap", "ServiceAccount", "Role",
		"RoleBinding", "ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
		return u.GetLabels()[install.OLMManagedLabelKey] == install.OLMManagedLabelValue
	case v1alpha1.ClusterServiceVersionKind:
		_, copied := u.GetLabels()[v1alpha1.CopiedLabelKey]
		return !copied
	}
	return true
}

// managerClient is the controller-runtime client of the olm-operator's manager on a snapshot of
// the cluster: a fake client holding what the manager's cache holds, that sets TypeMeta on the
// typed objects it returns as the cache does.
func managerClient(snapshot []*unstructured.Unstructured) (client.Client, error) {
	var objs []client.Object
	for _, u := range snapshot {
		if !managerCacheSelects(u) || !wholeScheme.Recognizes(u.GroupVersionKind()) {
			continue
		}
		typed, err := wholeScheme.New(u.GroupVersionKind())
		if err != nil {
			return nil, fmt.Errorf("typing %s: %w", u.GetKind(), err)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
			return nil, fmt.Errorf("typing %s %s: %w", u.GetKind(), u.GetName(), err)
		}
		objs = append(objs, typed.(client.Object))
	}
	return fake.NewClientBuilder().WithScheme(wholeScheme).WithObjects(objs...).
		WithStatusSubresource(&operatorsv1.Operator{}, &operatorsv2.OperatorCondition{}, &v1alpha1.ClusterServiceVersion{},
			&v1alpha1.Subscription{}, &apiextensionsv1.CustomResourceDefinition{}, &apiregistrationv1.APIService{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if err := c.Get(ctx, key, obj, opts...); err != nil {
					return err
				}
				return setTypeMeta(obj)
			},
			List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				if err := c.List(ctx, list, opts...); err != nil {
					return err
				}
				return setTypeMeta(list)
			},
		}).Build(), nil
}

// setTypeMeta sets the kind of a typed object, or of a list and its items.
func setTypeMeta(obj runtime.Object) error {
	if _, ok := obj.(runtime.Unstructured); ok {
		return nil
	}
	gvk, err := apiutil.GVKForObject(obj, wholeScheme)
	if err != nil {
		return fmt.Errorf("kind of %T: %w", obj, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	if !strings.HasSuffix(gvk.Kind, "List") {
		return nil
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return err
	}
	for _, item := range items {
		if err := setTypeMeta(item); err != nil {
			return err
		}
	}
	return nil
}

// reconcileAll runs the reconcilers of the olm-operator's controller-runtime manager
// (cmd/olm/manager.go: AdoptionReconciler's ReconcileSubscription and
// ReconcileClusterServiceVersion, OperatorConditionGeneratorReconciler,
// OperatorConditionReconciler, OperatorReconciler) on every object they watch, until a round
// changes nothing, then writes what they changed back to the cluster as patches. It reports
// whether anything changed and the last error a reconciler returned in the last round (the
// manager would requeue the request: the caller retries after the other controllers ran).
func reconcileAll(ctx context.Context, c *cluster) (changed bool, reconcileErr, err error) {
	objs, err := c.objects()
	if err != nil {
		return false, nil, err
	}
	snapshot := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		snapshot = append(snapshot, &unstructured.Unstructured{Object: o})
	}
	cli, err := managerClient(snapshot)
	if err != nil {
		return false, nil, err
	}
	r, err := newReconcilers(cli)
	if err != nil {
		return false, nil, err
	}
	var last error
	for range 8 {
		before, err := fingerprint(ctx, cli)
		if err != nil {
			return false, nil, err
		}
		last = r.round(ctx, cli)
		after, err := fingerprint(ctx, cli)
		if err != nil {
			return false, nil, err
		}
		if maps.Equal(before, after) {
			break
		}
	}
	changed, err = c.writeBack(ctx, cli, snapshot)
	return changed, last, err
}

// reconcilers are the olm-operator manager's reconcilers.
type reconcilers struct {
	adoption  *operators.AdoptionReconciler
	generator *operators.OperatorConditionGeneratorReconciler
	condition *operators.OperatorConditionReconciler
	operator  *operators.OperatorReconciler
}

// newReconcilers builds the reconcilers on a client and the manager's scheme, as
// cmd/olm/manager.go does.
func newReconcilers(cli client.Client) (*reconcilers, error) {
	log := logr.Discard()
	s := managerScheme()
	var r reconcilers
	var err error
	if r.adoption, err = operators.NewAdoptionReconciler(cli, log, s); err != nil {
		return nil, fmt.Errorf("adoption reconciler: %w", err)
	}
	if r.generator, err = operators.NewOperatorConditionGeneratorReconciler(cli, log, s); err != nil {
		return nil, fmt.Errorf("operatorcondition generator: %w", err)
	}
	if r.condition, err = operators.NewOperatorConditionReconciler(cli, log, s); err != nil {
		return nil, fmt.Errorf("operatorcondition reconciler: %w", err)
	}
	if r.operator, err = operators.NewOperatorReconciler(cli, log, s); err != nil {
		return nil, fmt.Errorf("operator reconciler: %w", err)
	}
	return &r, nil
}

// round reconciles every object the reconcilers watch once; it returns the last error.
func (r *reconcilers) round(ctx context.Context, cli client.Client) error {
	var last error
	keep := func(_ ctrl.Result, err error) {
		if err != nil {
			last = err
		}
	}
	subs := &v1alpha1.SubscriptionList{}
	csvs := &v1alpha1.ClusterServiceVersionList{}
	conds := &operatorsv2.OperatorConditionList{}
	for _, l := range []client.ObjectList{subs, csvs, conds} {
		if err := cli.List(ctx, l); err != nil {
			return fmt.Errorf("listing: %w", err)
		}
	}
	for _, s := range subs.Items {
		keep(r.adoption.ReconcileSubscription(ctx, request(s.Namespace, s.Name)))
	}
	for _, csv := range csvs.Items {
		keep(r.adoption.ReconcileClusterServiceVersion(ctx, request(csv.Namespace, csv.Name)))
		keep(r.generator.Reconcile(ctx, request(csv.Namespace, csv.Name)))
	}
	for _, oc := range conds.Items {
		keep(r.condition.Reconcile(ctx, request(oc.Namespace, oc.Name)))
	}
	names, err := operatorNames(ctx, cli)
	if err != nil {
		return err
	}
	for _, n := range names {
		keep(r.operator.Reconcile(ctx, request("", n)))
	}
	return last
}

// request is a reconcile request.
func request(namespace, name string) ctrl.Request {
	return ctrl.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}}
}

// operatorNames returns the Operators the components name in their labels (the Operator
// reconciler's mapComponentRequests) and the Operators that exist.
func operatorNames(ctx context.Context, cli client.Client) ([]string, error) {
	names := map[string]bool{}
	for _, gvk := range componentKinds() {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk)
		if err := cli.List(ctx, list); err != nil {
			return nil, fmt.Errorf("listing %s: %w", gvk.Kind, err)
		}
		for _, item := range list.Items {
			for _, n := range decorators.OperatorNames(item.GetLabels()) {
				names[n.Name] = true
			}
			if gvk.Kind == "OperatorList" {
				names[item.GetName()] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(names)), nil
}

// componentKinds are the list kinds the Operator reconciler reads components from, and
// Operators.
func componentKinds() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, k := range []string{"apps/v1/DeploymentList", "v1/ServiceList", "v1/NamespaceList", "apiregistration.k8s.io/v1/APIServiceList",
		"apiextensions.k8s.io/v1/CustomResourceDefinitionList", "operators.coreos.com/v1alpha1/SubscriptionList",
		"operators.coreos.com/v1alpha1/InstallPlanList", "operators.coreos.com/v1alpha1/ClusterServiceVersionList",
		"operators.coreos.com/v2/OperatorConditionList", "v1/SecretList", "v1/ConfigMapList", "v1/ServiceAccountList",
		"rbac.authorization.k8s.io/v1/RoleList", "rbac.authorization.k8s.io/v1/RoleBindingList",
		"rbac.authorization.k8s.io/v1/ClusterRoleList", "rbac.authorization.k8s.io/v1/ClusterRoleBindingList",
		"operators.coreos.com/v1/OperatorList"} {
		i := strings.LastIndex(k, "/")
		gv, _ := schema.ParseGroupVersion(k[:i])
		out = append(out, gv.WithKind(k[i+1:]))
	}
	return out
}

// fingerprint returns the resourceVersion of every object the client holds.
func fingerprint(ctx context.Context, cli client.Client) (map[string]string, error) {
	out := map[string]string{}
	for _, gvk := range componentKinds() {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk)
		if err := cli.List(ctx, list); err != nil {
			return nil, fmt.Errorf("listing %s: %w", gvk.Kind, err)
		}
		for _, item := range list.Items {
			out[gvk.Kind+"/"+item.GetNamespace()+"/"+item.GetName()] = item.GetResourceVersion()
		}
	}
	return out, nil
}

// writeBack applies to the cluster what the reconcilers changed on the snapshot: new objects
// are created, changed ones patched (a JSON merge patch from the snapshot to the reconciled
// object, applied to the cluster's current object), deleted ones deleted. It reports whether
// it wrote anything.
func (c *cluster) writeBack(ctx context.Context, cli client.Client, snapshot []*unstructured.Unstructured) (bool, error) {
	before := map[string]*unstructured.Unstructured{}
	for _, u := range snapshot {
		before[identity(u)] = u
	}
	changed := false
	for _, gvk := range componentKinds() {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk)
		if err := cli.List(ctx, list); err != nil {
			return false, fmt.Errorf("listing %s: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			after := &list.Items[i]
			wrote, err := c.writeObject(before[identity(after)], after)
			if err != nil {
				return false, err
			}
			changed = changed || wrote
		}
	}
	return changed, nil
}

// identity names an object by kind, namespace and name.
func identity(u *unstructured.Unstructured) string {
	return strings.TrimSuffix(u.GetKind(), "List") + "/" + u.GetNamespace() + "/" + u.GetName()
}

// writeObject writes one reconciled object to the cluster; before is its snapshot, nil when
// the reconcilers created it.
func (c *cluster) writeObject(before, after *unstructured.Unstructured) (bool, error) {
	s, gvr := storeOf(after.GroupVersionKind())
	t := c.tracker(s)
	if before == nil {
		typed, err := typedObject(after)
		if err != nil {
			return false, err
		}
		m, _ := typed.(client.Object)
		m.SetResourceVersion("")
		c.created(m)
		if err := t.Create(gvr, typed, after.GetNamespace()); err != nil {
			return false, fmt.Errorf("creating %s: %w", identity(after), err)
		}
		c.record(s, gvr, after.GetNamespace(), after.GetName())
		return true, nil
	}
	patch, err := mergePatch(before, after)
	if err != nil || patch == nil {
		return false, err
	}
	current, err := t.Get(gvr, after.GetNamespace(), after.GetName())
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", identity(after), err)
	}
	cur, err := json.Marshal(current)
	if err != nil {
		return false, err
	}
	patched, err := jsonpatch.MergePatch(cur, patch)
	if err != nil {
		return false, fmt.Errorf("patching %s: %w", identity(after), err)
	}
	obj, err := wholeScheme.New(after.GroupVersionKind())
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(patched, obj); err != nil {
		return false, fmt.Errorf("patching %s: %w", identity(after), err)
	}
	if err := t.Update(gvr, obj, after.GetNamespace()); err != nil {
		return false, fmt.Errorf("updating %s: %w", identity(after), err)
	}
	c.record(s, gvr, after.GetNamespace(), after.GetName())
	return true, nil
}

// record notes a write made to a tracker directly.
func (c *cluster) record(s store, gvr schema.GroupVersionResource, namespace, name string) {
	c.writes.Add(1)
	c.mu.Lock()
	c.keys[objectKey{s, gvr, namespace, name}] = true
	c.mu.Unlock()
}

// mergePatch returns the JSON merge patch from before to after, ignoring what the fake client
// bookkeeps (resourceVersion, managedFields) and status; nil when nothing changed.
func mergePatch(before, after *unstructured.Unstructured) ([]byte, error) {
	clean := func(u *unstructured.Unstructured) ([]byte, error) {
		u = u.DeepCopy()
		u.SetResourceVersion("")
		u.SetManagedFields(nil)
		delete(u.Object, "status")
		return json.Marshal(u.Object)
	}
	b, err := clean(before)
	if err != nil {
		return nil, err
	}
	a, err := clean(after)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.CreateMergePatch(b, a)
	if err != nil {
		return nil, fmt.Errorf("diffing %s: %w", identity(after), err)
	}
	if string(patch) == "{}" {
		return nil, nil
	}
	return patch, nil
}

// typedObject converts an unstructured object to its typed form.
func typedObject(u *unstructured.Unstructured) (runtime.Object, error) {
	obj, err := wholeScheme.New(u.GroupVersionKind())
	if err != nil {
		return nil, fmt.Errorf("typing %s: %w", identity(u), err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, fmt.Errorf("typing %s: %w", identity(u), err)
	}
	return obj, nil
}

// storeOf returns the store and resource of a kind.
func storeOf(gvk schema.GroupVersionKind) (store, schema.GroupVersionResource) {
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	switch gvk.Group {
	case "apiextensions.k8s.io":
		return storeExt, gvr
	case "apiregistration.k8s.io":
		return storeReg, gvr
	case "operators.coreos.com":
		return storeOLM, gvr
	}
	return storeKube, gvr
}
