package emit

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Sort sorts objects in apply order: fluxcd/pkg/ssa's kind rank (CRDs and Namespaces first,
// webhook configurations last), then kind, group, namespace, name and apiVersion, a total order.
func Sort(objs []*unstructured.Unstructured) {
	slices.SortStableFunc(objs, Compare)
}

// Compare orders two objects as Sort does.
func Compare(a, b *unstructured.Unstructured) int {
	ga, gb := a.GroupVersionKind(), b.GroupVersionKind()
	return cmp.Or(
		cmp.Compare(KindRank(ga.Kind), KindRank(gb.Kind)),
		cmp.Compare(ga.Kind, gb.Kind),
		cmp.Compare(ga.Group, gb.Group),
		cmp.Compare(a.GetNamespace(), b.GetNamespace()),
		cmp.Compare(a.GetName(), b.GetName()),
		cmp.Compare(ga.Version, gb.Version),
	)
}

// KindRank orders kinds as ssa.ReconcileOrder does: its First kinds in order, then every other
// kind, then its Last kinds.
func KindRank(kind string) int {
	if i := slices.Index(ssa.ReconcileOrder.First, kind); i >= 0 {
		return i
	}
	if i := slices.Index(ssa.ReconcileOrder.Last, kind); i >= 0 {
		return len(ssa.ReconcileOrder.First) + 1 + i
	}
	return len(ssa.ReconcileOrder.First)
}

// Marshal encodes one object as YAML with sorted keys.
func Marshal(u *unstructured.Unstructured) ([]byte, error) {
	b, err := encode(u.Object)
	if err != nil {
		return nil, fmt.Errorf("encoding %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return b, nil
}

// Stream writes the objects, in the order given, as a multi-document YAML stream. It encodes
// everything before writing anything, so an encoding error writes nothing.
func Stream(w io.Writer, objs []*unstructured.Unstructured) error {
	var buf bytes.Buffer
	for i, u := range objs {
		b, err := Marshal(u)
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(b)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
