package importer

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/resolver/lock"
)

// Files lays an import out as files: one per kind and namespace, "<namespace>/<kinds>.yaml"
// (e.g. "operators/subscriptions.yaml"), cluster-scoped kinds at the top ("namespaces.yaml",
// "olmconfigs.yaml"), each object of a file sorted by name; and the lock as lock.FileName, where
// `olm-render render DIR` reads it.
func Files(objs []*unstructured.Unstructured, l *lock.Lock) (map[string][]byte, error) {
	groups := map[string][]*unstructured.Unstructured{}
	for _, o := range objs {
		name := FileName(o)
		groups[name] = append(groups[name], o)
	}
	files := make(map[string][]byte, len(groups)+1)
	for name, group := range groups {
		slices.SortStableFunc(group, func(a, b *unstructured.Unstructured) int {
			return cmp.Compare(a.GetName(), b.GetName())
		})
		var buf bytes.Buffer
		if err := emit.Stream(&buf, group); err != nil {
			return nil, err
		}
		files[name] = buf.Bytes()
	}
	data, err := lock.Marshal(l)
	if err != nil {
		return nil, err
	}
	files[lock.FileName] = data
	return files, nil
}

// FileName is the file of an object in an import: "<namespace>/<kinds>.yaml", or "<kinds>.yaml"
// for a cluster-scoped object (a Namespace's name has no ".", so the two never collide).
func FileName(u *unstructured.Unstructured) string {
	name := strings.ToLower(u.GetKind()) + "s.yaml"
	if ns := u.GetNamespace(); ns != "" {
		return ns + "/" + name
	}
	return name
}
