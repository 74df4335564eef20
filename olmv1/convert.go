package olmv1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// clusterScoped are the kinds v1's renderer writes that the API server keeps in no namespace:
// it drops the namespace a request gives them (the renderer names its install namespace on
// webhook configurations, and keeps the one a bundle's cluster-scoped object was written with).
var clusterScoped = map[string]bool{
	"CustomResourceDefinition": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"PriorityClass": true, "ConsoleYAMLSample": true, "ConsoleQuickStart": true,
	"ConsoleCLIDownload": true, "ConsoleLink": true, "ConsolePlugin": true,
	"ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
}

// toUnstructured converts a generated object as the API server stores what it is sent: without
// the zero creationTimestamp, without status (which creating an object of these kinds
// ignores), without nulls (read as absent), and without a namespace when cluster-scoped.
func toUnstructured(obj any) (*unstructured.Unstructured, error) {
	var u *unstructured.Unstructured
	if typed, ok := obj.(*unstructured.Unstructured); ok {
		u = typed.DeepCopy()
	} else {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("converting %T: %w", obj, err)
		}
		u = &unstructured.Unstructured{Object: m}
	}
	clean(u.Object)
	if clusterScoped[u.GetKind()] {
		u.SetNamespace("")
	}
	return u, nil
}

// clean removes the zero creationTimestamp of an object and of a pod template, its status, and
// every null.
func clean(m map[string]any) {
	delete(m, "status")
	dropNulls(m)
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	if spec, ok := m["spec"].(map[string]any); ok {
		if tmpl, ok := spec["template"].(map[string]any); ok {
			if meta, ok := tmpl["metadata"].(map[string]any); ok {
				delete(meta, "creationTimestamp")
			}
		}
	}
}

// dropNulls removes every null field, recursively.
func dropNulls(m map[string]any) {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			dropNulls(v)
		case []any:
			for _, e := range v {
				if e, ok := e.(map[string]any); ok {
					dropNulls(e)
				}
			}
		}
	}
}

// objectID names an object by kind, group, namespace and name.
func objectID(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	kind := gvk.Kind
	if gvk.Group != "" {
		kind += "." + gvk.Group
	}
	if ns := u.GetNamespace(); ns != "" {
		return kind + " " + ns + "/" + u.GetName()
	}
	return kind + " " + u.GetName()
}

// render renders the bundle, every object converted as the API server stores it.
func (g *generation) render() ([]*unstructured.Unstructured, error) {
	objs, err := g.objects()
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		u, err := toUnstructured(o)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}
