package live

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// CollectGarbage stands in for kube-controller-manager's garbage collector, which does not run
// here: it deletes every object all of whose owners (ownerReferences, by UID) are gone, as the
// collector does for objects whose owner was deleted with the default (background)
// propagation; OLM relies on it to remove what a replaced CSV owned. It returns how many
// objects it deleted. Settle runs it while it waits.
func (c *Cluster) CollectGarbage(ctx context.Context) (int, error) {
	objs, err := c.list(ctx)
	if err != nil {
		return 0, err
	}
	return c.collect(ctx, objs)
}

// collect deletes the objects of objs (every object in the cluster) whose owners are gone.
func (c *Cluster) collect(ctx context.Context, objs []*unstructured.Unstructured) (int, error) {
	exists := map[types.UID]bool{}
	for _, o := range objs {
		exists[o.GetUID()] = true
	}
	rs, err := c.resources()
	if err != nil {
		return 0, err
	}
	deleted := 0
	var errs []error
	for _, o := range objs {
		refs := o.GetOwnerReferences()
		if len(refs) == 0 || o.GetDeletionTimestamp() != nil {
			continue
		}
		orphan := true
		for _, r := range refs {
			orphan = orphan && !exists[r.UID]
		}
		if !orphan {
			continue
		}
		gvr, err := gvrOf(o, rs)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		uid := o.GetUID()
		err = c.Dynamic.Resource(gvr).Namespace(o.GetNamespace()).Delete(ctx, o.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		switch {
		case err == nil:
			deleted++
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		default:
			errs = append(errs, fmt.Errorf("collecting %s: %w", nameOf(o), err))
		}
	}
	return deleted, errors.Join(errs...)
}
