package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/test/fixture"
	"github.com/olm-render/olm-render/test/registrytest"
)

// TestRenderV1QuickstartRefused: --olm=v1 refuses the quickstart, naming widget-operator's
// olm.gvk.required dependency on the Gadget API (OLM v1 installs no bundle that declares one).
func TestRenderV1QuickstartRefused(t *testing.T) {
	code, out, errOut := runCLI(t, "render", "--no-lock", "--olm=v1", quickstart)
	if code == 0 || out != "" {
		t.Fatalf("exit %d with %d bytes on stdout: want a refusal and nothing written", code, len(out))
	}
	for _, want := range []string{"widget-operator", "olm.gvk.required", "Gadget"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the refusal does not name %q:\n%s", want, errOut)
		}
	}
}

// kubeGreenV1 lays out kube-green's inputs with the CatalogSource naming an index of the
// corpus's kube-green bundles served by an in-process registry, in a temporary working
// directory with a project file for OLM v1; it returns the inputs and the registry flags.
func kubeGreenV1(t *testing.T, startingCSV string) (string, []string) {
	t.Helper()
	reg := registrytest.Start(t)
	if _, err := reg.PublishCatalog(filepath.Join(fixture.Corpus(t), "operators", "kube-green"), reg.Host+"/olm/catalog:v1"); err != nil {
		t.Fatal(err)
	}
	top := t.TempDir()
	t.Chdir(top)
	in := "inputs"
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	start := ""
	if startingCSV != "" {
		start = ", startingCSV: " + startingCSV
	}
	docs := "apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-green}\n---\n" +
		"apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: kube-green, namespace: kube-green}\n---\n" +
		"apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: kube-green, namespace: kube-green}\n" +
		"spec: {name: kube-green, channel: alpha, source: community, sourceNamespace: olm" + start + "}\n"
	if err := os.WriteFile(filepath.Join(in, "subscription.yaml"), []byte(docs), 0o644); err != nil {
		t.Fatal(err)
	}
	fixture.WriteObject(t, filepath.Join(in, "catalogsource.yaml"), fixture.CatalogSource("community", "", reg.Host+"/olm/catalog:v1"))
	if err := os.WriteFile("olm-render.yaml", []byte(projectHeader+"options: {olm: v1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return in, []string{"--cache-dir", filepath.Join(t.TempDir(), "cache"), "--registries-conf", registrytest.RegistriesConf(t, []string{reg.Host}, nil)}
}

// TestRenderV1: a dependency-free operator renders for OLM v1 as a ClusterCatalog pinned by the
// index's digest (with the label catalogd sets), a ClusterExtension pinned to the locked version,
// its channel and catalog, and the prediction of what operator-controller creates.
func TestRenderV1(t *testing.T) {
	in, flags := kubeGreenV1(t, "")
	code, _, errOut := runCLI(t, append([]string{"render", "--output-dir", "rendered", in}, flags...)...)
	if code != 0 {
		t.Fatalf("render --olm=v1: exit %d: %s", code, errOut)
	}
	tree := treeText(t, "rendered")
	for _, want := range []string{
		"kind: ClusterCatalog", "olm.operatorframework.io/metadata.name: community", "/olm/catalog@sha256:",
		"kind: ClusterExtension", "packageName: kube-green", "version: 0.7.1", "- alpha",
		"== prediction/", "kind: Deployment",
	} {
		if !strings.Contains(tree, want) {
			t.Errorf("the v1 render lacks %q", want)
		}
	}
	for _, never := range []string{"kind: ClusterServiceVersion", "kind: Subscription", "kind: OperatorGroup", "kind: CatalogSource"} {
		if strings.Contains(tree, never) {
			t.Errorf("the v1 render holds %q", never)
		}
	}
}

// TestUpgradeV1OneHop: with OLM v1, upgrade proposes the next hop operator-controller accepts,
// --to-head is refused (one pin per hop, one pull request each), and a lock that jumps past the
// next hop is refused naming the hops v1 accepts.
func TestUpgradeV1OneHop(t *testing.T) {
	in, flags := kubeGreenV1(t, "kube-green.v0.6.0")
	run := func(args ...string) (int, string, string) { return runCLI(t, append(args, flags...)...) }
	if code, _, errOut := run("lock", in); code != 0 {
		t.Fatalf("lock: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run("upgrade", "--all", "--to-head", in); code == 0 || !strings.Contains(errOut, "one hop per pin") {
		t.Errorf("upgrade --to-head with OLM v1: exit %d: %s", code, errOut)
	}
	code, out, errOut := run("upgrade", "--all", in)
	if code != 0 || !strings.Contains(out, "kube-green.v0.6.0 → kube-green.v0.7.0") {
		t.Fatalf("upgrade: exit %d\n%s%s", code, out, errOut)
	}
	editFile(t, filepath.Join(in, "subscription.yaml"), ", startingCSV: kube-green.v0.6.0", ", startingCSV: kube-green.v0.5.0")
	if code, _, errOut := run("lock", "--upgrade", in); code == 0 || !strings.Contains(errOut, "kube-green") {
		t.Errorf("a lock moving back: exit %d: %s", code, errOut)
	}
}

// TestLockV1Jump: with OLM v1, a lock moving a ClusterExtension past the next hop (lock
// --upgrade resolving afresh to the channel head) is refused, naming the hop v1 accepts.
func TestLockV1Jump(t *testing.T) {
	in, flags := kubeGreenV1(t, "kube-green.v0.5.0")
	run := func(args ...string) (int, string, string) { return runCLI(t, append(args, flags...)...) }
	if code, _, errOut := run("lock", in); code != 0 {
		t.Fatalf("lock: exit %d: %s", code, errOut)
	}
	editFile(t, filepath.Join(in, "subscription.yaml"), ", startingCSV: kube-green.v0.5.0", "")
	code, _, errOut := run("lock", "--upgrade", in)
	if code == 0 || !strings.Contains(errOut, "Subscription kube-green/kube-green") || !strings.Contains(errOut, "one hop") {
		t.Errorf("a lock jumping to the head: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run("lock", "--upgrade", "--olm=absent", in); code != 0 {
		t.Errorf("the same jump where OLM does not run: exit %d: %s", code, errOut)
	}
}

// TestV1NeitherOLM: l5-operator's head requires APIs no catalog of the corpus provides, so OLM
// v0 cannot resolve it; OLM v1 resolves no dependency, and refuses the bundle for declaring
// them. --olm=v1 fails with v1's verdict and says OLM v0 cannot install it either, also with
// --allow-partial (which leaves to OLM v0 only what it can resolve); migrate check refuses it
// with the note; migrate plan has nothing to move; the OLM v0 render keeps OLM v0's error.
func TestV1NeitherOLM(t *testing.T) {
	operators := filepath.Join(fixture.Corpus(t), "operators")
	src, err := catalog.Load(filepath.Join(operators, "l5-operator"))
	if err != nil {
		t.Fatal(err)
	}
	var tc *fixture.Case
	for _, c := range fixture.InstallModeCases(t, src) {
		if c.Package == "l5-operator" && c.Mode == "AllNamespaces" {
			tc = &c
			break
		}
	}
	if tc == nil {
		t.Fatal("no AllNamespaces case of l5-operator")
	}
	dir := t.TempDir()
	fixture.WriteInputs(t, dir, *tc, fixture.CatalogSource("operators", "", "registry.example.com/olm/catalog@sha256:"+strings.Repeat("0", 64)))
	bind := []string{"--catalog", "olm/operators=" + operators}

	for _, partial := range []bool{false, true} {
		args := append([]string{"render", "--no-lock", "--olm=v1", dir}, bind...)
		if partial {
			args = append(args, "--allow-partial")
		}
		code, out, errOut := runCLI(t, args...)
		if code == 0 || out != "" {
			t.Errorf("%v: exit %d with %d bytes on stdout, want a failure and nothing written", args, code, len(out))
		}
		for _, want := range []string{"OLM v1 cannot take Subscription", "[dependency]", "nor can OLM v0", "hint: neither OLM installs them"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%v: the error does not say %q:\n%s", args, want, errOut)
			}
		}
	}
	code, _, errOut := runCLI(t, append([]string{"render", "--no-lock", dir}, bind...)...)
	if code == 0 || strings.Contains(errOut, "OLM v1") || !strings.Contains(errOut, "l5-operator") {
		t.Errorf("the OLM v0 render: exit %d, want OLM v0's resolution error alone:\n%s", code, errOut)
	}
	code, out, errOut := runCLI(t, append([]string{"migrate", "check", "-o", "json", dir}, bind...)...)
	if code != 1 || !strings.Contains(out, `"verdict": "refused"`) || !strings.Contains(out, `"code": "dependency"`) || !strings.Contains(out, `"code": "v0-unresolvable"`) {
		t.Errorf("migrate check: exit %d, want refused for its dependencies with the v0-unresolvable note:\n%s%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, append([]string{"migrate", "plan", "--output-dir", filepath.Join(t.TempDir(), "plan"), dir}, bind...)...)
	if code == 0 || !strings.Contains(errOut, "nothing of theirs to move") {
		t.Errorf("migrate plan: exit %d, want nothing to move:\n%s", code, errOut)
	}
}
