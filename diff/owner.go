package diff

import (
	"encoding/json"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	csvGroup            = "operators.coreos.com"
	csvKind             = "ClusterServiceVersion"
	copiedFromKey       = "olm.copiedFrom"
	ownerLabel          = "olm.owner"
	ownerKindLabel      = "olm.owner.kind"
	ownerNamespaceLabel = "olm.owner.namespace"
	skipRangeKey        = "olm.skipRange"
	propertiesKey       = "operatorframework.io/properties"
	packageLabelPrefix  = "operators.coreos.com/"
)

// isCSV reports whether u is a ClusterServiceVersion, copied or not.
func isCSV(u *unstructured.Unstructured) bool {
	return u != nil && u.GetKind() == csvKind && u.GroupVersionKind().Group == csvGroup
}

// isOperatorCSV reports whether u is a CSV that is not a copy.
func isOperatorCSV(u *unstructured.Unstructured) bool {
	return isCSV(u) && copiedFrom(u) == ""
}

// isCopiedCSV reports whether u is a copy OLM made of a CSV in a target namespace.
func isCopiedCSV(u *unstructured.Unstructured) bool {
	return isCSV(u) && copiedFrom(u) != ""
}

// copiedFrom returns the namespace a copied CSV was copied from, "" for other objects.
func copiedFrom(u *unstructured.Unstructured) string {
	return u.GetLabels()[copiedFromKey]
}

// packageLabel returns the operators.coreos.com/<package>.<namespace> label key, if any.
func packageLabel(u *unstructured.Unstructured) string {
	for _, k := range sortedKeys(u.GetLabels()) {
		if strings.HasPrefix(k, packageLabelPrefix) {
			return k
		}
	}
	return ""
}

// packageOf returns the package of a CSV: from its operators.coreos.com/<package>.<namespace>
// label, else from the olm.package property of its operatorframework.io/properties annotation.
func packageOf(u *unstructured.Unstructured) string {
	if l := packageLabel(u); l != "" {
		name := strings.TrimPrefix(l, packageLabelPrefix)
		return strings.TrimSuffix(name, "."+u.GetNamespace())
	}
	for _, p := range properties(u) {
		if p.Type != "olm.package" {
			continue
		}
		var v struct {
			PackageName string `json:"packageName"`
		}
		if json.Unmarshal(p.Value, &v) == nil && v.PackageName != "" {
			return v.PackageName
		}
	}
	return ""
}

// property is one entry of the operatorframework.io/properties annotation.
type property struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// properties decodes the operatorframework.io/properties annotation; nil when it is missing or
// malformed.
func properties(u *unstructured.Unstructured) []property {
	raw := u.GetAnnotations()[propertiesKey]
	if raw == "" {
		return nil
	}
	var doc struct {
		Properties []property `json:"properties"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		return nil
	}
	return doc.Properties
}

// ownerRef names a CSV by namespace and name.
type ownerRef struct {
	Namespace, Name string
}

// ownerOf returns the CSV an object belongs to: the olm.owner labels when they name a CSV (the
// object's own namespace when olm.owner.namespace is missing), else the object's own name and
// namespace, which lookups only accept when a CSV of that name is known there (OLM names the
// OperatorCondition and its Role and RoleBinding after the CSV, without owner labels).
func ownerOf(u *unstructured.Unstructured) ownerRef {
	labels := u.GetLabels()
	if owner := labels[ownerLabel]; owner != "" && labels[ownerKindLabel] == csvKind {
		ns := labels[ownerNamespaceLabel]
		if ns == "" {
			ns = u.GetNamespace()
		}
		return ownerRef{Namespace: ns, Name: owner}
	}
	return ownerRef{Namespace: u.GetNamespace(), Name: u.GetName()}
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
