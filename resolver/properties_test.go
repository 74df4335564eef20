package resolver

import (
	"encoding/json"
	"testing"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// TestSelectionProperties: the properties behind the CSV's annotation list every olm.gvk.required
// and olm.package.required a second time, re-encoded as OLM's newOperatorFromBundle derives them
// from the registry's dependencies; other properties appear once.
func TestSelectionProperties(t *testing.T) {
	prop := func(typ, value string) catalog.Property {
		return catalog.Property{Type: typ, Value: json.RawMessage(value)}
	}
	e := &entry{props: []catalog.Property{
		prop(catalog.TypePackage, `{"packageName":"a","version":"1.0.0"}`),
		prop(catalog.TypeGVKRequired, `{"group":"example.com","kind":"Gadget","version":"v1"}`),
		prop(catalog.TypePackageRequired, `{"packageName":"b","versionRange":">=1.0.0 <2.0.0"}`),
		prop("olm.constraint", `{"failureMessage":"x","cel":{"rule":"true"}}`),
	}}
	got := e.selectionProperties()
	want := append(e.props[:len(e.props):len(e.props)],
		prop(catalog.TypeGVKRequired, `{"group":"example.com","version":"v1","kind":"Gadget"}`),
		prop(catalog.TypePackageRequired, `{"packageName":"b","versionRange":"\u003e=1.0.0 \u003c2.0.0"}`),
	)
	if len(got) != len(want) {
		t.Fatalf("got %d properties, want %d: %s", len(got), len(want), got)
	}
	for i := range want {
		if got[i].Type != want[i].Type || string(got[i].Value) != string(want[i].Value) {
			t.Errorf("property %d: %s %s, want %s %s", i, got[i].Type, got[i].Value, want[i].Type, want[i].Value)
		}
	}
	plain := &entry{props: e.props[:1]}
	if got := plain.selectionProperties(); len(got) != 1 {
		t.Errorf("a bundle without requirements: %d properties", len(got))
	}
	// A bundle whose catalog entry carries its manifests and names no image is never unpacked:
	// the annotation holds the registry's properties alone.
	embedded := &entry{props: e.props, bundle: &catalog.Bundle{InlineObjects: [][]byte{[]byte(`{}`)}}}
	if got := embedded.selectionProperties(); len(got) != len(e.props) {
		t.Errorf("a bundle served with its manifests and no image: %d properties, want %d", len(got), len(e.props))
	}
	imaged := &entry{props: e.props, bundle: &catalog.Bundle{Image: "quay.io/op/bundle@sha256:0", InlineObjects: [][]byte{[]byte(`{}`)}}}
	if got := imaged.selectionProperties(); len(got) != len(want) {
		t.Errorf("a bundle with an image is unpacked: %d properties, want %d", len(got), len(want))
	}
}
