package live

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// ErrNotServed is the error of an object whose kind the API server does not serve.
var ErrNotServed = errors.New("the API server does not serve its kind")

// AsStored returns each object as the API server would store it were it applied now: with the
// API server's defaults and the fields it sets, from a server-side dry-run (nothing is
// written): a create, or, when the object exists, an update replacing it. errs[i] is why
// object i could not be dry-run (the API server refused it, or ErrNotServed); out[i] is then
// nil.
func (c *Cluster) AsStored(ctx context.Context, objs []*unstructured.Unstructured) (out []*unstructured.Unstructured, errs []error, err error) {
	rs, err := c.resources()
	if err != nil {
		return nil, nil, err
	}
	out, errs = make([]*unstructured.Unstructured, len(objs)), make([]error, len(objs))
	for i, o := range objs {
		gvr, err := gvrOf(o, rs)
		if err != nil {
			errs[i] = fmt.Errorf("%s: %w", nameOf(o), ErrNotServed)
			continue
		}
		out[i], errs[i] = c.dryRun(ctx, c.Dynamic.Resource(gvr).Namespace(o.GetNamespace()), o)
	}
	return out, errs, nil
}

// dryRun creates an object, or replaces it when it exists, without writing anything. A
// controller that writes the live object between the read and the replacement (catalogd's
// status, a finalizer) makes the replacement conflict: it is read again and retried.
func (c *Cluster) dryRun(ctx context.Context, client dynamic.ResourceInterface, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	created, err := client.Create(ctx, o.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: FieldManager})
	if !apierrors.IsAlreadyExists(err) {
		return created, err
	}
	var replaced *unstructured.Unstructured
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		live, err := client.Get(ctx, o.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		replacement := o.DeepCopy()
		replacement.SetResourceVersion(live.GetResourceVersion())
		replaced, err = client.Update(ctx, replacement, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: FieldManager})
		return err
	})
	return replaced, err
}
