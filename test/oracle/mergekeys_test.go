package oracle

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/operator-registry/pkg/registry"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// clickhouse is clickhouse 0.27.2 of the community catalog, kept byte for byte in the main
// module's test data: its CRDs override merged keys (!!merge <<: *TypeStringBool, then their own
// description).
const clickhouse = "../../schemas/catalog/testdata/clickhouse"

// canonicalJSON re-encodes a JSON object with sorted keys and numbers as encoding/json keeps
// them, so that decoders that hold numbers differently compare equal.
func canonicalJSON(t *testing.T, data []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestMergeKeysAsOLMDecodes: every manifest of clickhouse 0.27.2 decodes in olm-render exactly as
// OLM decodes it, both where opm renders the bundle into a catalog (registry.NewImageInput, the
// olm.bundle.object values) and where OLM's catalog operator loads an unpacked bundle
// (registry.DecodeUnstructured, the ConfigMap bundle loader): merged keys hold the merged values,
// overridden ones the explicit values.
func TestMergeKeysAsOLMDecodes(t *testing.T) {
	c, err := catalog.Load(clickhouse)
	if err != nil {
		t.Fatal(err)
	}
	b := c.Package("clickhouse").Bundle("clickhouse-operator.v0.27.2")
	m, err := b.Manifests()
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]string{}
	for _, o := range m.Objects {
		data, err := json.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		ours[o.GetName()] = canonicalJSON(t, data)
	}
	rendered, err := renderBundleDir(b)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, obj := range rendered.Objects {
		var meta struct {
			Kind     string
			Metadata struct{ Name string }
		}
		if err := json.Unmarshal([]byte(obj), &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Kind != "CustomResourceDefinition" {
			continue
		}
		checked++
		if diff := cmp.Diff(canonicalJSON(t, []byte(obj)), ours[meta.Metadata.Name]); diff != "" {
			t.Errorf("opm render: %s (-OLM +olm-render):\n%s", meta.Metadata.Name, diff)
		}
	}
	if checked != 4 {
		t.Errorf("opm render holds %d CRDs, want 4", checked)
	}
	for _, o := range m.Objects {
		data, err := os.ReadFile(filepath.Join(clickhouse, "clickhouse/0.27.2/manifests", filepath.Base(o.Origin.File)))
		if err != nil {
			t.Fatal(err)
		}
		u, err := registry.DecodeUnstructured(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		js, err := u.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(canonicalJSON(t, js), ours[o.GetName()]); diff != "" {
			t.Errorf("DecodeUnstructured: %s (-OLM +olm-render):\n%s", o.Origin, diff)
		}
	}
}
