package olmv1

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/test/fixture"
)

// upstreamCases are the cases of operator-controller's own renders in the corpus
// (olmv1-golden, from test/regression/convert/generate-manifests.go at df2c201d): the bundle,
// the install namespace, the watched namespace ("" for all) and the deploymentConfig.
var upstreamCases = []struct {
	bundle, name, namespace, watch, config string
}{
	{"argocd-operator.v0.6.0", "all-namespaces", "argocd-system", "", ""},
	{"argocd-operator.v0.6.0", "single-namespace", "argocd-system", "argocd-watch", ""},
	{"argocd-operator.v0.6.0", "own-namespace", "argocd-system", "argocd-system", ""},
	{"webhook-operator.v0.0.5", "all-webhook-types", "webhook-system", "", ""},
	{"argocd-operator.v0.6.0", "with-deploymentconfig-options", "argocd-system", "", deploymentConfigOptions},
	{"argocd-operator.v0.6.0", "with-empty-affinity", "argocd-system", "", "affinity: {}"},
	{"argocd-operator.v0.6.0", "with-empty-affinity-subtype", "argocd-system", "", "affinity: {nodeAffinity: {}}"},
}

// deploymentConfigOptions is the deploymentConfig of the with-deploymentconfig-options case,
// as olmv1-golden/README.md gives it.
const deploymentConfigOptions = `
nodeSelector: {kubernetes.io/os: linux}
tolerations:
- {key: some/key, operator: Equal, effect: NoSchedule}
- {key: someother/key, operator: Exists, effect: NoExecute, tolerationSeconds: 120}
resources:
  requests: {cpu: 100m, memory: 128Mi}
  limits: {cpu: 500m, memory: 512Mi}
env:
- {name: CUSTOM_ENV_VAR, value: custom-value}
- {name: LOG_LEVEL, value: debug}
envFrom:
- {prefix: test}
- {configMapRef: {name: configmapForTest}}
- {secretRef: {name: secretForTest}}
volumes:
- {name: test-configmap-volume, configMap: {name: testVolumeConfigMap}}
- {name: test-emptydir-volume, emptyDir: {}}
volumeMounts:
- {name: test-configmap-volume, mountPath: /test-volume-mount, readOnly: true}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/os, operator: In, values: [linux]}]
        matchFields: [{key: key, operator: In, values: [val1, val2]}]
  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector: {matchLabels: {app.kubernetes.io/name: test-app}}
      topologyKey: topKey
      namespaces: [test, test2]
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        labelSelector: {matchLabels: {app.kubernetes.io/name: test-app-2}}
        topologyKey: topKey2
annotations: {foo: bar, testkey: testval}
`

// TestOperatorControllerRenders holds the prediction against operator-controller's own
// renders (olmv1-golden), object by object: the same kinds, names, namespaces and content,
// after the normalisation upstreamNormal documents. Every case is rendered with no certificate
// provider, as upstream's generator renders them.
func TestOperatorControllerRenders(t *testing.T) {
	dir := filepath.Join(fixture.Corpus(t), "olmv1-golden")
	for _, tc := range upstreamCases {
		t.Run(tc.bundle+"/"+tc.name, func(t *testing.T) {
			got := renderUpstreamCase(t, filepath.Join(dir, "bundles", tc.bundle), tc.namespace, tc.watch, tc.config)
			want := readUpstreamCase(t, filepath.Join(dir, "expected-manifests", tc.bundle, tc.name))
			if diff := cmp.Diff(ids(want), ids(got)); diff != "" {
				t.Fatalf("objects differ (-operator-controller +olm-render):\n%s", diff)
			}
			for id, w := range want {
				if diff := cmp.Diff(w, got[id]); diff != "" {
					t.Errorf("%s differs (-operator-controller +olm-render):\n%s", id, diff)
				}
			}
		})
	}
}

// renderUpstreamCase renders a bundle directory as upstream's generator does.
func renderUpstreamCase(t *testing.T, bundleDir, namespace, watch, config string) map[string]map[string]any {
	t.Helper()
	cat, err := catalog.Load(bundleDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Packages) != 1 || len(cat.Packages[0].Bundles) != 1 {
		t.Fatalf("%s: want one bundle", bundleDir)
	}
	b, err := readBundle(cat.Packages[0].Bundles[0])
	if err != nil {
		t.Fatal(err)
	}
	g := &generation{b: b, namespace: namespace, targets: []string{watch}, provider: webhook.None}
	if config != "" {
		g.config = &v1alpha1.SubscriptionConfig{}
		if err := yaml.UnmarshalStrict([]byte(config), g.config); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := g.render()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, o := range objs {
		out[objectID(o)] = upstreamNormal(t, o.Object)
	}
	return out
}

// readUpstreamCase reads operator-controller's render of a case, one object a file.
func readUpstreamCase(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if clusterScoped[u.GetKind()] {
			u.SetNamespace("")
		}
		out[objectID(u)] = upstreamNormal(t, u.Object)
	}
	return out
}

// upstreamNormal is the normalisation both sides of the comparison go through, each step a
// class of docs/olm-differences.md's OLM v1 section:
//   - JSON round trip: numbers and empty values compare as the API server reads them;
//   - status dropped: operator-controller's renderer writes the zero status of the Go types
//     (status: {}, a Service's loadBalancer: {}, a CRD's empty acceptedNames), which the API
//     server ignores when it creates the object; the prediction holds none;
//   - nulls dropped: a Go nil slice encodes as null, which the API server reads as absent;
//   - the namespace of a cluster-scoped object dropped (readUpstreamCase): the renderer names
//     the install namespace on webhook configurations, which the API server drops.
func upstreamNormal(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	delete(out, "status")
	dropNulls(out)
	return out
}

// ids lists the objects of a case, sorted.
func ids(objs map[string]map[string]any) []string {
	out := make([]string, 0, len(objs))
	for id := range objs {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// TestUpstreamCasesCovered fails when olmv1-golden holds a case the test does not render.
func TestUpstreamCasesCovered(t *testing.T) {
	dir := filepath.Join(fixture.Corpus(t), "olmv1-golden", "expected-manifests")
	var have []string
	bundles, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bundles {
		cases, err := os.ReadDir(filepath.Join(dir, b.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			have = append(have, b.Name()+"/"+c.Name())
		}
	}
	var rendered []string
	for _, tc := range upstreamCases {
		rendered = append(rendered, tc.bundle+"/"+tc.name)
	}
	slices.Sort(have)
	slices.Sort(rendered)
	if !slices.Equal(have, rendered) {
		t.Errorf("olmv1-golden holds %s; the test renders %s", strings.Join(have, ", "), strings.Join(rendered, ", "))
	}
}
