package diff

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/olmv1"
)

// extension builds a ClusterExtension of package pkg installed into ns at version, with
// upgradeConstraintPolicy policy when given.
func extension(name, ns, pkg, version, policy string) *unstructured.Unstructured {
	u := obj(olmv1.APIVersion, "ClusterExtension", "", name)
	catalog := map[string]any{"packageName": pkg, "version": version}
	if policy != "" {
		catalog["upgradeConstraintPolicy"] = policy
	}
	u.Object["spec"] = map[string]any{"namespace": ns, "source": map[string]any{"sourceType": "Catalog", "catalog": catalog}}
	return u
}

// extensionRender is a render for a cluster where OLM v1 runs: the ClusterExtensions Git
// applies, then a predicted Deployment of each.
func extensionRender(exts ...*unstructured.Unstructured) []*unstructured.Unstructured {
	out := slices.Clone(exts)
	for _, e := range exts {
		ns, _, _ := unstructured.NestedString(e.Object, "spec", "namespace")
		d := obj("apps/v1", "Deployment", ns, e.GetName()+"-controller")
		d.SetLabels(map[string]string{olmv1.OwnerKindLabel: "ClusterExtension", olmv1.OwnerNameLabel: e.GetName()})
		out = append(out, mark(d)...)
	}
	return out
}

// TestDiffExtensionChanges: what operator-controller will do, in words, for each way a
// ClusterExtension's version moves, and the downgrade gate where it goes back.
func TestDiffExtensionChanges(t *testing.T) {
	tests := []struct {
		name          string
		before, after []*unstructured.Unstructured
		want          []string
		downgrade     string
	}{{
		name:   "install",
		before: extensionRender(extension("a", "ns-a", "pkg-a", "1.0.0", "")),
		after:  extensionRender(extension("a", "ns-a", "pkg-a", "1.0.0", ""), extension("b", "ns-b", "pkg-b", "2.0.0", "")),
		want:   []string{"ns-b: operator-controller will install pkg-b 2.0.0"},
	}, {
		name:   "upgrade",
		before: extensionRender(extension("a", "ns-a", "pkg-a", "1.0.0", "")),
		after:  extensionRender(extension("a", "ns-a", "pkg-a", "1.1.0", "")),
		want:   []string{"ns-a: operator-controller will upgrade pkg-a 1.0.0 → 1.1.0"},
	}, {
		name:      "downgrade refused",
		before:    extensionRender(extension("a", "ns-a", "pkg-a", "1.1.0", "CatalogProvided")),
		after:     extensionRender(extension("a", "ns-a", "pkg-a", "1.0.0", "CatalogProvided")),
		want:      []string{"ns-a: operator-controller will not install pkg-a 1.0.0: it never goes back from 1.1.0 unless upgradeConstraintPolicy is SelfCertified, so 1.1.0 stays and the ClusterExtension reports the error in its Progressing condition"},
		downgrade: "operator-controller refuses it",
	}, {
		name:      "downgrade self-certified",
		before:    extensionRender(extension("a", "ns-a", "pkg-a", "1.1.0", "SelfCertified")),
		after:     extensionRender(extension("a", "ns-a", "pkg-a", "1.0.0", "SelfCertified")),
		want:      []string{"ns-a: operator-controller will downgrade pkg-a 1.1.0 → 1.0.0: upgradeConstraintPolicy is SelfCertified"},
		downgrade: "which operator-controller installs",
	}, {
		name:   "uninstall",
		before: extensionRender(extension("a", "ns-a", "pkg-a", "1.0.0", ""), extension("b", "ns-b", "pkg-b", "2.0.0", "")),
		after:  extensionRender(extension("a", "ns-a", "pkg-a", "1.0.0", "")),
		want:   []string{"ns-b: operator-controller will uninstall pkg-b 2.0.0: deleting ClusterExtension b deletes everything it installed, its CRDs and every custom resource of them too"},
	}, {
		name:   "nothing moved",
		before: extensionRender(extension("a", "ns-a", "pkg-a", "1.0.0", "")),
		after:  extensionRender(extension("a", "ns-a", "pkg-a", "1.0.0", "SelfCertified")),
		want:   []string{"Nothing changes for any ClusterExtension: no version moved."},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compare(tt.before, tt.after, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.OLM == nil || r.OLM.Controller != ControllerOperatorController {
				t.Fatalf("the report does not say operator-controller acts: %+v", r.OLM)
			}
			var b strings.Builder
			r.writeRunningText(&b)
			text := b.String()
			if !strings.Contains(text, "What operator-controller will do:") {
				t.Errorf("no heading for operator-controller:\n%s", text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, "  "+w+"\n") {
					t.Errorf("lacks %q:\n%s", w, text)
				}
			}
			var findings []string
			for _, f := range r.Findings {
				if f.Gate == GateDowngrade {
					findings = append(findings, f.Object+": "+f.Message)
				}
			}
			switch {
			case tt.downgrade == "" && len(findings) > 0:
				t.Errorf("downgrade findings where none is due: %q", findings)
			case tt.downgrade != "" && (len(findings) != 1 || !strings.Contains(findings[0], tt.downgrade) ||
				!strings.HasPrefix(findings[0], "ClusterExtension/a:")):
				t.Errorf("downgrade findings = %q, want one on ClusterExtension a saying %q", findings, tt.downgrade)
			}
		})
	}
}

// TestDiffExtensionRenamedRBAC: operator-controller names its RBAC after the bundle, so an
// upgrade deletes and adds it under new names; the diff pairs each old object with its
// successor of the same ClusterExtension, kind and subjects, and a role that gains a rule
// still fires permission-growth.
func TestDiffExtensionRenamedRBAC(t *testing.T) {
	role := func(bundle, verb string) *unstructured.Unstructured {
		u := obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", bundle+"-sa-hash")
		u.SetLabels(map[string]string{olmv1.OwnerKindLabel: "ClusterExtension", olmv1.OwnerNameLabel: "a"})
		u.Object["rules"] = []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{verb}}}
		return u
	}
	binding := func(bundle string) *unstructured.Unstructured {
		u := obj("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", bundle+"-sa-hash")
		u.SetLabels(map[string]string{olmv1.OwnerKindLabel: "ClusterExtension", olmv1.OwnerNameLabel: "a"})
		u.Object["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": bundle + "-sa-hash"}
		u.Object["subjects"] = []any{map[string]any{"kind": "ServiceAccount", "name": "sa", "namespace": "ns-a"}}
		return u
	}
	before := append(extensionRender(extension("a", "ns-a", "pkg-a", "1.0.0", "")), mark(role("pkg-a.v1.0.0", "get"), binding("pkg-a.v1.0.0"))...)
	after := append(extensionRender(extension("a", "ns-a", "pkg-a", "1.1.0", "")), mark(role("pkg-a.v1.1.0", "delete"), binding("pkg-a.v1.1.0"))...)
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var renamed []string
	for _, c := range r.OLM.Changes {
		if c.Action != Modified || c.From == nil {
			t.Errorf("%s %s: not paired", c.Action, c.Key)
			continue
		}
		renamed = append(renamed, c.From.Name+" → "+c.Key.Name)
	}
	want := []string{"pkg-a.v1.0.0-sa-hash → pkg-a.v1.1.0-sa-hash", "pkg-a.v1.0.0-sa-hash → pkg-a.v1.1.0-sa-hash"}
	if !slices.Equal(renamed, want) {
		t.Errorf("renamed = %q, want %q", renamed, want)
	}
	if !slices.Contains(r.Gates(), GatePermissionGrowth) {
		t.Errorf("gates = %v, want permission-growth for the role that gained delete", r.Gates())
	}
}
