package olmv1

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

// ruleDependency is where v1 refuses a bundle that declares a dependency.
const ruleDependency = "resolve/validation.go NoDependencyValidation"

// dependencyTypes are the properties NoDependencyValidation refuses.
var dependencyTypes = []string{catalog.TypePackageRequired, catalog.TypeGVKRequired, catalog.TypeConstraint}

// dependencies returns a reason for each dependency the bundle declares, naming where it is
// declared: in a file-based catalog, the bundle's properties; in a bundle directory, the CSV's
// required CRD or APIService opm derives it from, else metadata/dependencies.yaml.
func dependencies(b *catalog.Bundle, csv *v1alpha1.ClusterServiceVersion, csvOrigin diag.Origin) []Reason {
	var out []Reason
	for _, p := range b.Properties {
		if !isDependency(p.Type) {
			continue
		}
		r := Reason{Code: CodeDependency, Origin: b.Origin, Object: fmt.Sprintf("bundle %q", b.Name), Field: "properties", Rule: ruleDependency}
		if b.DependenciesOrigin.File != "" {
			r.Origin, r.Field = b.DependenciesOrigin, "dependencies"
		}
		what := describeDependency(p)
		if field, ok := requiredField(p, csv); ok && !declaredInFBC(b) {
			r.Origin, r.Object, r.Field = csvOrigin, "ClusterServiceVersion/"+csv.Name, field
		}
		r.Message = fmt.Sprintf("%s declares %s %s: operator-controller refuses a bundle that declares a dependency (bundle %q has a dependency declared via property %q which is currently not supported), and installs no dependency; install what it needs as its own ClusterExtension and use a bundle that declares none",
			b.Name, p.Type, what, b.Name, p.Type)
		out = append(out, r)
	}
	return out
}

// declaredInFBC reports whether a bundle's properties are written in a file-based catalog
// (rather than derived from a bundle directory by opm).
func declaredInFBC(b *catalog.Bundle) bool { return len(b.InlineObjects) > 0 || b.CSVMetadata != nil }

// isDependency reports whether a property type declares a dependency.
func isDependency(typ string) bool { return slices.Contains(dependencyTypes, typ) }

// describeDependency says what a dependency property asks for.
func describeDependency(p catalog.Property) string {
	switch p.Type {
	case catalog.TypeGVKRequired:
		var v catalog.GVKValue
		if json.Unmarshal(p.Value, &v) == nil {
			return fmt.Sprintf("on the %s API (%s/%s %s)", v.Kind, v.Group, v.Version, v.Kind)
		}
	case catalog.TypePackageRequired:
		var v catalog.PackageRequiredValue
		if json.Unmarshal(p.Value, &v) == nil {
			return fmt.Sprintf("on package %s %s", v.PackageName, v.VersionRange)
		}
	case catalog.TypeConstraint:
		var v struct {
			FailureMessage string `json:"failureMessage"`
		}
		if json.Unmarshal(p.Value, &v) == nil && v.FailureMessage != "" {
			return fmt.Sprintf("%s (%s)", string(p.Value), v.FailureMessage)
		}
	}
	return string(p.Value)
}

// requiredField finds the CSV field opm derived an olm.gvk.required property from:
// spec.customresourcedefinitions.required or spec.apiservicedefinitions.required.
func requiredField(p catalog.Property, csv *v1alpha1.ClusterServiceVersion) (string, bool) {
	var v catalog.GVKValue
	if csv == nil || p.Type != catalog.TypeGVKRequired || json.Unmarshal(p.Value, &v) != nil {
		return "", false
	}
	for i, crd := range csv.Spec.CustomResourceDefinitions.Required {
		_, group, _ := strings.Cut(crd.Name, ".")
		if group == v.Group && crd.Kind == v.Kind && crd.Version == v.Version {
			return fmt.Sprintf("spec.customresourcedefinitions.required[%d]", i), true
		}
	}
	for i, api := range csv.Spec.APIServiceDefinitions.Required {
		if api.Group == v.Group && api.Kind == v.Kind && api.Version == v.Version {
			return fmt.Sprintf("spec.apiservicedefinitions.required[%d]", i), true
		}
	}
	return "", false
}
