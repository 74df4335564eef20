// Package yamlkeys finds the keys of a YAML document that are in doubt: a key a mapping holds
// twice, and a key set before a merge key (<<) that sets it to another value.
//
// # Merge keys
//
// YAML 1.1 merge keys (<<: *anchor, or <<: [*a, *b]) copy the keys of other mappings into a
// mapping, and a key the mapping sets itself overrides a merged one: that is no repeat. go-yaml
// v2, which sigs.k8s.io/yaml uses and with it OLM (operator-registry decodes bundle manifests
// with k8s.io/apimachinery's YAMLOrJSONDecoder), kubectl and the API machinery, applies a merge
// where it is written: a key written after << overrides the merged value, as YAML 1.1 says, but a
// key written before << is overwritten by it. Its strict mode reports both as repeated keys.
// Inspect tells them apart: only a key written twice in one mapping is a repeat, and a key set
// before a merge that sets it to another value is reported on its own, since YAML 1.1 and the
// decoders OLM uses read it differently.
//
// Anchors and aliases are followed only to learn the keys a merge brings: a repeat inside an
// anchored mapping is reported once, where the mapping is written.
package yamlkeys

import (
	"fmt"
	"maps"
	"regexp"

	"go.yaml.in/yaml/v3"
)

// Finding is one key in doubt.
type Finding struct {
	// Path is the key's field path in the document, e.g. spec.channel or
	// metadata.annotations[olm.skipRange].
	Path string
	// Line is the key's line, 1-based in the document.
	Line int
	// Other is the line of the key's first occurrence (a repeat), or of the merge key that sets
	// it too (MergedOver).
	Other int
	// MergedOver says the key is written before a merge key whose mappings set it to another
	// value: YAML 1.1 keeps the key's own value, go-yaml v2 the merged one.
	MergedOver bool
	// Same says a repeated key repeats the value it had.
	Same bool
}

// Report is what Inspect finds in a document.
type Report struct {
	Findings []Finding
	// Kind, Namespace and Name are the object's kind and metadata (the last occurrence of each
	// key, as the decoders read it), for messages; "" when the document has none.
	Kind, Namespace, Name string
}

// Inspect parses one YAML document and reports its keys in doubt, in document order.
func Inspect(doc []byte) (Report, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return Report{}, fmt.Errorf("parsing YAML: %w", err)
	}
	var r Report
	if len(root.Content) == 0 {
		return r, nil
	}
	w := walker{merged: map[*yaml.Node]map[string]*yaml.Node{}, visited: map[*yaml.Node]bool{}}
	w.walk(root.Content[0], "")
	r.Findings = w.findings
	r.Kind = scalarAt(root.Content[0], "kind")
	r.Namespace = scalarAt(root.Content[0], "metadata", "namespace")
	r.Name = scalarAt(root.Content[0], "metadata", "name")
	return r, nil
}

// walker walks a document's nodes, collecting findings.
type walker struct {
	findings []Finding
	// merged caches the keys and values each node brings to a merge.
	merged map[*yaml.Node]map[string]*yaml.Node
	// visited marks the nodes walked: an anchored node is walked where it is written, once.
	visited map[*yaml.Node]bool
}

// walk inspects a node and what it holds; at is its field path.
func (w *walker) walk(n *yaml.Node, at string) {
	if n == nil || n.Kind == yaml.AliasNode || w.visited[n] {
		return
	}
	w.visited[n] = true
	switch n.Kind {
	case yaml.MappingNode:
		w.mapping(n, at)
	case yaml.SequenceNode:
		for i, c := range n.Content {
			w.walk(c, fmt.Sprintf("%s[%d]", at, i))
		}
	}
}

// mapping inspects the keys of one mapping, then its values.
func (w *walker) mapping(n *yaml.Node, at string) {
	first := map[string]int{} // key -> index of its first occurrence (<< for merge keys)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key, p := k.Value, Join(at, k.Value)
		if j, ok := first[key]; ok && isMerge(k) == isMerge(n.Content[j]) {
			w.findings = append(w.findings, Finding{Path: p, Line: k.Line, Other: n.Content[j].Line,
				Same: equal(n.Content[j+1], v, 0)})
		} else if !ok {
			first[key] = i
		}
		if isMerge(k) {
			w.mergedOver(n, i, at)
			w.walkMerged(v, at)
			continue
		}
		w.walk(v, p)
	}
}

// walkMerged inspects the mappings a merge key brings that are written in place (not aliases):
// their keys belong to the mapping at.
func (w *walker) walkMerged(v *yaml.Node, at string) {
	if v.Kind == yaml.SequenceNode {
		for _, c := range v.Content {
			w.walk(c, at)
		}
		return
	}
	w.walk(v, at)
}

// mergedOver reports the keys written before the merge key at index i of mapping n that the
// merge sets to another value.
func (w *walker) mergedOver(n *yaml.Node, i int, at string) {
	values := w.mergeValues(n.Content[i+1], 0)
	for j := 0; j < i; j += 2 {
		k := n.Content[j]
		if merged, ok := values[k.Value]; ok && !isMerge(k) && !equal(n.Content[j+1], merged, 0) {
			w.findings = append(w.findings, Finding{Path: Join(at, k.Value), Line: k.Line, Other: n.Content[i].Line, MergedOver: true})
		}
	}
}

// maxDepth bounds how deep merges and comparisons follow aliases (a merged mapping may merge
// others): YAML aliases can build exponentially large documents.
const maxDepth = 64

// mergeValues returns the keys and values the value of a merge key brings, as go-yaml v2 builds
// them: a mapping's keys in order, each merge it holds applied where it is written; the mappings
// of a sequence applied last to first, so that an earlier one wins.
func (w *walker) mergeValues(v *yaml.Node, depth int) map[string]*yaml.Node {
	v = resolve(v)
	if v == nil || depth > maxDepth {
		return nil
	}
	if values, ok := w.merged[v]; ok {
		return values
	}
	values := map[string]*yaml.Node{}
	switch v.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			if isMerge(v.Content[i]) {
				maps.Copy(values, w.mergeValues(v.Content[i+1], depth+1))
				continue
			}
			values[v.Content[i].Value] = v.Content[i+1]
		}
	case yaml.SequenceNode:
		for i := len(v.Content) - 1; i >= 0; i-- {
			maps.Copy(values, w.mergeValues(v.Content[i], depth+1))
		}
	}
	w.merged[v] = values
	return values
}

// isMerge reports whether a key is a merge key as go-yaml reads one: << untagged (resolved as
// !!merge) or tagged !!merge; a quoted '<<' is a plain key.
func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag == "!!merge"
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxDepth; i++ {
		n = n.Alias
	}
	return n
}

// equal reports whether two nodes hold the same value (same tags, scalars and structure).
func equal(a, b *yaml.Node, depth int) bool {
	a, b = resolve(a), resolve(b)
	switch {
	case a == b:
		return true
	case a == nil || b == nil || depth > maxDepth:
		return false
	case a.Kind != b.Kind || a.ShortTag() != b.ShortTag() || a.Value != b.Value || len(a.Content) != len(b.Content):
		return false
	}
	for i := range a.Content {
		if !equal(a.Content[i], b.Content[i], depth+1) {
			return false
		}
	}
	return true
}

// scalarAt returns the scalar at a path of mappings (the last occurrence of each key, the one
// the decoders keep), or "".
func scalarAt(n *yaml.Node, keys ...string) string {
	for _, key := range keys {
		n = resolve(n)
		if n == nil || n.Kind != yaml.MappingNode {
			return ""
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key && !isMerge(n.Content[i]) {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	if n = resolve(n); n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// plainKey matches the keys a field path shows after a dot.
var plainKey = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

// Join appends a key to a field path: at.key, or at[key] for a key that is not a plain name
// (metadata.annotations[olm.skipRange]).
func Join(at, key string) string {
	switch {
	case !plainKey.MatchString(key):
		return at + "[" + key + "]"
	case at == "":
		return key
	}
	return at + "." + key
}
