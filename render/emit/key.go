package emit

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Key identifies an object across renders: its group, kind, namespace and name (the version is
// left out, so an object moving to another version of its kind keeps its key).
type Key struct {
	Group     string `json:"group,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// KeyOf returns the key of an object.
func KeyOf(u *unstructured.Unstructured) Key {
	gvk := u.GroupVersionKind()
	return Key{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

// String returns Kind/namespace/name, or Kind/name for cluster-scoped objects.
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Kind + "/" + k.Name
	}
	return k.Kind + "/" + k.Namespace + "/" + k.Name
}
