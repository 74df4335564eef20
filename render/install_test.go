package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

func obj(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func testCSV() *v1alpha1.ClusterServiceVersion {
	csv := &v1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Name: "op.v1", Namespace: "ops"}}
	csv.Spec.CustomResourceDefinitions.Owned = []v1alpha1.CRDDescription{{Name: "owned.example.com"}}
	return csv
}

// TestInstallSetWrites: an object written twice ends as OLM's writers leave it.
func TestInstallSetWrites(t *testing.T) {
	tests := []struct {
		name   string
		write  func(s *installSet, t *testing.T)
		want   string
		errMsg string
	}{
		{name: "ServiceAccount from the bundle, then from the strategy (EnsureServiceAccount)",
			write: func(s *installSet, t *testing.T) {
				s.create(obj(t, "{apiVersion: v1, kind: ServiceAccount, metadata: {name: sa, namespace: ops, labels: {olm.managed: 'true', team: a}, annotations: {a: bundle, b: bundle}}, secrets: [{name: s}], imagePullSecrets: [{name: p}]}"), false)
				s.create(obj(t, "{apiVersion: v1, kind: ServiceAccount, metadata: {name: sa, namespace: ops, labels: {olm.managed: 'true'}, annotations: {a: strategy}}}"), true)
			},
			want: "{apiVersion: v1, kind: ServiceAccount, metadata: {name: sa, namespace: ops, labels: {olm.managed: 'true', operators.coreos.com/op.ops: ''}, annotations: {a: strategy, b: bundle}}, secrets: [{name: s}]}"},
		{name: "ClusterRole from the bundle, then from the strategy (EnsureClusterRole)",
			write: func(s *installSet, t *testing.T) {
				s.create(obj(t, "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: cr, labels: {olm.managed: 'true'}}, rules: [{verbs: [get], apiGroups: [''], resources: [pods]}]}"), false)
				s.create(obj(t, "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: cr, labels: {olm.managed: 'true'}}, rules: []}"), false)
			},
			want: "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: cr, labels: {olm.managed: 'true', olm.owner: op.v1}}, rules: []}"},
		{name: "RoleBinding rewritten with another roleRef",
			write: func(s *installSet, t *testing.T) {
				s.create(obj(t, "{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: rb, namespace: ops}, roleRef: {kind: Role, name: a}}"), false)
				s.create(obj(t, "{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: rb, namespace: ops}, roleRef: {kind: Role, name: b}}"), true)
			},
			errMsg: "roleRef is immutable"},
		{name: "bundle Service, then the webhook Service applied",
			write: func(s *installSet, t *testing.T) {
				s.create(obj(t, "{apiVersion: v1, kind: Service, metadata: {name: svc, namespace: ops, labels: {olm.managed: 'true', app: x}}, spec: {selector: {app: x, tier: y}, ports: [{name: https, port: 443, targetPort: 8443}, {name: metrics, port: 8080}]}}"), true)
				s.apply(obj(t, "{apiVersion: v1, kind: Service, metadata: {name: svc, namespace: ops, labels: {olm.managed: 'true'}}, spec: {selector: {app: x}, ports: [{name: '443', port: 443, targetPort: 9443}]}}"), true)
			},
			want: "{apiVersion: v1, kind: Service, metadata: {name: svc, namespace: ops, labels: {olm.managed: 'true', app: x, operators.coreos.com/op.ops: ''}}, spec: {selector: {app: x}, ports: [{name: '443', port: 443, targetPort: 9443}, {name: metrics, port: 8080}]}}"},
		{name: "lifted ClusterRole does not replace an existing one (ensureSingletonRBAC)",
			write: func(s *installSet, t *testing.T) {
				s.create(obj(t, "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: cr}, rules: []}"), true)
				s.ensure(obj(t, "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: cr}, rules: [{verbs: [get]}]}"), true)
			},
			want: "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: cr, labels: {operators.coreos.com/op.ops: ''}}, rules: []}"},
		{name: "owned CRD adopted",
			write: func(s *installSet, t *testing.T) {
				s.create(obj(t, "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: owned.example.com}}"), false)
			},
			want: "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: owned.example.com, labels: {operators.coreos.com/op.ops: ''}}}"},
		{name: "CRD the CSV does not list as owned is not adopted",
			write: func(s *installSet, t *testing.T) {
				s.create(obj(t, "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: other.example.com}}"), false)
			},
			want: "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: other.example.com}}"},
		{name: "owned object of a kind adoption does not list",
			write: func(s *installSet, t *testing.T) {
				s.create(obj(t, "{apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, metadata: {name: m, namespace: ops}}"), true)
			},
			want: "{apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, metadata: {name: m, namespace: ops}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &installSet{csv: testCSV()}
			tt.write(s, t)
			if tt.errMsg != "" {
				if len(s.errs) == 0 || !strings.Contains(s.errs[0].Error(), tt.errMsg) {
					t.Fatalf("errors %v, want %q", s.errs, tt.errMsg)
				}
				return
			}
			if len(s.errs) > 0 {
				t.Fatal(s.errs)
			}
			s.adopt(componentLabel("op", "ops"))
			if len(s.objs) != 1 {
				t.Fatalf("%d objects, want 1", len(s.objs))
			}
			if diff := cmp.Diff(obj(t, tt.want).Object, s.objs[0].Object); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestBundleObjectSteps: each kind of bundle object as its InstallPlan step writes it.
func TestBundleObjectSteps(t *testing.T) {
	in := &install{ns: "ops", csv: testCSV()}
	tests := []struct {
		src, want string
		owned     bool
		err       string
	}{
		{src: "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: metrics-reader}}",
			want: "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: metrics-reader, labels: {olm.managed: 'true'}}}"},
		{src: "{apiVersion: v1, kind: ServiceAccount, metadata: {name: sa, creationTimestamp: null}}",
			want: "{apiVersion: v1, kind: ServiceAccount, metadata: {name: sa, namespace: ops, labels: {olm.managed: 'true'}}}"},
		{src: "{apiVersion: v1, kind: Service, metadata: {name: s}, status: {loadBalancer: {}}}", owned: true,
			want: "{apiVersion: v1, kind: Service, metadata: {name: s, namespace: ops, labels: {olm.managed: 'true'}}, spec: {}}"},
		// Written by the typed client: as rbac/v1, without the empty list its type omits.
		{src: "{apiVersion: rbac.authorization.k8s.io/v1beta1, kind: Role, metadata: {name: r, annotations: {}}, rules: [{apiGroups: [''], resources: [pods], verbs: [get], resourceNames: []}]}",
			want: "{apiVersion: rbac.authorization.k8s.io/v1, kind: Role, metadata: {name: r, namespace: ops, labels: {olm.managed: 'true'}}, rules: [{apiGroups: [''], resources: [pods], verbs: [get]}]}"},
		// Any kind Secret is a BundleSecret step: a core Secret, owned by the CSV.
		{src: "{apiVersion: ecr.example.com/v1, kind: Secret, metadata: {name: pull}, spec: {region: x}}", owned: true,
			want: "{apiVersion: v1, kind: Secret, metadata: {name: pull, namespace: ops, labels: {olm.managed: 'true'}}}"},
		{src: "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {}, unknownField: 1}", owned: true,
			want: "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ops, labels: {olm.managed: 'true'}}}"},
		{src: "{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 10}", owned: true,
			want: "{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high, labels: {olm.managed: 'true', olm.owner: op.v1, olm.owner.namespace: ops, olm.owner.kind: ClusterServiceVersion}}, value: 10}"},
		{src: "{apiVersion: monitoring.coreos.com/v1, kind: PodMonitor, metadata: {name: p}}", err: "PodMonitor p, a kind OLM's InstallPlan does not install"},
		{src: "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}}", err: "Deployment d, a kind OLM's InstallPlan does not install"},
	}
	for _, tt := range tests {
		src := obj(t, tt.src)
		t.Run(src.GetKind(), func(t *testing.T) {
			got, owned, err := bundleObject(in, src)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if owned != tt.owned {
				t.Errorf("owned %v, want %v", owned, tt.owned)
			}
			if diff := cmp.Diff(obj(t, tt.want).Object, got.Object); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestTypedCRD: a bundle CRD is written as OLM's typed client writes it.
func TestTypedCRD(t *testing.T) {
	const head = "kind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n"
	tests := []struct {
		name, in, want, err string
	}{{
		name: "v1 drops what its type omits or lacks",
		in: "apiVersion: apiextensions.k8s.io/v1\n" + head + `spec:
  group: example.com
  preserveUnknownFields: false
  version: v1
  validation: {openAPIV3Schema: {type: object}}
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: false
    additionalPrinterColumns: [{name: Age, type: date, jsonPath: .metadata.creationTimestamp, priority: 0}]
    schema: {openAPIV3Schema: {type: object, required: [], properties: {}, nullable: false, x-kubernetes-preserve-unknown-fields: false}}
`,
		want: "apiVersion: apiextensions.k8s.io/v1\n" + head + `spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: false
    additionalPrinterColumns: [{name: Age, type: date, jsonPath: .metadata.creationTimestamp}]
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: false}}
`,
	}, {
		name: "v1beta1 keeps its own fields",
		in: "apiVersion: apiextensions.k8s.io/v1beta1\n" + head + `spec:
  group: example.com
  preserveUnknownFields: false
  version: v1
  names: {kind: Widget, plural: widgets}
  additionalPrinterColumns: [{name: Age, type: date, JSONPath: .metadata.creationTimestamp, priority: 0}]
`,
		want: "apiVersion: apiextensions.k8s.io/v1beta1\n" + head + `spec:
  group: example.com
  preserveUnknownFields: false
  version: v1
  names: {kind: Widget, plural: widgets}
  scope: ""
  additionalPrinterColumns: [{name: Age, type: date, JSONPath: .metadata.creationTimestamp}]
`,
	}, {
		name: "a field of the wrong type fails as OLM's step fails",
		in:   "apiVersion: apiextensions.k8s.io/v1\n" + head + "spec: {group: example.com, scope: 5}\n",
		err:  "not a valid apiextensions.k8s.io/v1 CustomResourceDefinition",
	}, {
		name: "an API version OLM does not install",
		in:   "apiVersion: apiextensions.k8s.io/v2\n" + head,
		err:  `apiVersion "apiextensions.k8s.io/v2"`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := typedObject(obj(t, tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dropTimestamp(got.Object)
			delete(got.Object, "status")
			if d := cmp.Diff(obj(t, tt.want).Object, got.Object); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestNativeAPIs: a CSV's spec.nativeAPIs that neither Kubernetes, OLM nor the render serves are
// warned about (OLM would keep the CSV Pending on a cluster without them); the others are not.
func TestNativeAPIs(t *testing.T) {
	csv := testCSV()
	csv.Spec.NativeAPIs = []metav1.GroupVersionKind{
		{Group: "apps", Version: "v1", Kind: "Deployment"},
		{Group: "route.openshift.io", Version: "v1", Kind: "Route"},
		{Group: "operators.coreos.com", Version: "v1alpha1", Kind: "Subscription"},
		{Group: "example.com", Version: "v1", Kind: "Owned"},
	}
	in := &install{ns: "ops", csv: csv, manifests: &catalog.Manifests{CSVOrigin: diag.Origin{File: "csv.yaml"}},
		apis: []schema.GroupVersionKind{{Group: "example.com", Version: "v1", Kind: "Owned"}}}
	r := &renderer{installs: []*install{in}}
	r.nativeAPIs(in)
	if len(r.warnings) != 1 || !strings.Contains(r.warnings[0].Error(),
		"csv.yaml: ClusterServiceVersion/ops/op.v1: spec.nativeAPIs[1]: requires route.openshift.io/v1 Route from the cluster") {
		t.Errorf("warnings %v", r.warnings)
	}
}
