package rbac

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GVKString is OLM's APIKeyToGVKString: "Kind.version.group".
func GVKString(gvk schema.GroupVersionKind) string {
	return strings.Join([]string{gvk.Kind, gvk.Version, gvk.Group}, ".")
}

// GVKHash is OLM's cache.APIKeyToGVKHash: the FNV-1a 64-bit hash of GVKString, in lower-case hex
// without zero padding.
func GVKHash(gvk schema.GroupVersionKind) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(GVKString(gvk))) // hash.Hash never returns an error
	return fmt.Sprintf("%x", h.Sum64())
}

// APISetString is OLM's APISet.String, the olm.providedAPIs annotation value: each API as
// GVKString, deduplicated, sorted byte-wise and joined with ",".
func APISetString(apis []schema.GroupVersionKind) string {
	strs := make([]string, 0, len(apis))
	for _, api := range apis {
		strs = append(strs, GVKString(api))
	}
	slices.Sort(strs)
	return strings.Join(slices.Compact(strs), ",")
}

// ProvidedAPIs is the provided API surface of a CSV (OLM apiSurfaceOfCSV): each owned CRD as
// {group: the CRD name after its first ".", version, kind}, each owned APIService as {group,
// version, kind}. Owned CRDs whose name has no "." are skipped (OLM fails the CSV on them). The
// result is deduplicated and sorted by GVKString.
func ProvidedAPIs(csv *v1alpha1.ClusterServiceVersion) []schema.GroupVersionKind {
	var apis []schema.GroupVersionKind
	for _, crd := range csv.Spec.CustomResourceDefinitions.Owned {
		_, group, ok := strings.Cut(crd.Name, ".")
		if !ok {
			continue
		}
		apis = append(apis, schema.GroupVersionKind{Group: group, Version: crd.Version, Kind: crd.Kind})
	}
	for _, svc := range csv.Spec.APIServiceDefinitions.Owned {
		apis = append(apis, schema.GroupVersionKind{Group: svc.Group, Version: svc.Version, Kind: svc.Kind})
	}
	return sortAPIs(apis)
}

// sortAPIs sorts by GVKString (then group, version, kind for a total order) and drops duplicates.
func sortAPIs(apis []schema.GroupVersionKind) []schema.GroupVersionKind {
	slices.SortFunc(apis, compareAPIs)
	return slices.Compact(apis)
}

func compareAPIs(a, b schema.GroupVersionKind) int {
	if c := strings.Compare(GVKString(a), GVKString(b)); c != 0 {
		return c
	}
	return strings.Compare(a.String(), b.String())
}

// aggregationLabel is OLM's aggregationLabelFromAPIKey: the label a per-API ClusterRole carries and
// an OperatorGroup ClusterRole selects.
func aggregationLabel(gvk schema.GroupVersionKind, suffix string) string {
	return "olm.opgroup.permissions/aggregate-to-" + GVKHash(gvk) + "-" + suffix
}
