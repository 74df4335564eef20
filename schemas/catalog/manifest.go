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
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
	"github.com/olm-render/olm-render/schemas/yamlkeys"
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

// DecodeYAML decodes data, one YAML or JSON document a user writes that need not be a
// Kubernetes object (the lock), as DecodeDocuments decodes inputs: a repeated key, or a key set
// before a merge key that sets it to another value, is an error naming the key and its line.
func DecodeYAML(file string, data []byte) (map[string]any, diag.Problems) {
	var problems diag.Problems
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	obj, _ := decodeDocument(data, diag.Origin{File: file}, 1, refuseRepeats, &problems)
	return obj, problems
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
	pos := 0
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
		obj, ok := decodeDocument(doc, origin, startLine(data, &pos, doc), mode, &problems)
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

// decodeDocument decodes one document as OLM does (sigs.k8s.io/yaml), its keys read as mode says:
// a key repeated in one mapping, or set before a merge key (<<) that sets it too, is reported
// (keyProblems); a key overriding a merged one is not a repeat. line is the document's first
// line in its file (0 when unknown).
func decodeDocument(doc []byte, origin diag.Origin, line int, mode repeats, problems *diag.Problems) (map[string]any, bool) {
	var obj map[string]any
	err := yaml.UnmarshalStrict(doc, &obj)
	switch {
	case err == nil:
		return obj, true
	case !isDuplicateKey(err):
		problems.Errorf(origin, "", "", "invalid YAML: %s", diag.Decoding(err))
		return nil, false
	}
	report, ierr := yamlkeys.Inspect(doc)
	if ierr != nil {
		problems.Errorf(origin, "", "", "repeated key: %s; keep one", diag.Decoding(err))
		return nil, false
	}
	if !keyProblems(report, origin, line, mode, problems) {
		return nil, false
	}
	obj = nil
	if err := yaml.Unmarshal(doc, &obj); err != nil {
		problems.Errorf(origin, "", "", "invalid YAML: %s", diag.Decoding(err))
		return nil, false
	}
	return obj, true
}

// keyProblems reports the keys in doubt of a document as mode reads them, and whether the
// document can be read (no error among them).
func keyProblems(r yamlkeys.Report, origin diag.Origin, line int, mode repeats, problems *diag.Problems) bool {
	ok := true
	for _, f := range r.Findings {
		p := diag.Problem{Severity: diag.Warning, Origin: origin, Object: reportObject(r), Field: f.Path,
			Message: keyMessage(f, fileLine(line, f.Line), fileLine(line, f.Other), mode)}
		if mode == refuseRepeats || (mode == sameRepeats && !f.Same && !f.MergedOver) {
			p.Severity, ok = diag.Error, false
		}
		problems.Add(p)
	}
	return ok
}

// keyMessage says what a key in doubt is and how it is read; at and other are its lines.
func keyMessage(f yamlkeys.Finding, at, other string, mode repeats) string {
	switch {
	case f.MergedOver && mode == refuseRepeats:
		return fmt.Sprintf("set at %s, before the merge key << at %s that sets it too: go-yaml v2 (kubectl, OLM) keeps the merged value, YAML 1.1 this one; move the key after <<", at, other)
	case f.MergedOver:
		return fmt.Sprintf("set at %s, before the merge key << at %s that sets it too: OLM decodes with go-yaml v2, which keeps the merged value, and installs that (YAML 1.1 would keep this one); move the key after << to keep it", at, other)
	case mode == refuseRepeats:
		return fmt.Sprintf("repeated key (%s): keep one; the API server's strict field validation refuses a repeated key, and which value was meant cannot be told", bothLines(other, at))
	case f.Same:
		return fmt.Sprintf("repeated with the same value (%s): read once, as OLM reads it; keep one", bothLines(other, at))
	case mode == sameRepeats:
		return fmt.Sprintf("repeated key with another value (%s): which one was meant cannot be told; keep one", bothLines(other, at))
	}
	return fmt.Sprintf("repeated key: the last value (%s) is used, as OLM decodes the manifest and installs it (the first is at %s); keep one", at, other)
}

// bothLines names the lines of a key and its repeat: "line 3 and line 5", or "line 3, twice".
func bothLines(first, second string) string {
	if first == second {
		return first + ", twice"
	}
	return first + " and " + second
}

// fileLine names a line of a document by its line in the file, the document starting at line
// start (0: unknown, the line in the document is named).
func fileLine(start, line int) string {
	if start == 0 {
		return fmt.Sprintf("line %d of the document", line)
	}
	return fmt.Sprintf("line %d", start+line-1)
}

// reportObject names the object of a document as messages do: Kind/namespace/name, Kind/name,
// or "" for none.
func reportObject(r yamlkeys.Report) string {
	switch {
	case r.Kind == "":
		return ""
	case r.Name == "":
		return r.Kind
	case r.Namespace != "":
		return r.Kind + "/" + r.Namespace + "/" + r.Name
	}
	return r.Kind + "/" + r.Name
}

// startLine returns the line of data (1-based) at which doc, a document the YAML reader cut
// from it at or after *pos, starts, and moves *pos past it; 0 when doc is not found.
func startLine(data []byte, pos *int, doc []byte) int {
	i := bytes.Index(data[*pos:], doc)
	if i < 0 {
		return 0
	}
	start := *pos + i
	*pos = start + len(doc)
	return 1 + bytes.Count(data[:start], []byte("\n"))
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
