package fn

import (
	"bytes"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
)

// FuzzProcess: a ResourceList from anyone's kustomization (a fuzzed functionConfig and items)
// never panics the function: it is processed, or refused with an error result.
func FuzzProcess(f *testing.F) {
	const config = "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\ncatalogs:\n- {name: examples, namespace: olm, path: quickstart/catalog}\n"
	f.Add([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n" + indent(config) + "items:\n" + indentList(items)))
	f.Add([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig: null\nitems: []\n"))
	f.Add([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig: [a]\nitems: {a: b}\n"))
	f.Add([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig: {apiVersion: olm-render.dev/v1alpha1, kind: RenderConfig, options: {kubeVersion: 7, for: [x]}, catalogs: [{path: /}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		p := root(t)
		var out bytes.Buffer
		rw := &kio.ByteReadWriter{Reader: bytes.NewReader(data), Writer: &out, KeepReaderAnnotations: true}
		_ = framework.Execute(p, rw)
	})
}

// indent indents a YAML mapping by two spaces.
func indent(s string) string {
	var b bytes.Buffer
	for _, line := range bytes.Split([]byte(s), []byte("\n")) {
		if len(line) > 0 {
			b.WriteString("  ")
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// indentList makes the documents of a YAML stream the items of a list.
func indentList(stream string) string {
	var b bytes.Buffer
	for _, doc := range bytes.Split([]byte(stream), []byte("---\n")) {
		first := true
		for _, line := range bytes.Split(doc, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			if first {
				b.WriteString("- ")
				first = false
			} else {
				b.WriteString("  ")
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
