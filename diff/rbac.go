package diff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/diff/permissions"
)

// PermissionChanges are the changes to what some subjects may do.
type PermissionChanges struct {
	// Grew is true when a change adds or widens a permission, or when the permissions could
	// not be compared.
	Grew bool `json:"grew"`
	// Changes are sorted by subject, then kind.
	Changes []PermissionChange `json:"changes"`
}

// PermissionChange is one group of grants a subject gains, loses or widens.
type PermissionChange struct {
	// Subject is "namespace/name" for a ServiceAccount, "User:name" or "Group:name".
	Subject string `json:"subject"`
	// Kind is "added", "removed", "widened", or "unknown" when the permissions could not be
	// compared.
	Kind string `json:"kind"`
	// Summary is one line for humans, such as "ops/etcd-operator gains get on secrets in
	// namespace ops".
	Summary string `json:"summary"`
	// Sensitive lists why the change deserves attention, sorted.
	Sensitive []string `json:"sensitive,omitempty"`
}

// unknownPermissions is the Kind of a change standing for permissions that could not be compared.
const unknownPermissions = "unknown"

// grows reports whether the change adds permissions (or may).
func (c PermissionChange) grows() bool {
	return c.Kind == permissions.Added || c.Kind == permissions.Widened || c.Kind == unknownPermissions
}

// add records a change.
func (p *PermissionChanges) add(c PermissionChange) {
	p.Changes = append(p.Changes, c)
	p.Grew = p.Grew || c.grows()
}

// Sensitive returns the distinct reasons, sorted, that the added or widened changes matter.
func (p PermissionChanges) Sensitive() []string {
	var out []string
	for _, c := range p.Changes {
		if c.grows() {
			out = append(out, c.Sensitive...)
		}
	}
	return distinctSorted(out)
}

// count returns the number of changes of a kind.
func (p PermissionChanges) count(kind string) int {
	n := 0
	for _, c := range p.Changes {
		if c.Kind == kind {
			n++
		}
	}
	return n
}

// addPermissions compares the permissions of both renders and hands each change to the
// upgrades whose CSVs use the subject's ServiceAccount. Before comparing, a resourceName equal
// to the old CSV of a renamed pair reads as the new CSV's name: the rule that lets an operator
// update its own OperatorCondition names the CSV, and follows it.
func addPermissions(a *attribution, before, after map[Key]*unstructured.Unstructured) {
	changes, err := permissions.Compare(rbacObjects(before, renames(a.upgrades)), rbacObjects(after, nil))
	if err != nil {
		a.other.Permissions.add(PermissionChange{Kind: unknownPermissions,
			Summary: fmt.Sprintf("permissions could not be compared: %v", err)})
		return
	}
	lines := permissions.Summary(changes)
	for i, c := range changes {
		pc := PermissionChange{Subject: c.Subject, Kind: c.Kind, Summary: lines[i], Sensitive: c.Sensitive}
		for _, d := range a.targets(func(p csvPair) bool { return slices.Contains(serviceAccounts(p), c.Subject) }) {
			d.Permissions.add(pc)
		}
	}
}

// renames maps the old CSV name of every renamed upgrade to the new one.
func renames(ups []Upgrade) map[string]string {
	out := map[string]string{}
	for _, u := range ups {
		if u.From != u.To {
			out[u.From] = u.To
		}
	}
	return out
}

// rbacObjects returns the RBAC objects of a render in key order, with the resourceNames of their
// rules renamed (copies are made; the render is not changed).
func rbacObjects(objs map[Key]*unstructured.Unstructured, rename map[string]string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, k := range sortedObjectKeys(objs) {
		if u := objs[k]; isRBAC(u) {
			out = append(out, renameResourceNames(u, rename))
		}
	}
	return out
}

// renameResourceNames returns u, or a copy of it whose rules' resourceNames are renamed.
func renameResourceNames(u *unstructured.Unstructured, rename map[string]string) *unstructured.Unstructured {
	rules, ok := u.Object["rules"].([]any)
	if !ok || len(rename) == 0 {
		return u
	}
	c := u.DeepCopy()
	rules = c.Object["rules"].([]any)
	for _, r := range rules {
		rule, ok := r.(map[string]any)
		if !ok {
			continue
		}
		names, _ := rule["resourceNames"].([]any)
		for i, n := range names {
			if s, ok := n.(string); ok && rename[s] != "" {
				names[i] = rename[s]
			}
		}
	}
	return c
}

// serviceAccounts returns the ServiceAccounts ("namespace/name") the pair's CSVs run their
// Deployments as or grant permissions to, sorted.
func serviceAccounts(p csvPair) []string {
	var out []string
	for _, csv := range p.csvs() {
		spec, _, _ := unstructured.NestedMap(csv.Object, "spec", "install", "spec")
		for _, field := range []string{"permissions", "clusterPermissions"} {
			list, _, _ := unstructured.NestedSlice(spec, field)
			for _, item := range list {
				if m, ok := item.(map[string]any); ok {
					name, _ := m["serviceAccountName"].(string)
					out = append(out, p.Namespace+"/"+name)
				}
			}
		}
		deps, _, _ := unstructured.NestedSlice(spec, "deployments")
		for _, item := range deps {
			if m, ok := item.(map[string]any); ok {
				name, _, _ := unstructured.NestedString(m, "spec", "template", "spec", "serviceAccountName")
				out = append(out, p.Namespace+"/"+cmp.Or(name, "default"))
			}
		}
	}
	return distinctSorted(out)
}

// subjectObject names the object a permission subject stands for: "ServiceAccount/ns/name",
// "User/name" or "Group/name".
func subjectObject(subject string) string {
	if kind, name, ok := strings.Cut(subject, ":"); ok {
		return kind + "/" + name
	}
	if subject == "" {
		return "RBAC"
	}
	return "ServiceAccount/" + subject
}
