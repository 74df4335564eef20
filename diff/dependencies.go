package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DependencyChange is a requirement a CSV added or dropped, or an operator installed or removed.
type DependencyChange struct {
	// Action is "added" or "deleted".
	Action Action `json:"action"`
	// Type is the property type ("olm.gvk.required", "olm.package.required", "olm.constraint"...)
	// or "operator" for a CSV that appears or disappears.
	Type string `json:"type"`
	// Value describes the requirement, such as "example.com/v1alpha1 Gadget",
	// "gadget-operator >=1.0.0", or for an operator "ClusterServiceVersion/ops/x (package p)".
	Value string `json:"value"`
}

// String reads "requires olm.gvk.required example.com/v1alpha1 Gadget", "no longer requires
// ...", "installs operator ..." or "removes operator ...".
func (c DependencyChange) String() string {
	if c.Type == operatorDependency {
		if c.Action == Added {
			return "installs " + c.Value
		}
		return "removes " + c.Value
	}
	if c.Action == Added {
		return "requires " + c.Type + " " + c.Value
	}
	return "no longer requires " + c.Type + " " + c.Value
}

const operatorDependency = "operator"

// dependencyChanges compares the requirements of the pair's CSVs.
func dependencyChanges(p csvPair) []DependencyChange {
	old, cur := requirements(p.before), requirements(p.after)
	var out []DependencyChange
	for _, k := range unionSorted(sortedKeys(old), sortedKeys(cur)) {
		switch d := cur[k]; {
		case old[k] == DependencyChange{}:
			out = append(out, DependencyChange{Action: Added, Type: d.Type, Value: d.Value})
		case d == DependencyChange{}:
			out = append(out, DependencyChange{Action: Deleted, Type: old[k].Type, Value: old[k].Value})
		}
	}
	return out
}

// requirements returns a CSV's requirements by "type value": the required properties of its
// operatorframework.io/properties annotation (types ending in ".required", and olm.constraint),
// and its required CRDs and API services as olm.gvk.required.
func requirements(csv *unstructured.Unstructured) map[string]DependencyChange {
	out := map[string]DependencyChange{}
	add := func(typ, value string) { out[typ+" "+value] = DependencyChange{Type: typ, Value: value} }
	for _, p := range properties(csv) {
		if strings.HasSuffix(p.Type, ".required") || p.Type == "olm.constraint" {
			add(p.Type, propertyValue(p))
		}
	}
	for _, field := range []string{"customresourcedefinitions", "apiservicedefinitions"} {
		list, _, _ := unstructured.NestedSlice(csv.Object, "spec", field, "required")
		for _, item := range list {
			if m, ok := item.(map[string]any); ok {
				add("olm.gvk.required", requiredGVK(m))
			}
		}
	}
	return out
}

// propertyValue describes a required property: "group/version Kind" for a GVK, "package range"
// for a package, compact JSON otherwise.
func propertyValue(p property) string {
	var v struct {
		Group, Version, Kind      string
		PackageName, VersionRange string
	}
	if json.Unmarshal(p.Value, &v) == nil {
		switch p.Type {
		case "olm.gvk.required":
			return gvkString(v.Group, v.Version, v.Kind)
		case "olm.package.required":
			return strings.TrimSpace(v.PackageName + " " + v.VersionRange)
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, p.Value); err != nil {
		return string(p.Value)
	}
	return compact.String()
}

// requiredGVK describes a required CRD ("plural.group", version, kind) or API service (group,
// version, kind) as "group/version Kind".
func requiredGVK(m map[string]any) string {
	name, _ := m["name"].(string)
	group, _ := m["group"].(string)
	version, _ := m["version"].(string)
	kind, _ := m["kind"].(string)
	if group == "" {
		_, group, _ = strings.Cut(name, ".")
	}
	return gvkString(group, version, kind)
}

func gvkString(group, version, kind string) string {
	if group == "" {
		return version + " " + kind
	}
	return group + "/" + version + " " + kind
}

// operatorsAddedOrRemoved lists the operator CSVs no upgrade accounts for: installed or removed.
func operatorsAddedOrRemoved(changes []*Change, ups []Upgrade) []DependencyChange {
	var out []DependencyChange
	for _, ch := range changes {
		u := ch.object()
		if ch.Action == Modified || !isOperatorCSV(u) || upgraded(ups, u) {
			continue
		}
		value := ch.Key.String()
		if pkg := packageOf(u); pkg != "" {
			value += fmt.Sprintf(" (package %s)", pkg)
		}
		out = append(out, DependencyChange{Action: ch.Action, Type: operatorDependency, Value: value})
	}
	return out
}

// upgraded reports whether a CSV is one end of an upgrade.
func upgraded(ups []Upgrade, u *unstructured.Unstructured) bool {
	for _, up := range ups {
		if up.Namespace == u.GetNamespace() && (up.From == u.GetName() || up.To == u.GetName()) {
			return true
		}
	}
	return false
}

// InstallModeChange is an install mode whose support changed.
type InstallModeChange struct {
	Type string `json:"type"`
	// From and To tell whether the old and new CSV support it (a mode not listed is not).
	From bool `json:"from"`
	To   bool `json:"to"`
}

// String reads "SingleNamespace: supported → not supported".
func (c InstallModeChange) String() string {
	return c.Type + ": " + supported(c.From) + " → " + supported(c.To)
}

func supported(b bool) string {
	if b {
		return "supported"
	}
	return "not supported"
}

// installModeChanges compares spec.installModes of the pair's CSVs.
func installModeChanges(p csvPair) []InstallModeChange {
	old, cur := installModes(p.before), installModes(p.after)
	var out []InstallModeChange
	for _, t := range unionSorted(sortedKeys(old), sortedKeys(cur)) {
		if old[t] != cur[t] {
			out = append(out, InstallModeChange{Type: t, From: old[t], To: cur[t]})
		}
	}
	return out
}

// installModes returns whether a CSV supports each install mode it lists.
func installModes(csv *unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	list, _, _ := unstructured.NestedSlice(csv.Object, "spec", "installModes")
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			t, _ := m["type"].(string)
			s, _ := m["supported"].(bool)
			out[t] = s
		}
	}
	return out
}
