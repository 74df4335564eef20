package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

// resetTimeout bounds how long Reset waits for deleted objects to be gone.
const resetTimeout = 2 * time.Minute

// Reset returns the cluster to its baseline, the state it had when it started, with the OLM
// controllers that were running (v0's, v1's or both) restarted: it kills them, deletes every
// object created since the start (with its finalizers removed first, since no controller is
// left to act on them), finalizes the namespaces it deletes (no namespace controller runs
// here), waits until all of it is gone and starts the controllers again, OLM v1's with empty
// caches.
func (c *Cluster) Reset(ctx context.Context) error {
	v0 := c.olm != nil
	v1, withV1 := c.V1Options()
	if err := errors.Join(c.KillOLM(), c.KillV1()); err != nil {
		return err
	}
	if err := c.deleteCreated(ctx); err != nil {
		return err
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, resetTimeout, true, c.clean); err != nil {
		left, _ := c.leftovers(ctx)
		return fmt.Errorf("resetting the cluster: %d objects left, such as %s: %w", len(left), describe(left), err)
	}
	if v0 {
		if err := c.StartOLM(); err != nil {
			return err
		}
	}
	if !withV1 {
		return nil
	}
	if err := c.clearV1Caches(); err != nil {
		return err
	}
	return c.StartV1(ctx, v1)
}

// leftovers returns the objects created since the cluster started, the namespaces they are in
// included, but what the cluster owns in namespaces that were there from the start: what Reset
// deletes.
func (c *Cluster) leftovers(ctx context.Context) ([]*unstructured.Unstructured, error) {
	objs, err := c.list(ctx)
	if err != nil {
		return nil, err
	}
	kept := map[string]bool{}
	for _, o := range objs {
		if o.GetKind() == "Namespace" && o.GetAPIVersion() == "v1" && c.baseline[o.GetUID()] {
			kept[o.GetName()] = true
		}
	}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if c.baseline[o.GetUID()] || (Own(o) && (o.GetNamespace() == "" || kept[o.GetNamespace()])) {
			continue
		}
		out = append(out, o)
	}
	return out, nil
}

// clean reports whether nothing created since the start is left.
func (c *Cluster) clean(ctx context.Context) (bool, error) {
	left, err := c.leftovers(ctx)
	return len(left) == 0, err
}

// deleteCreated deletes what leftovers returns: webhook configurations first (a webhook nobody
// serves could refuse the other deletions), then namespaced objects, then namespaces (each
// finalized), then the other cluster-scoped objects, CRDs among them.
func (c *Cluster) deleteCreated(ctx context.Context) error {
	objs, err := c.leftovers(ctx)
	if err != nil {
		return err
	}
	rank := func(o *unstructured.Unstructured) int {
		switch {
		case o.GroupVersionKind().Group == "admissionregistration.k8s.io":
			return 0
		case o.GetNamespace() != "":
			return 1
		case o.GetKind() == "Namespace":
			return 2
		}
		return 3
	}
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int { return rank(a) - rank(b) })
	rs, err := c.resources()
	if err != nil {
		return err
	}
	var errs []error
	for _, o := range objs {
		if err := c.delete(ctx, o, rs); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// delete removes an object's finalizers and deletes it; a namespace is then finalized.
func (c *Cluster) delete(ctx context.Context, o *unstructured.Unstructured, rs []resource) error {
	gvr, err := gvrOf(o, rs)
	if err != nil {
		return err
	}
	client := c.Dynamic.Resource(gvr).Namespace(o.GetNamespace())
	if len(o.GetFinalizers()) > 0 {
		patch := []byte(`{"metadata":{"finalizers":null}}`)
		if _, err := client.Patch(ctx, o.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing the finalizers of %s: %w", nameOf(o), err)
		}
	}
	if err := client.Delete(ctx, o.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s: %w", nameOf(o), err)
	}
	if o.GetKind() != "Namespace" || o.GetAPIVersion() != "v1" {
		return nil
	}
	ns, err := c.Kube.CoreV1().Namespaces().Get(ctx, o.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finalizing namespace %s: %w", o.GetName(), err)
	}
	ns.Spec.Finalizers = []corev1.FinalizerName{}
	if _, err := c.Kube.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("finalizing namespace %s: %w", o.GetName(), err)
	}
	return nil
}

// gvrOf returns the resource of an object's kind among the served resources rs.
func gvrOf(o *unstructured.Unstructured, rs []resource) (schema.GroupVersionResource, error) {
	gvk := o.GroupVersionKind()
	for _, r := range rs {
		if r.GVR.Group == gvk.Group && r.Kind == gvk.Kind {
			return r.GVR.GroupResource().WithVersion(gvk.Version), nil
		}
	}
	return schema.GroupVersionResource{}, fmt.Errorf("the API server serves no %s", gvk)
}

// describe names the first object of a list.
func describe(objs []*unstructured.Unstructured) string {
	if len(objs) == 0 {
		return "nothing"
	}
	return nameOf(objs[0])
}

// nameOf names an object by kind, namespace and name.
func nameOf(o *unstructured.Unstructured) string {
	name := o.GetName()
	if o.GetNamespace() != "" {
		name = o.GetNamespace() + "/" + name
	}
	return o.GetKind() + " " + name
}
