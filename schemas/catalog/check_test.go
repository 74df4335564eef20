package catalog

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// checkCSV is a valid CSV with one deployment and one webhook; the table below breaks it.
const checkCSV = `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: widget.v1.0.0
spec:
  version: 1.0.0
  installModes: [{type: AllNamespaces, supported: true}]
  install:
    strategy: deployment
    spec:
      deployments:
      - name: widget-controller
        spec:
          selector: {matchLabels: {app: widget}}
          template:
            metadata: {labels: {app: widget}}
            spec:
              containers:
              - name: manager
                image: quay.io/example/widget@sha256:0000000000000000000000000000000000000000000000000000000000000000
  webhookdefinitions:
  - type: ValidatingAdmissionWebhook
    generateName: vwidget.example.com
    deploymentName: widget-controller
    containerPort: 443
    admissionReviewVersions: [v1]
    sideEffects: None
`

// checkCRDv1 is a valid v1 CRD.
const checkCRDv1 = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object}}
`

// TestCheckManifests: a bundle whose objects the API server, or the CSV's own schema, would
// refuse is broken; its problem names the file, the object and the field.
func TestCheckManifests(t *testing.T) {
	tests := []struct {
		name    string
		csv     string // replacements applied to checkCSV: old => new
		objects map[string]string
		want    string // "" for a bundle that must load
	}{
		{name: "valid"},
		{name: "valid v1beta1 CRD with spec.version", objects: map[string]string{"crd.yaml": `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec: {group: example.com, version: v1, names: {plural: widgets, kind: Widget}}
`}},
		{name: "valid RBAC name with colons", objects: map[string]string{"role.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: 'widget:metrics-reader'}\nrules: []\n"}},
		{name: "CSV name with capitals", csv: "name: widget.v1.0.0=>name: Widget.v1.0.0",
			want: `ClusterServiceVersion/Widget.v1.0.0: metadata.name: invalid name "Widget.v1.0.0"`},
		{name: "deployment without containers", csv: "              containers:\n              - name: manager\n                image: quay.io/example/widget@sha256:0000000000000000000000000000000000000000000000000000000000000000\n=>              containers: []\n",
			want: "spec.install.spec.deployments[0].spec.template.spec.containers: required"},
		{name: "container without image", csv: "                image: quay.io/example/widget@sha256:0000000000000000000000000000000000000000000000000000000000000000\n=>                image: ''\n",
			want: "spec.install.spec.deployments[0].spec.template.spec.containers[0].image: required"},
		{name: "container name with underscore", csv: "name: manager=>name: the_manager",
			want: `spec.install.spec.deployments[0].spec.template.spec.containers[0].name: invalid name "the_manager"`},
		{name: "deployment name with spaces", csv: "- name: widget-controller=>- name: widget controller",
			want: `spec.install.spec.deployments[0].name: invalid name "widget controller"`},
		{name: "service account name with capitals", csv: "            spec:\n              containers:=>            spec:\n              serviceAccountName: Widget_SA\n              containers:",
			want: `spec.install.spec.deployments[0].spec.template.spec.serviceAccountName: invalid name "Widget_SA"`},
		{name: "permissions for a service account that cannot exist", csv: "  install:\n    strategy: deployment\n    spec:\n=>  install:\n    strategy: deployment\n    spec:\n      permissions: [{serviceAccountName: 'a b', rules: []}]\n",
			want: `spec.install.spec.permissions[0].serviceAccountName: invalid name "a b"`},
		{name: "install strategy OLM does not know", csv: "strategy: deployment=>strategy: helm",
			want: `widget.csv.yaml: ClusterServiceVersion/widget.v1.0.0: spec.install.strategy: unrecognized install strategy "helm": OLM installs only "deployment"`},
		{name: "no install strategy", csv: "    strategy: deployment\n=>",
			want: `widget.csv.yaml: ClusterServiceVersion/widget.v1.0.0: spec.install.strategy: unrecognized install strategy ""`},
		{name: "webhook naming a deployment the strategy lacks", csv: "deploymentName: widget-controller=>deploymentName: widget-controler",
			want: `widget.csv.yaml: ClusterServiceVersion/widget.v1.0.0: spec.webhookdefinitions[0].deploymentName: deployment "widget-controler" is not one of the install strategy's deployments (spec.install.spec.deployments: widget-controller): OLM would create it with no Service and no serving certificate behind it: did you mean "widget-controller"?`},
		{name: "APIService naming a deployment the strategy lacks", csv: "  webhookdefinitions:=>  apiservicedefinitions: {owned: [{group: example.com, version: v1, kind: Widget, name: widgets, deploymentName: apiserver}]}\n  webhookdefinitions:",
			want: `spec.apiservicedefinitions.owned[0].deploymentName: deployment "apiserver" is not one of the install strategy's deployments`},
		{name: "unknown webhook type", csv: "type: ValidatingAdmissionWebhook=>type: ValidatingWebhook",
			want: `spec.webhookdefinitions[0].type: unknown webhook type "ValidatingWebhook"`},
		{name: "Service name with a dot", objects: map[string]string{"svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: widget.metrics}\nspec: {ports: [{port: 8443}]}\n"},
			want: `svc.yaml: Service/widget.metrics: metadata.name: invalid name "widget.metrics"`},
		{name: "ConfigMap name with slash", objects: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 'a/b'}\n"},
			want: `cm.yaml: ConfigMap/a/b: metadata.name: invalid name "a/b"`},
		{name: "CRD named not plural.group", objects: map[string]string{"crd.yaml": strings.Replace(checkCRDv1, "name: widgets.example.com", "name: widget.example.com", 1)},
			want: `CustomResourceDefinition/widget.example.com: metadata.name: must be spec.names.plural + "." + spec.group: "widgets.example.com"`},
		{name: "CRD without group", objects: map[string]string{"crd.yaml": strings.Replace(checkCRDv1, "group: example.com", "group: ''", 1)},
			want: "spec.group, spec.names.plural and spec.names.kind are required"},
		{name: "v1 CRD without scope", objects: map[string]string{"crd.yaml": strings.Replace(checkCRDv1, "  scope: Namespaced\n", "", 1)},
			want: `spec.scope: must be Namespaced or Cluster, got ""`},
		{name: "CRD with two storage versions", objects: map[string]string{"crd.yaml": strings.Replace(checkCRDv1, "  versions:\n", "  versions:\n  - {name: v2, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n", 1)},
			want: "spec.versions: exactly one version must be the storage version, found 2"},
		{name: "CRD without versions", objects: map[string]string{"crd.yaml": checkCRDv1[:strings.Index(checkCRDv1, "  versions:")]},
			want: "spec.versions: required"},
		{name: "two deployments of one name", csv: "  webhookdefinitions:=>      - {name: widget-controller, spec: {selector: {matchLabels: {app: b}}, template: {metadata: {labels: {app: b}}, spec: {containers: [{name: c, image: i}]}}}}\n  webhookdefinitions:",
			want: `widget.csv.yaml: ClusterServiceVersion/widget.v1.0.0: spec.install.spec.deployments[1].name: deployment "widget-controller" is also spec.install.spec.deployments[0]`},
		{name: "selector not matching the template's labels", csv: "metadata: {labels: {app: widget}}=>metadata: {labels: {app: widgets}}",
			want: "spec.install.spec.deployments[0].spec.template.metadata.labels: `selector` does not match template `labels` (selector app=widget, labels app=widgets)"},
		{name: "deployment without a selector", csv: "          selector: {matchLabels: {app: widget}}\n=>",
			want: "spec.install.spec.deployments[0].spec.selector: required"},
		{name: "empty selector", csv: "selector: {matchLabels: {app: widget}}=>selector: {}",
			want: "spec.install.spec.deployments[0].spec.selector: empty selector is invalid for deployment"},
		{name: "owned CRD missing", csv: "  webhookdefinitions:=>  customresourcedefinitions: {owned: [{name: widgets.example.com, version: v1, kind: Widget}]}\n  webhookdefinitions:",
			objects: map[string]string{"widgets.example.com.crd.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: widgets}\n"},
			want:    `widget.csv.yaml: ClusterServiceVersion/widget.v1.0.0: spec.customresourcedefinitions.owned[0].name: the bundle holds no CustomResourceDefinition "widgets.example.com"`},
		{name: "owned CRD present", csv: "  webhookdefinitions:=>  customresourcedefinitions: {owned: [{name: widgets.example.com, version: v1, kind: Widget}]}\n  webhookdefinitions:",
			objects: map[string]string{"crd.yaml": checkCRDv1}},
		{name: "olm.properties annotation with an olm.gvk string", csv: "  name: widget.v1.0.0\n=>  name: widget.v1.0.0\n  annotations: {olm.properties: '[{\"type\":\"olm.gvk\",\"value\":\"example.com/v1/Widget\"}]'}\n",
			want: "metadata.annotations[olm.properties][0].value: olm.gvk value: want an object {group, version, kind} of strings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			csv := checkCSV
			if tt.csv != "" {
				old, new, _ := strings.Cut(tt.csv, "=>")
				if !strings.Contains(csv, old) {
					t.Fatalf("the CSV has no %q", old)
				}
				csv = strings.Replace(csv, old, new, 1)
			}
			files := map[string][]byte{
				"b/manifests/widget.csv.yaml": []byte(csv),
				"b/metadata/annotations.yaml": []byte("annotations:\n  operators.operatorframework.io.bundle.package.v1: widget\n  operators.operatorframework.io.bundle.channels.v1: stable\n"),
			}
			for name, content := range tt.objects {
				files["b/manifests/"+name] = []byte(content)
			}
			fsys, err := rootfs.NewMap("repo", files)
			if err != nil {
				t.Fatal(err)
			}
			_, err = LoadBundle(fsys, "b")
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused a valid bundle: %v", err)
			case tt.want == "":
			case err == nil:
				t.Fatalf("loaded; want an error containing %q", tt.want)
			case !strings.Contains(err.Error(), tt.want):
				t.Errorf("error\n%v\ndoes not contain\n%s", err, tt.want)
			}
		})
	}
}

// TestInlineCSVNameMismatch: an FBC bundle whose olm.bundle.object CSV is named otherwise than
// the bundle cannot install (the Subscription waits for a CSV that never comes): its manifests
// are refused, naming both names.
func TestInlineCSVNameMismatch(t *testing.T) {
	m, err := inline{origin: diagOrigin("c.json"), name: "widget.v2.0.0", objects: [][]byte{inlineObject(checkCSV)}}.manifests()
	if err == nil {
		t.Fatalf("accepted %v", m)
	}
	want := `the bundle is "widget.v2.0.0" but its ClusterServiceVersion is named "widget.v1.0.0"`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error\n%v\ndoes not contain\n%s", err, want)
	}
	if _, err := (inline{origin: diagOrigin("c.json"), name: "widget.v1.0.0", objects: [][]byte{inlineObject(checkCSV)}}).manifests(); err != nil {
		t.Errorf("refused the matching bundle: %v", err)
	}
}

func diagOrigin(file string) diag.Origin { return diag.Origin{File: file} }

// inlineObject is an olm.bundle.object property value holding a YAML manifest.
func inlineObject(manifest string) []byte {
	v, err := json.Marshal(map[string][]byte{"data": []byte(manifest)})
	if err != nil {
		panic(err)
	}
	return v
}

// TestUnparsableSkipRangeInTree: a bundle tree whose CSV has a skipRange blang/semver cannot
// parse (a "v" prefix) loads with a warning, as OLM's resolver ignores such a range; the rest of
// the package is served.
func TestUnparsableSkipRangeInTree(t *testing.T) {
	csv := strings.Replace(checkCSV, "  name: widget.v1.0.0\n", "  name: widget.v1.0.0\n  annotations:\n    olm.skipRange: '<v1.12.0'\n", 1)
	fsys, err := rootfs.NewMap("repo", map[string][]byte{
		"widget/1.0.0/manifests/widget.csv.yaml": []byte(csv),
		"widget/1.0.0/metadata/annotations.yaml": []byte("annotations:\n  operators.operatorframework.io.bundle.package.v1: widget\n  operators.operatorframework.io.bundle.channels.v1: stable\n"),
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadFS(fsys, ".")
	if err != nil {
		t.Fatalf("the tree did not load: %v", err)
	}
	if c.Package("widget").Bundle("widget.v1.0.0") == nil {
		t.Fatal("the bundle is missing")
	}
	want := `invalid skipRange "<v1.12.0"`
	found := false
	for _, w := range c.Warnings {
		found = found || strings.Contains(w.Error(), want) && strings.Contains(w.Error(), "OLM's resolver ignores it")
	}
	if !found {
		t.Errorf("no warning %q in %v", want, c.Warnings)
	}
}

// TestManifestFiles: the files of manifests/ are read as opm's bundle parser reads them: every
// file that is not hidden, whatever its extension, and only its first document.
func TestManifestFiles(t *testing.T) {
	const service = "apiVersion: v1\nkind: Service\nmetadata: {name: widget-metrics}\nspec: {ports: [{port: 8443}]}\n"
	const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: widget-config}\n"
	tests := []struct {
		name    string
		files   map[string]string
		objects []string // kinds/names of the bundle objects
		warning string
		err     string
	}{
		{name: "a file without a YAML extension holding an object", files: map[string]string{"widget.crd": checkCRDv1},
			objects: []string{"CustomResourceDefinition/widgets.example.com"}},
		{name: "a README is skipped with a warning", files: map[string]string{"README.md": "# Widget\n\nSee https://example.com.\n"},
			warning: "README.md: not a Kubernetes object: skipped"},
		{name: "a hidden file is not read", files: map[string]string{".notes.yaml": "{not yaml"}},
		{name: "only the first document of a file", files: map[string]string{"objects.yaml": service + "---\n" + configMap},
			objects: []string{"Service/widget-metrics"}, warning: "documents after the first are left out"},
		{name: "a broken document after the first is left out", files: map[string]string{"objects.yaml": service + "---\n{not yaml\n"},
			objects: []string{"Service/widget-metrics"}, warning: "documents after the first are left out"},
		{name: "a broken first document of a YAML file fails the bundle", files: map[string]string{"objects.yaml": "{not yaml\n---\n" + service},
			err: "objects.yaml: invalid YAML"},
		{name: "a key repeated with the same value is read once", files: map[string]string{"objects.yaml": service + "kind: Service\n"},
			objects: []string{"Service/widget-metrics"}, warning: "objects.yaml: Service/widget-metrics: kind: repeated with the same value (line 2 and line 5)"},
		{name: "a nested key repeated with the same value is read once", files: map[string]string{"objects.yaml": strings.Replace(service, "{name: widget-metrics}", "{name: widget-metrics, name: widget-metrics}", 1)},
			objects: []string{"Service/widget-metrics"}, warning: "metadata.name: repeated with the same value (line 3, twice)"},
		{name: "a key repeated with another value: the last value, as OLM reads it", files: map[string]string{"objects.yaml": strings.Replace(service, "{name: widget-metrics}", "{name: widget-metrics, name: widget-metrics-v2}", 1)},
			objects: []string{"Service/widget-metrics-v2"}, warning: "objects.yaml: Service/widget-metrics-v2: metadata.name: repeated key: the last value (line 3) is used"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string][]byte{
				"widget/1.0.0/manifests/widget.csv.yaml": []byte(checkCSV),
				"widget/1.0.0/metadata/annotations.yaml": []byte("annotations:\n  operators.operatorframework.io.bundle.package.v1: widget\n  operators.operatorframework.io.bundle.channels.v1: stable\n"),
			}
			for name, data := range tt.files {
				files["widget/1.0.0/manifests/"+name] = []byte(data)
			}
			fsys, err := rootfs.NewMap("repo", files)
			if err != nil {
				t.Fatal(err)
			}
			c, err := LoadFS(fsys, "widget/1.0.0")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err := c.Package("widget").Bundle("widget.v1.0.0").Manifests()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range m.Objects {
				got = append(got, o.GetKind()+"/"+o.GetName())
			}
			if !slices.Equal(got, tt.objects) {
				t.Errorf("objects %v, want %v", got, tt.objects)
			}
			warned := tt.warning == ""
			for _, w := range c.Warnings {
				warned = warned || strings.Contains(w.Error(), tt.warning)
			}
			if !warned {
				t.Errorf("no warning %q in %v", tt.warning, c.Warnings)
			}
		})
	}
}
