package live

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
)

// resource is a kind the API server serves, in its preferred version.
type resource struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
}

// resources returns every listable kind the API server serves (its preferred versions, so
// that each object is listed once), in a fixed order.
func (c *Cluster) resources() ([]resource, error) {
	lists, err := c.Kube.Discovery().ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discovering the API server's resources: %w", err)
	}
	var out []resource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, fmt.Errorf("discovering the API server's resources: %w", err)
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			out = append(out, resource{GVR: gv.WithResource(r.Name), Kind: r.Kind, Namespaced: r.Namespaced})
		}
	}
	slices.SortFunc(out, func(a, b resource) int { return strings.Compare(a.GVR.String(), b.GVR.String()) })
	return out, nil
}

// list returns every object of every resource.
func (c *Cluster) list(ctx context.Context) ([]*unstructured.Unstructured, error) {
	rs, err := c.resources()
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, r := range rs {
		l, err := c.Dynamic.Resource(r.GVR).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			continue // a CRD deleted since discovery
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", r.GVR, err)
		}
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out, nil
}

// uids returns the UIDs of every object in the cluster.
func (c *Cluster) uids(ctx context.Context) (map[types.UID]bool, error) {
	objs, err := c.list(ctx)
	if err != nil {
		return nil, err
	}
	out := map[types.UID]bool{}
	for _, o := range objs {
		out[o.GetUID()] = true
	}
	return out, nil
}

// Snapshot returns every object that was not in the cluster when it started, but the
// cluster's own (Cluster.Own): what the inputs and OLM created, as the API server stores them,
// status included, ordered by API group, kind, namespace and name.
func (c *Cluster) Snapshot(ctx context.Context) ([]*unstructured.Unstructured, error) {
	objs, err := c.list(ctx)
	if err != nil {
		return nil, err
	}
	return c.created(objs), nil
}

// created returns the objects of objs that were not in the cluster when it started, but the
// cluster's own, in order.
func (c *Cluster) created(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if !c.baseline[o.GetUID()] && !Own(o) {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, compareObjects)
	return out
}

// Own reports whether an object is the cluster's own rather than the install's: Events (the
// record of what controllers did, whose number depends on timing), what the API server keeps
// for itself (leases, endpoints, allocated IP addresses, API priority and fairness), and the "default" ServiceAccount
// every namespace gets from the (stand-in) service account controller.
func Own(o *unstructured.Unstructured) bool {
	gk := o.GroupVersionKind().GroupKind()
	switch gk {
	case schema.GroupKind{Kind: "Event"}, schema.GroupKind{Group: "events.k8s.io", Kind: "Event"},
		schema.GroupKind{Group: "coordination.k8s.io", Kind: "Lease"},
		schema.GroupKind{Kind: "Endpoints"}, schema.GroupKind{Group: "discovery.k8s.io", Kind: "EndpointSlice"},
		// The API server's record of each Service's allocated cluster IP.
		schema.GroupKind{Group: "networking.k8s.io", Kind: "IPAddress"}, schema.GroupKind{Group: "networking.k8s.io", Kind: "ServiceCIDR"}:
		return true
	case schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}:
		// The API server registers a local APIService for every group and version it serves,
		// CRDs' included (its crdregistration controller).
		return o.GetLabels()["kube-aggregator.kubernetes.io/automanaged"] != ""
	case schema.GroupKind{Kind: "ServiceAccount"}:
		return o.GetName() == "default" && len(o.GetLabels()) == 0 && len(o.GetOwnerReferences()) == 0
	}
	switch gk.Group {
	case "flowcontrol.apiserver.k8s.io", "scheduling.k8s.io", "apiserverinternal.k8s.io", "internal.apiserver.k8s.io":
		return true
	}
	return false
}

// compareObjects orders objects by API group, kind, namespace and name.
func compareObjects(a, b *unstructured.Unstructured) int {
	ka := a.GroupVersionKind().Group + "\x00" + a.GetKind() + "\x00" + a.GetNamespace() + "\x00" + a.GetName()
	kb := b.GroupVersionKind().Group + "\x00" + b.GetKind() + "\x00" + b.GetNamespace() + "\x00" + b.GetName()
	return strings.Compare(ka, kb)
}
