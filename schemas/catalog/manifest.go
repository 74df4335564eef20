package catalog

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	yamlv2 "go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// readManifests reads every YAML or JSON document of the files in dir (not recursive, sorted)
// into a CSV and other objects.
func readManifests(fsys rootfs.FS, dir string) (*Manifests, diag.Problems) {
	var problems diag.Problems
	entries, err := readDir(fsys, dir, &problems)
	if err != nil {
		problems.Errorf(diag.Origin{File: fsys.Path(dir)}, "", "", "cannot read manifests: %s", rootfs.Describe(err))
		return nil, problems
	}
	m := &Manifests{}
	sum := sha256.New()
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		file := path.Join(dir, e.Name())
		data, err := fsys.ReadFile(file)
		if err != nil {
			problems.Errorf(diag.Origin{File: fsys.Path(file)}, "", "", "cannot read manifest: %s", rootfs.Describe(err))
			continue
		}
		fmt.Fprintf(sum, "%d:%s:%d:", len(e.Name()), e.Name(), len(data))
		sum.Write(data)
		objs, ps := manifestObjects(fsys.Path(file), e.Name(), data)
		problems = append(problems, ps...)
		for _, o := range objs {
			m.add(o, &problems)
			if m.CSV != nil && m.csvName == "" {
				m.csvName = file
			}
		}
	}
	if m.CSV == nil && problems.Err() == nil {
		problems.Errorf(diag.Origin{File: fsys.Path(dir)}, "", "", "the bundle has no ClusterServiceVersion")
	}
	if problems.Err() == nil {
		problems = append(problems, checkManifests(m, "")...)
	}
	sum.Sum(m.digest[:0])
	// CRDs first, as OLM applies them; otherwise file order.
	slices.SortStableFunc(m.Objects, func(a, b Object) int {
		return isCRD(b.Unstructured) - isCRD(a.Unstructured)
	})
	return m, problems
}

// isManifestFile reports whether a file of manifests/ is meant to hold objects, by its
// extension.
func isManifestFile(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// manifestObjects decodes one file of a bundle's manifests/ as opm's bundle parser reads it
// (operator-registry registry/parse.go addManifests, decodeFileFS): every file that is not
// hidden, whatever its extension, and only its first document. A file without a YAML or JSON
// extension that holds no object (a README, a licence) is skipped with a warning, as opm skips
// it; one with such an extension must decode, since opm would install the bundle without the
// object and the render must not silently hold less than the bundle says. Further documents are
// left out with a warning, as OLM leaves them out.
func manifestObjects(file, name string, data []byte) ([]Object, diag.Problems) {
	objs, problems := decodeDocuments(file, data, lastRepeats)
	first := -1 // the index of the first document opm decodes
	if len(objs) > 0 {
		first = objs[0].Origin.Index
	}
	for _, p := range problems.Errors() {
		if first < 0 || p.Origin.Index < first {
			first = -1 // the first document does not decode
			break
		}
	}
	if first < 0 {
		if isManifestFile(name) {
			return nil, problems
		}
		return nil, diag.Problems{{Severity: diag.Warning, Origin: diag.Origin{File: file},
			Message: "not a Kubernetes object: skipped, as opm skips it (only the bundle's objects belong in manifests/)"}}
	}
	var out diag.Problems
	later := len(objs) > 1
	for _, p := range problems {
		if p.Origin.Index == first {
			out = append(out, p) // warnings about the object kept
		} else {
			later = true
		}
	}
	if later {
		out = append(out, diag.Problem{Severity: diag.Warning, Origin: diag.Origin{File: file, Index: first + 1},
			Message: "documents after the first are left out, as OLM installs only the first document of a manifest file (opm decodeFileFS): put each object in its own file"})
	}
	return objs[:1], out
}

// add adds one decoded manifest: the CSV, or another object.
func (m *Manifests) add(o Object, problems *diag.Problems) {
	if o.GetKind() != "ClusterServiceVersion" {
		m.Objects = append(m.Objects, o)
		return
	}
	if m.CSV != nil {
		problems.Errorf(o.Origin, "ClusterServiceVersion/"+o.GetName(), "", "a bundle holds one ClusterServiceVersion; %s already holds %s", m.CSVOrigin, m.CSV.Name)
		return
	}
	csv, err := decodeCSV(o.Object)
	if err != nil {
		problems.Errorf(o.Origin, "ClusterServiceVersion/"+o.GetName(), "", "%v", err)
		return
	}
	m.CSV, m.CSVOrigin = csv, o.Origin
}

func isCRD(u *unstructured.Unstructured) int {
	if u.GetKind() == "CustomResourceDefinition" {
		return 1
	}
	return 0
}

// DecodeDocuments decodes the YAML or JSON documents of data into objects, each with its file
// and document index; empty documents are skipped (but counted in indexes), and a document that
// is not a Kubernetes object, or repeats a key, is a problem.
//
// A repeated key is an error, in inputs too: the API server's strict field validation (kubectl's
// default) refuses it, and which value was meant cannot be told.
func DecodeDocuments(file string, data []byte) ([]Object, diag.Problems) {
	return decodeDocuments(file, data, refuseRepeats)
}

// repeats says how a document's repeated keys are read.
type repeats int

const (
	// refuseRepeats makes a repeated key an error: what a user writes (inputs, the lock), where
	// which value was meant cannot be told.
	refuseRepeats repeats = iota
	// sameRepeats reads a key repeated with the same value once, with a warning (nothing is in
	// doubt), and refuses one repeated with another value: a bundle's metadata.
	sameRepeats
	// lastRepeats keeps the last value of a repeated key, with a warning naming it: a bundle's
	// manifests, which OLM decodes so (sigs.k8s.io/yaml) and installs as published.
	lastRepeats
)

// decodeDocuments decodes documents as DecodeDocuments does, repeated keys as mode says.
func decodeDocuments(file string, data []byte, mode repeats) ([]Object, diag.Problems) {
	var (
		out      []Object
		problems diag.Problems
	)
	// A byte order mark may open a YAML stream (YAML 1.2 §5.2); editors on Windows write one.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if p, binary := notText(file, data); binary {
		return nil, diag.Problems{p}
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for index := 0; ; index++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		origin := diag.Origin{File: file, Index: index}
		if err != nil {
			problems.Errorf(origin, "", "", "invalid YAML: %s", diag.Decoding(err))
			break
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, ok := decodeDocument(doc, origin, mode, &problems)
		if !ok || len(obj) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			problems.Errorf(origin, "", "", "not a Kubernetes object: apiVersion and kind are required")
			continue
		}
		out = append(out, Object{Unstructured: u, Origin: origin})
	}
	return out, problems
}

// notText refuses a file holding a NUL byte: YAML excludes NUL from its character set (YAML 1.2
// §5.1) and JSON from its text, and a decoder would read a file of NULs (a sparse or truncated
// file) as empty, so it would be skipped rather than refused.
func notText(file string, data []byte) (diag.Problem, bool) {
	at := bytes.IndexByte(data, 0)
	if at < 0 {
		return diag.Problem{}, false
	}
	return diag.Problem{Severity: diag.Error, Origin: diag.Origin{File: file},
		Message: fmt.Sprintf("not a YAML or JSON text file: a NUL byte at offset %d", at)}, true
}

// decodeDocument decodes one document strictly: a repeated key is an error, unless mode reads it
// (sameRepeats, lastRepeats).
func decodeDocument(doc []byte, origin diag.Origin, mode repeats, problems *diag.Problems) (map[string]any, bool) {
	var obj map[string]any
	err := yaml.UnmarshalStrict(doc, &obj)
	switch {
	case err == nil:
		return obj, true
	case isDuplicateKey(err):
		if obj, ok := readRepeats(doc, origin, mode, problems); ok {
			return obj, true
		}
		problems.Errorf(origin, "", "", "repeated key: %s; keep one", diag.Decoding(err))
	default:
		problems.Errorf(origin, "", "", "invalid YAML: %s", diag.Decoding(err))
	}
	return nil, false
}

// readRepeats decodes a document that repeats keys as mode allows, warning about each: the last
// value of each wins, as the non-strict decoder OLM uses keeps it.
func readRepeats(doc []byte, origin diag.Origin, mode repeats, problems *diag.Problems) (map[string]any, bool) {
	if mode == refuseRepeats {
		return nil, false
	}
	keys, same := repeatedKeys(doc)
	var obj map[string]any
	if len(keys) == 0 || (mode == sameRepeats && !same) || yaml.Unmarshal(doc, &obj) != nil {
		return nil, false
	}
	msg := "repeated with the same value: read once, as OLM reads it; keep one"
	if !same {
		msg = "repeated key: the last value is used, as OLM decodes the manifest and installs it; keep one"
	}
	problems.Warnf(origin, "", strings.Join(keys, ", "), "%s", msg)
	return obj, true
}

// repeatedKeys lists the paths of the keys a YAML document repeats in a mapping, and whether
// each repeats the value it had.
func repeatedKeys(doc []byte) (keys []string, same bool) {
	var root yamlv2.MapSlice
	if err := yamlv2.Unmarshal(doc, &root); err != nil {
		return nil, false
	}
	same = true
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case yamlv2.MapSlice:
			seen := map[string]any{}
			for _, item := range v {
				key := fmt.Sprint(item.Key)
				p := key
				if at != "" {
					p = at + "." + key
				}
				if prev, ok := seen[key]; ok {
					keys = append(keys, p)
					same = same && reflect.DeepEqual(prev, item.Value)
				}
				seen[key] = item.Value
				walk(item.Value, p)
			}
		case []any:
			for i, e := range v {
				walk(e, fmt.Sprintf("%s[%d]", at, i))
			}
		}
	}
	walk(root, "")
	return keys, same
}

// isDuplicateKey recognises the YAML decoder's repeated-key error.
func isDuplicateKey(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "already set in map") || strings.Contains(msg, "duplicate field") || strings.Contains(msg, "already defined")
}

// decodeCSV converts an unstructured CSV into operator-framework/api's type.
func decodeCSV(obj map[string]any) (*v1alpha1.ClusterServiceVersion, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	csv := &v1alpha1.ClusterServiceVersion{}
	if err := json.Unmarshal(data, csv); err != nil {
		return nil, fmt.Errorf("decoding ClusterServiceVersion: %s", diag.Decoding(err))
	}
	return csv, nil
}
