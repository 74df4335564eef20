package diff

import (
	"cmp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/emit"
)

// Key identifies an object across two renders (emit.Key).
type Key = emit.Key

// KeyOf returns the key of an object.
func KeyOf(u *unstructured.Unstructured) Key { return emit.KeyOf(u) }

// rank orders kinds as emit sorts objects (ssa.ReconcileOrder).
func rank(kind string) int { return emit.KindRank(kind) }

// compareKeys is a total order: kind rank, kind, group, namespace, name.
func compareKeys(a, b Key) int {
	return cmp.Or(
		cmp.Compare(rank(a.Kind), rank(b.Kind)),
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Group, b.Group),
		cmp.Compare(a.Namespace, b.Namespace),
		cmp.Compare(a.Name, b.Name),
	)
}

// matchesKind reports whether a key's kind is named by pattern: "Kind" (any group) or
// "group/Kind" ("/Kind" for the core group). Kinds compare case-insensitively.
func matchesKind(k Key, pattern string) bool {
	group, kind, grouped := strings.Cut(pattern, "/")
	if !grouped {
		return strings.EqualFold(pattern, k.Kind)
	}
	return group == k.Group && strings.EqualFold(kind, k.Kind)
}

// label names the change's object: "Kind/namespace/name", or "Kind/namespace/old → new" when
// it was renamed.
func (c *Change) label() string {
	if c.From == nil {
		return c.Key.String()
	}
	return c.From.String() + " → " + c.Key.Name
}
