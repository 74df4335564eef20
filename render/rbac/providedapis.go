package rbac

import (
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Role suffixes, in OLM's order (operatorgroup.go Suffices).
const (
	AdminSuffix = "admin"
	EditSuffix  = "edit"
	ViewSuffix  = "view"
)

var suffixes = []string{AdminSuffix, EditSuffix, ViewSuffix}

// verbsFor is OLM's VerbsForSuffix; it returns a fresh slice on every call.
func verbsFor(suffix string) []string {
	switch suffix {
	case AdminSuffix:
		return []string{"*"}
	case EditSuffix:
		return []string{"create", "update", "patch", "delete"}
	default:
		return []string{"get", "list", "watch"}
	}
}

// apiRole is what ensureProvidedAPIClusterRole needs to build one ClusterRole.
type apiRole struct {
	name          string
	suffix        string
	verbs         []string
	group         string
	resource      string
	resourceNames []string
	api           schema.GroupVersionKind
}

// ProvidedAPIClusterRoles returns the ClusterRoles OLM's ensureClusterRolesForCSV creates once the
// CSV succeeds: per owned CRD "<crd>-<version>-{admin,edit,view}" and "<crd>-<version>-crdview",
// per owned APIService "<name>-<version>-{admin,edit,view}". Sorted by name; a name produced twice
// (duplicate owned entries) keeps the last, as OLM's update does. ownerReferences are omitted: OLM
// points them at the live CRD or APIService and needs its UID.
func ProvidedAPIClusterRoles(csv *v1alpha1.ClusterServiceVersion) []*rbacv1.ClusterRole {
	var specs []apiRole
	for _, crd := range csv.Spec.CustomResourceDefinitions.Owned {
		plural, group, ok := strings.Cut(crd.Name, ".")
		if !ok {
			continue // OLM: "invalid parsing of name"
		}
		api := schema.GroupVersionKind{Group: group, Version: crd.Version, Kind: crd.Kind}
		prefix := crd.Name + "-" + crd.Version + "-"
		specs = append(specs, suffixRoles(prefix, group, plural, api)...)
		specs = append(specs, apiRole{
			name: prefix + "crd" + ViewSuffix, suffix: ViewSuffix, verbs: []string{"get"},
			group: "apiextensions.k8s.io", resource: "customresourcedefinitions",
			resourceNames: []string{crd.Name}, api: api,
		})
	}
	for _, svc := range csv.Spec.APIServiceDefinitions.Owned {
		api := schema.GroupVersionKind{Group: svc.Group, Version: svc.Version, Kind: svc.Kind}
		specs = append(specs, suffixRoles(svc.Name+"-"+svc.Version+"-", svc.Group, svc.Name, api)...)
	}
	roles := make([]*rbacv1.ClusterRole, 0, len(specs))
	for _, spec := range specs {
		roles = append(roles, spec.clusterRole())
	}
	return sortByName(roles)
}

// suffixRoles returns the admin, edit and view roles of one API.
func suffixRoles(prefix, group, resource string, api schema.GroupVersionKind) []apiRole {
	out := make([]apiRole, 0, len(suffixes))
	for _, suffix := range suffixes {
		out = append(out, apiRole{
			name: prefix + suffix, suffix: suffix, verbs: verbsFor(suffix),
			group: group, resource: resource, api: api,
		})
	}
	return out
}

// clusterRole builds the ClusterRole as ensureProvidedAPIClusterRole does.
func (r apiRole) clusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{
			Name: r.name,
			Labels: map[string]string{
				"rbac.authorization.k8s.io/aggregate-to-" + r.suffix: "true",
				aggregationLabel(r.api, r.suffix):                    "true",
				ManagedLabel:                                         ManagedValue,
			},
		},
		Rules: []rbacv1.PolicyRule{{
			Verbs:         r.verbs,
			APIGroups:     []string{r.group},
			Resources:     []string{r.resource},
			ResourceNames: r.resourceNames,
		}},
	}
}
