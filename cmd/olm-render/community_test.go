package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// communityInputs writes the inputs of a render of one package from a community tree bound with
// --catalog olm/community: its Namespace, a global OperatorGroup and the Subscription.
func communityInputs(t *testing.T, pkg, channel string) string {
	t.Helper()
	dir := t.TempDir()
	in := "apiVersion: v1\nkind: Namespace\nmetadata: {name: operators}\n---\n" +
		"apiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {name: community, namespace: olm}\nspec: {sourceType: grpc}\n---\n" +
		"apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: global, namespace: operators}\n---\n" +
		"apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: " + pkg + ", namespace: operators}\n" +
		"spec: {name: " + pkg + ", channel: " + channel + ", source: community, sourceNamespace: olm}\n"
	fixtureWrite(t, filepath.Join(dir, "input.yaml"), in)
	return dir
}

// renderCommunity renders one package of a community tree and returns the objects rendered and
// what was printed on stderr.
func renderCommunity(t *testing.T, tree, pkg, channel string, args ...string) ([]catalog.Object, string) {
	t.Helper()
	abs, err := filepath.Abs(tree)
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"render", "--root", "/", "--no-lock", "--catalog", "olm/community=" + abs}, args...)
	code, out, errOut := runCLI(t, append(argv, communityInputs(t, pkg, channel))...)
	if code != 0 {
		t.Fatalf("render: exit %d:\n%s", code, errOut)
	}
	objs, problems := catalog.DecodeDocuments("stdout", []byte(out))
	if err := problems.Err(); err != nil {
		t.Fatal(err)
	}
	return objs, errOut
}

// olmDecoded decodes a manifest file as OLM does (operator-registry registry.DecodeUnstructured:
// k8s.io/apimachinery's YAMLOrJSONDecoder, go-yaml v2 underneath).
func olmDecoded(t *testing.T, file string) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 30).Decode(u); err != nil {
		t.Fatal(err)
	}
	return u
}

// jsonOf is a value as JSON encodes it, so that decoders keeping numbers differently compare
// equal.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRenderClickhouseMergeKeys: clickhouse 0.27.2 of the community catalog, whose CRDs override
// merged YAML keys, renders without a warning, and each rendered CRD's spec is the spec OLM's
// decoder reads from the bundle: the overriding description, the merged
// x-kubernetes-preserve-unknown-fields.
func TestRenderClickhouseMergeKeys(t *testing.T) {
	const tree = "../../schemas/catalog/testdata/clickhouse"
	objs, errOut := renderCommunity(t, tree, "clickhouse", "latest")
	if strings.Contains(errOut, "warning") {
		t.Errorf("warnings:\n%s", errOut)
	}
	manifests := filepath.Join(tree, "clickhouse/0.27.2/manifests")
	files, err := filepath.Glob(filepath.Join(manifests, "*.crd.yaml"))
	if err != nil || len(files) != 4 {
		t.Fatalf("%d CRD files: %v", len(files), err)
	}
	for _, f := range files {
		want := olmDecoded(t, f)
		got := findObject(objs, "CustomResourceDefinition", want.GetName())
		if got == nil {
			t.Fatalf("no CustomResourceDefinition %s rendered", want.GetName())
		}
		if jsonOf(t, got.Object["spec"]) != jsonOf(t, want.Object["spec"]) {
			t.Errorf("%s: the rendered spec is not the spec OLM decodes", want.GetName())
		}
	}
	crd := findObject(objs, "CustomResourceDefinition", "clickhouseinstallations.clickhouse.altinity.com")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	suspend, _, _ := unstructured.NestedMap(versions[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties", "suspend")
	if d, _ := suspend["description"].(string); !strings.HasPrefix(d, "Suspend reconciliation") || suspend["x-kubernetes-preserve-unknown-fields"] != true {
		t.Errorf("spec.suspend = %v, want its own description and the merged x-kubernetes-preserve-unknown-fields", suspend)
	}
}

// findObject returns the rendered object of a kind and name, or nil.
func findObject(objs []catalog.Object, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o.Unstructured
		}
	}
	return nil
}

// rabbitmq is a copy of the community catalog's rabbitmq-messaging-topology-operator, the one
// bundle of rabbitmq-cluster-operator it depends on, and its published catalog
// (schemas/catalog/testdata/rabbitmq/README.md).
const rabbitmq = "../../schemas/catalog/testdata/rabbitmq"

// TestValidateCountsEveryBundleDirectory: catalog validate on rabbitmq-messaging-topology-operator
// as the community tree keeps it counts all 23 bundle directories: the 12 of the published
// catalog, and the 11 it leaves out (three in <version>/bundle/, eight its catalog template
// lists in no channel), each named in a warning; the tree is valid.
func TestValidateCountsEveryBundleDirectory(t *testing.T) {
	tree := filepath.Join(rabbitmq, "operators", "rabbitmq-messaging-topology-operator")
	code, out, errOut := runCLI(t, "catalog", "validate", "--root", rabbitmq, tree)
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	if want := "12 bundles (of 23 bundle directories: 11 left out, as the published catalog leaves them out): valid"; !strings.Contains(out, want) {
		t.Errorf("stdout %q, want %q", out, want)
	}
	for _, dir := range []string{"1.18.3/bundle", "1.19.0/bundle", "1.19.1/bundle", "1.8.0", "1.9.0", "1.10.0", "1.10.1", "1.10.2", "1.10.3", "1.11.0", "1.12.0"} {
		if !strings.Contains(errOut, "warning: "+tree+"/"+dir+": ") {
			t.Errorf("no warning naming %s:\n%s", dir, errOut)
		}
	}
}

// TestRenderRabbitmqHeadAsPublished: a render from the community tree installs the head of the
// published catalog, 1.19.3 (not the 1.19.1 of <version>/bundle/, nor 1.18.2), and a resolution
// against the published catalog chooses the same bundle (both with the dependency it requires,
// rabbitmq-cluster-operator, from the tree).
func TestRenderRabbitmqHeadAsPublished(t *testing.T) {
	const pkg, head = "rabbitmq-messaging-topology-operator", "rabbitmq-messaging-topology-operator.v1.19.3"
	objs, _ := renderCommunity(t, filepath.Join(rabbitmq, "operators"), pkg, "stable")
	if findObject(objs, "ClusterServiceVersion", head) == nil {
		t.Fatalf("the render from the tree does not install %s", head)
	}
	published, err := filepath.Abs(filepath.Join(rabbitmq, "catalogs/v4.22", pkg, "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	deps, err := filepath.Abs(filepath.Join(rabbitmq, "operators/rabbitmq-cluster-operator"))
	if err != nil {
		t.Fatal(err)
	}
	in := communityInputs(t, pkg, "stable")
	fixtureWrite(t, filepath.Join(in, "deps.yaml"), "apiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {name: deps, namespace: olm}\nspec: {sourceType: grpc}\n")
	code, out, errOut := runCLI(t, "resolve", "--root", "/", "--no-lock", "-o", "table",
		"--catalog", "olm/community="+published, "--catalog", "olm/deps="+deps, in)
	if code != 0 || !strings.Contains(out, head) {
		t.Fatalf("resolve against the published catalog: exit %d, want %s:\n%s%s", code, head, out, errOut)
	}
}
