package render

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/olm-render/olm-render/render/emit"
)

// collector gathers rendered objects, typed or not, keyed so that one object is rendered once.
type collector struct {
	objs  []*unstructured.Unstructured
	index map[emit.Key]int
	errs  []error
	// declared names the input that declared an object passed through, by key.
	declared map[emit.Key]string
}

// addDeclared adds an object the inputs declare (passed through), remembering where.
func (c *collector) addDeclared(u *unstructured.Unstructured, origin string) {
	if c.declared == nil {
		c.declared = map[emit.Key]string{}
	}
	c.declared[emit.KeyOf(u)] = origin
	c.add(u)
}

// add converts obj to unstructured and adds it; a later object with the same key replaces an
// earlier identical one and is an error when different.
func (c *collector) add(obj any) {
	u, err := toUnstructured(obj)
	if err != nil {
		c.errs = append(c.errs, err)
		return
	}
	if c.index == nil {
		c.index = map[emit.Key]int{}
	}
	k := emit.KeyOf(u)
	if i, ok := c.index[k]; ok {
		switch {
		case u.GetKind() == "CustomResourceDefinition":
			// A CRD several CSVs install: the last one applied wins, keeping every CSV's
			// installed-alongside annotation and component label, as OLM's CRD update does.
			c.objs[i] = mergeCRD(c.objs[i], u)
		case !equalObjects(c.objs[i], u):
			if origin, ok := c.declared[k]; ok {
				c.errs = append(c.errs, fmt.Errorf("%s: %s: declared in the inputs and also created by OLM for an operator, differently: remove it from the inputs (the render holds OLM's)", origin, k))
				return
			}
			c.errs = append(c.errs, fmt.Errorf("two different objects would be rendered as %s", k))
		}
		return
	}
	c.index[k] = len(c.objs)
	c.objs = append(c.objs, u)
}

func (c *collector) objects() ([]*unstructured.Unstructured, error) {
	if len(c.errs) > 0 {
		return nil, c.errs[0]
	}
	return c.objs, nil
}

// toUnstructured converts a typed object, dropping the empty fields the Go types always carry
// (creationTimestamp: null, an empty status).
func toUnstructured(obj any) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: m}
	clean(u.Object)
	return u, nil
}

// clean removes the null creationTimestamp of the object and of a pod template, and an empty
// top-level status.
func clean(m map[string]any) {
	dropTimestamp(m)
	if spec, ok := m["spec"].(map[string]any); ok {
		if tmpl, ok := spec["template"].(map[string]any); ok {
			dropTimestamp(tmpl)
		}
	}
	if st, ok := m["status"].(map[string]any); ok {
		for k, v := range st {
			if v == nil {
				delete(st, k)
			}
		}
		if len(st) == 0 {
			delete(m, "status")
		}
	}
}

func dropTimestamp(m map[string]any) {
	meta, ok := m["metadata"].(map[string]any)
	if !ok {
		return
	}
	if v, ok := meta["creationTimestamp"]; ok && v == nil {
		delete(meta, "creationTimestamp")
	}
	if len(meta) == 0 {
		delete(m, "metadata")
	}
}

func equalObjects(a, b *unstructured.Unstructured) bool {
	return fmt.Sprint(a.Object) == fmt.Sprint(b.Object)
}

// mergeCRD returns next with the labels and annotations of prev it lacks.
func mergeCRD(prev, next *unstructured.Unstructured) *unstructured.Unstructured {
	out := next.DeepCopy()
	labels, annotations := out.GetLabels(), out.GetAnnotations()
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	for k, v := range prev.GetLabels() {
		if _, ok := labels[k]; !ok {
			labels[k] = v
		}
	}
	for k, v := range prev.GetAnnotations() {
		if _, ok := annotations[k]; !ok {
			annotations[k] = v
		}
	}
	out.SetLabels(labels)
	out.SetAnnotations(annotations)
	return out
}
