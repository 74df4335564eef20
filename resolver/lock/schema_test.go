package lock

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSchemaMatchesTypes keeps the published JSON schema in step with the Go types: every JSON
// field of a type is a property of its schema object and the other way round.
func TestSchemaMatchesTypes(t *testing.T) {
	data, err := os.ReadFile("../../schemas/olm-render.lock.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	props := func(obj any) []string {
		var out []string
		for k := range obj.(map[string]any)["properties"].(map[string]any) {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	entry := schema["$defs"].(map[string]any)["entry"]
	namespaces := schema["properties"].(map[string]any)["namespaces"].(map[string]any)["items"]
	entryProps := entry.(map[string]any)["properties"].(map[string]any)
	tests := []struct {
		name   string
		typ    any
		schema any
	}{
		{"Lock", Lock{}, schema},
		{"Namespace", Namespace{}, namespaces},
		{"Entry", Entry{}, entry},
		{"Intent", Intent{}, entryProps["intent"]},
		{"CatalogRef", CatalogRef{}, entryProps["catalog"]},
	}
	for _, tt := range tests {
		if got, want := props(tt.schema), jsonFields(tt.typ); !slices.Equal(got, want) {
			t.Errorf("%s: schema properties %v, Go fields %v", tt.name, got, want)
		}
	}
}

func jsonFields(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
