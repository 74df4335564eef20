package permissions

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// decodeYAML decodes every document of a YAML (or JSON) stream into objects, skipping empty
// documents.
func decodeYAML(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decode document %d: %w", len(out), err)
		}
		if m != nil {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// readTree decodes every *.yaml file under dir, in lexical order.
func readTree(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		objs, err := decodeYAML(data)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, objs...)
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	return out
}

func TestRenderedExample(t *testing.T) {
	objs := readTree(t, filepath.Join("..", "..", "examples", "flux", "rendered"))
	first, err := Permissions(objs)
	if err != nil {
		t.Fatalf("Permissions: %v", err)
	}
	second, err := Permissions(objs)
	if err != nil {
		t.Fatalf("Permissions, second call: %v", err)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("Permissions is not deterministic (-first +second):\n%s", diff)
	}
	backward := slices.Clone(objs)
	slices.Reverse(backward)
	reversed, err := Permissions(backward)
	if err != nil {
		t.Fatalf("Permissions, reversed input: %v", err)
	}
	if diff := cmp.Diff(first, reversed); diff != "" {
		t.Errorf("Permissions depends on input order (-in order +reversed):\n%s", diff)
	}
	for _, subject := range []string{"operators/widget-operator", "operators/gadget-operator"} {
		if !slices.ContainsFunc(first, func(g Grant) bool { return g.Subject == subject }) {
			t.Errorf("no grant for %s", subject)
		}
	}
	// gadget-operator's RoleBinding names its ServiceAccount without a namespace.
	want := Grant{Subject: "operators/gadget-operator", Namespace: "operators", APIGroup: "operators.coreos.com",
		Resource: "operatorconditions", ResourceName: "gadget-operator.v1.0.0", Verb: "get"}
	if !slices.Contains(first, want) {
		t.Errorf("Permissions lacks %+v", want)
	}
}

// renameRBAC returns deep copies of objs with every role and binding renamed, as an upgrade
// that only changes OLM's versioned, hashed names would.
func renameRBAC(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(objs))
	for i, u := range objs {
		out[i] = u.DeepCopy()
		switch u.GetKind() {
		case "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding":
			out[i].SetName(u.GetName() + "-x7bhms0aunrepbgjou8")
		}
		if ref, ok := out[i].Object["roleRef"].(map[string]any); ok {
			ref["name"] = ref["name"].(string) + "-x7bhms0aunrepbgjou8"
		}
	}
	return out
}

func TestRenderedExampleRenamed(t *testing.T) {
	objs := readTree(t, filepath.Join("..", "..", "examples", "flux", "rendered"))
	changes, err := Compare(objs, renameRBAC(objs))
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	if len(changes) != 0 {
		t.Errorf("renaming every role and binding changed permissions:\n%s", strings.Join(Summary(changes), "\n"))
	}
}
