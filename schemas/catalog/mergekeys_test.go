package catalog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// clickhouse is clickhouse 0.27.2 of the community catalog, copied byte for byte
// (testdata/clickhouse/README.md): its CRDs override merged keys (!!merge <<: *TypeStringBool,
// then their own description).
const clickhouse = "testdata/clickhouse"

// olmDecode decodes a manifest file as OLM does (operator-registry registry.DecodeUnstructured:
// k8s.io/apimachinery's YAMLOrJSONDecoder, go-yaml v2 underneath).
func olmDecode(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 30).Decode(u); err != nil {
		t.Fatalf("OLM's decoder: %s: %v", file, err)
	}
	return u.Object
}

// asJSON is an object as JSON encodes it (the decoders differ in how they keep numbers).
func asJSON(t *testing.T, obj map[string]any) string {
	t.Helper()
	data, err := json.MarshalIndent(obj, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestMergeKeysInPublishedCRDs: clickhouse 0.27.2's CRDs, which override merged keys, load
// without a word and decode exactly as OLM's decoder decodes them.
func TestMergeKeysInPublishedCRDs(t *testing.T) {
	c, err := Load(clickhouse)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) > 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}
	m, err := c.Package("clickhouse").Bundle("clickhouse-operator.v0.27.2").Manifests()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Objects) != 4 {
		t.Fatalf("%d objects, want the 4 CRDs", len(m.Objects))
	}
	for _, o := range m.Objects {
		want := olmDecode(t, filepath.Join(clickhouse, "clickhouse/0.27.2/manifests", filepath.Base(o.Origin.File)))
		if diff := cmp.Diff(asJSON(t, want), asJSON(t, o.Object)); diff != "" {
			t.Errorf("%s (-OLM +olm-render):\n%s", o.Origin, diff)
		}
	}
}

// TestMergedFieldsOfClickhouse: the fields of clickhouse 0.27.2's CRD that merge
// TypeStringBool hold the values YAML 1.1 and OLM's decoder give them: their own description,
// the anchor's x-kubernetes-preserve-unknown-fields.
func TestMergedFieldsOfClickhouse(t *testing.T) {
	file := filepath.Join(clickhouse, "clickhouse/0.27.2/manifests/clickhouseinstallations.clickhouse.altinity.com.crd.yaml")
	obj := olmDecode(t, file)
	versions, _, _ := unstructured.NestedSlice(obj, "spec", "versions")
	spec, _, _ := unstructured.NestedMap(versions[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties")
	for field, description := range map[string]string{
		"stop":         "Allows to stop all ClickHouse clusters defined in a CHI.",
		"suspend":      "Suspend reconciliation of resources managed by a ClickHouse Installation.",
		"troubleshoot": "Allows to troubleshoot Pods during CrashLoopBack state.",
	} {
		f := spec[field].(map[string]any)
		if got := f["description"].(string); !strings.HasPrefix(got, description) {
			t.Errorf("%s.description = %q, want it to start %q", field, got, description)
		}
		if f["x-kubernetes-preserve-unknown-fields"] != true {
			t.Errorf("%s.x-kubernetes-preserve-unknown-fields = %v, want true (merged from TypeStringBool)", field, f["x-kubernetes-preserve-unknown-fields"])
		}
	}
}
