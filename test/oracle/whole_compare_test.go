package oracle

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/install"
)

// objectID identifies an object across both sides: API group, kind, namespace and name.
type objectID struct {
	Group, Kind, Namespace, Name string
}

// String names the object.
func (id objectID) String() string {
	kind := id.Kind
	if id.Group != "" {
		kind += "." + id.Group
	}
	if id.Namespace == "" {
		return kind + " " + id.Name
	}
	return kind + " " + id.Namespace + "/" + id.Name
}

// idOf returns an object's identity.
func idOf(obj map[string]any) objectID {
	group, _, _ := strings.Cut(str(obj["apiVersion"]), "/")
	if !strings.Contains(str(obj["apiVersion"]), "/") {
		group = ""
	}
	md := mapOf(obj["metadata"])
	return objectID{Group: group, Kind: str(obj["kind"]), Namespace: str(md["namespace"]), Name: str(md["name"])}
}

// ignoredKinds are kinds left out of the comparison altogether.
var ignoredKinds = map[string]string{
	// Events are the record of what OLM's controllers did (how often a sync was retried), not
	// objects of the install; their number and names depend on timing.
	"Event": "OLM's record of what its controllers did; their number and names depend on timing",
}

// normalise returns a copy of an object without the fields an offline render cannot
// reproduce. It is applied to both sides; nothing else is removed.
func normalise(obj map[string]any) map[string]any {
	o := deepCopyJSON(obj).(map[string]any)
	md := mapOf(o["metadata"])
	// uid: assigned by the API server when it stores the object.
	delete(md, "uid")
	// resourceVersion: the API server's storage revision.
	delete(md, "resourceVersion")
	// generation: counted by the API server on every spec change.
	delete(md, "generation")
	// creationTimestamp: the time the API server stored the object.
	delete(md, "creationTimestamp")
	// managedFields: the API server's server-side-apply bookkeeping of who wrote which field.
	delete(md, "managedFields")
	// selfLink: set by API servers before 1.20 from the request path.
	delete(md, "selfLink")
	// ownerReferences[].uid: the uid the API server gave the owner.
	for _, ref := range listOf(md["ownerReferences"]) {
		delete(mapOf(ref), "uid")
	}
	if len(md) == 0 {
		delete(o, "metadata")
	}
	// status: written by controllers and the cluster as it runs, not by the install.
	delete(o, "status")
	// olmcahash annotation (object, pod template): the hash of the CA OLM generates at random.
	dropCertHash(md)
	dropCertHash(mapOf(mapOf(mapOf(o["spec"])["template"])["metadata"]))
	// data and stringData of a webhook/APIService cert Secret: the key pair OLM generates.
	if o["kind"] == "Secret" && isCertSecret(obj) {
		delete(o, "data")
		delete(o, "stringData")
	}
	// caBundle of webhooks, CRD conversion and APIServices: the PEM of OLM's random CA.
	switch o["kind"] {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
		for _, w := range listOf(o["webhooks"]) {
			delete(mapOf(mapOf(w)["clientConfig"]), "caBundle")
		}
	case "CustomResourceDefinition":
		delete(mapOf(mapOf(mapOf(mapOf(o["spec"])["conversion"])["webhook"])["clientConfig"]), "caBundle")
	case "APIService":
		delete(mapOf(o["spec"]), "caBundle")
	}
	// (Timestamps: OLM v0.46 writes none outside creationTimestamp, managedFields and status,
	// and certificate expiry only in the CSV's status.)
	return o
}

// dropCertHash removes OLM's CA hash annotation from object metadata.
func dropCertHash(md map[string]any) {
	ann := mapOf(md["annotations"])
	delete(ann, install.OLMCAHashAnnotationKey)
	if ann != nil && len(ann) == 0 {
		delete(md, "annotations")
	}
}

// isCertSecret reports whether a Secret holds a certificate OLM generates for a webhook or
// APIService (install/certresources.go: it carries the CA hash annotation and the CA key).
func isCertSecret(obj map[string]any) bool {
	if _, ok := mapOf(mapOf(obj["metadata"])["annotations"])[install.OLMCAHashAnnotationKey]; ok {
		return true
	}
	for _, field := range []string{"data", "stringData"} {
		if _, ok := mapOf(obj[field])[install.OLMCAPEMKey]; ok {
			return true
		}
	}
	return false
}

// The sides of a difference.
const (
	sideOLM     = "olm-only"  // OLM wrote it, olm-render did not
	sideOurs    = "ours-only" // olm-render rendered it, OLM did not write it
	sideDiffers = "differs"   // both have it, with different values
)

// fieldDiff is one difference inside an object.
type fieldDiff struct {
	// Path is the field's path: keys joined by dots (quoted when they hold a dot or slash),
	// list indices in brackets.
	Path []pathStep
	Side string
}

// pathStep is one step of a field path: a key, or a list index when Key is "".
type pathStep struct {
	Key   string
	Index int
}

// formatPath renders a path; with indices false, list indices are written as [].
func formatPath(path []pathStep, indices bool) string {
	var b strings.Builder
	for _, s := range path {
		switch {
		case s.Key == "" && indices:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case s.Key == "":
			b.WriteString("[]")
		case strings.ContainsAny(s.Key, "./ "):
			b.WriteString("[" + strconv.Quote(s.Key) + "]")
		default:
			if b.Len() > 0 {
				b.WriteString(".")
			}
			b.WriteString(s.Key)
		}
	}
	return b.String()
}

// diffObjects returns the differences between OLM's and our normalised object, sorted.
func diffObjects(olm, ours map[string]any) []fieldDiff {
	var out []fieldDiff
	diffValue(nil, olm, ours, &out)
	return out
}

// diffValue appends the differences between two JSON values. A key whose value is null counts
// as absent: both decode to the same zero value (OLM's side comes from typed objects, whose
// nil slices and maps without omitempty, such as a ClusterRole's rules, encode as null).
func diffValue(path []pathStep, a, b any, out *[]fieldDiff) {
	am, aIsMap := a.(map[string]any)
	bm, bIsMap := b.(map[string]any)
	if aIsMap && bIsMap {
		keys := slices.Sorted(maps.Keys(am))
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := append(slices.Clip(path), pathStep{Key: k})
			av, inA := am[k]
			bv, inB := bm[k]
			inA, inB = inA && av != nil, inB && bv != nil
			switch {
			case !inA && !inB:
			case !inB:
				*out = append(*out, fieldDiff{Path: p, Side: sideOLM})
			case !inA:
				*out = append(*out, fieldDiff{Path: p, Side: sideOurs})
			default:
				diffValue(p, av, bv, out)
			}
		}
		return
	}
	al, aIsList := a.([]any)
	bl, bIsList := b.([]any)
	if aIsList && bIsList {
		for i := range max(len(al), len(bl)) {
			p := append(slices.Clip(path), pathStep{Index: i})
			switch {
			case i >= len(bl):
				*out = append(*out, fieldDiff{Path: p, Side: sideOLM})
			case i >= len(al):
				*out = append(*out, fieldDiff{Path: p, Side: sideOurs})
			default:
				diffValue(p, al[i], bl[i], out)
			}
		}
		return
	}
	if !sameScalar(a, b) {
		*out = append(*out, fieldDiff{Path: path, Side: sideDiffers})
	}
}

// sameScalar reports whether two JSON values are equal, numbers compared by value (the two
// sides decode integers as int64 or float64).
func sameScalar(a, b any) bool {
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return x == y
		}
	}
	return reflect.DeepEqual(a, b)
}

// number returns a JSON number as a float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// differenceClass groups differences: the object's kind, the field path's prefix (at most
// classDepth keys, list indices dropped; "(object)" for a whole object, "(install)" for a
// case's outcome) and the side.
type differenceClass struct {
	Kind, Path, Side string
}

// String names the class.
func (c differenceClass) String() string {
	return c.Kind + " " + c.Path + " " + c.Side
}

// classDepth is how many keys of a field path a class keeps.
const classDepth = 4

// classOf returns the class of a field difference of an object of a kind.
func classOf(kind string, d fieldDiff) differenceClass {
	var prefix []pathStep
	keys := 0
	for _, s := range d.Path {
		if s.Key != "" {
			if keys == classDepth {
				break
			}
			keys++
		}
		prefix = append(prefix, s)
	}
	// A trailing index says nothing more than its list.
	for len(prefix) > 0 && prefix[len(prefix)-1].Key == "" {
		prefix = prefix[:len(prefix)-1]
	}
	return differenceClass{Kind: kind, Path: formatPath(prefix, false), Side: d.Side}
}

// objectDiff is the comparison of one object.
type objectDiff struct {
	ID     objectID
	Side   string // sideOLM, sideOurs, or sideDiffers with Fields
	Fields []fieldDiff
	// CertSecret is set for a Secret that holds a certificate OLM generated (isCertSecret).
	CertSecret bool
	// Why names the class of a whole object's difference when the object is of a known kind
	// (an RBAC object OLM lifted or copied from one the render has); "(object)" when empty.
	Why string
}

// comparison is the comparison of the objects of one case.
type comparison struct {
	// OLMWritten are the objects in OLM's cluster, by kind; Identical those we rendered equal.
	OLMWritten, Identical map[string]int
	Diffs                 []objectDiff
}

// compareObjects compares OLM's objects with ours, both normalised, by identity.
func compareObjects(olm, ours []map[string]any) *comparison {
	certs := map[objectID]bool{}
	index := func(objs []map[string]any) map[objectID]map[string]any {
		out := map[objectID]map[string]any{}
		for _, o := range objs {
			id := idOf(o)
			if _, ignored := ignoredKinds[id.Kind]; ignored {
				continue
			}
			if id.Kind == "Secret" && isCertSecret(o) {
				certs[id] = true
			}
			out[id] = normalise(o)
		}
		return out
	}
	a, b := index(olm), index(ours)
	pairGeneratedNames(a, b)
	c := &comparison{OLMWritten: map[string]int{}, Identical: map[string]int{}}
	ids := slices.Collect(maps.Keys(a))
	for id := range b {
		if _, ok := a[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(x, y objectID) int { return strings.Compare(x.String(), y.String()) })
	for _, id := range ids {
		ao, inA := a[id]
		bo, inB := b[id]
		if inA {
			c.OLMWritten[kindOf(id)]++
		}
		switch {
		case !inB:
			c.Diffs = append(c.Diffs, objectDiff{ID: id, Side: sideOLM, CertSecret: id.Kind == "Secret" && id.Group == "" && certs[id]})
		case !inA:
			c.Diffs = append(c.Diffs, objectDiff{ID: id, Side: sideOurs, CertSecret: id.Kind == "Secret" && id.Group == "" && certs[id]})
		default:
			if fields := diffObjects(ao, bo); len(fields) > 0 {
				c.Diffs = append(c.Diffs, objectDiff{ID: id, Side: sideDiffers, Fields: fields})
			} else {
				c.Identical[kindOf(id)]++
			}
		}
	}
	return c
}

// pairGeneratedNames pairs each OLM object whose name the API server generated (OLM creates
// webhook configurations with generateName "<webhook>-") with our object of the same kind
// named after the prefix without its dash, when nothing else claims either: the identity of
// ours is moved to OLM's, so that the objects are compared and the name shows as a field
// difference.
func pairGeneratedNames(olm, ours map[objectID]map[string]any) {
	for id, o := range olm {
		gen := str(mapOf(o["metadata"])["generateName"])
		if gen == "" {
			continue
		}
		if _, ok := ours[id]; ok {
			continue
		}
		mine := id
		mine.Name = strings.TrimSuffix(gen, "-")
		if _, claimed := olm[mine]; claimed {
			continue
		}
		if obj, ok := ours[mine]; ok {
			delete(ours, mine)
			ours[id] = obj
		}
	}
}

// kindOf names an object's kind for classes and tables: the kind alone for the kinds of
// Kubernetes, apiextensions, apiregistration and OLM, kind.group for any other group (a
// bundle's custom resources, cert-manager's kinds).
func kindOf(id objectID) string {
	if schemeKinds()[schema.GroupKind{Group: id.Group, Kind: id.Kind}] {
		return id.Kind
	}
	return id.Kind + "." + id.Group
}

// schemeKinds are the kinds of wholeScheme.
var schemeKinds = sync.OnceValue(func() map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for gvk := range wholeScheme.AllKnownTypes() {
		out[gvk.GroupKind()] = true
	}
	return out
})

// classExample is where a class was seen: an object and, for a field difference, its path.
type classExample struct {
	Object objectID
	Path   string
}

// classes returns the difference classes of a comparison, with how often each occurs and its
// first occurrence.
func (c *comparison) classes() (map[differenceClass]int, map[differenceClass]classExample) {
	count := map[differenceClass]int{}
	example := map[differenceClass]classExample{}
	for _, d := range c.Diffs {
		for i, cl := range d.classes() {
			if count[cl] == 0 {
				ex := classExample{Object: d.ID}
				if d.Side == sideDiffers {
					ex.Path = formatPath(d.Fields[i].Path, true)
				}
				example[cl] = ex
			}
			count[cl]++
		}
	}
	return count, example
}

// classes returns the class of an object's difference: one for a whole object, one per field
// otherwise (in the order of Fields).
func (d objectDiff) classes() []differenceClass {
	if d.Side != sideDiffers {
		path := "(object)"
		switch {
		case d.CertSecret:
			path = "(generated certificate)"
		case d.Why != "":
			path = d.Why
		}
		return []differenceClass{{Kind: kindOf(d.ID), Path: path, Side: d.Side}}
	}
	out := make([]differenceClass, 0, len(d.Fields))
	for _, f := range d.Fields {
		out = append(out, classOf(kindOf(d.ID), f))
	}
	return out
}

// deepCopyJSON copies a JSON value.
func deepCopyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopyJSON(e)
		}
		return out
	}
	return v
}

// mapOf returns a JSON object, or nil.
func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// listOf returns a JSON array, or nil.
func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

// str returns a JSON string, or "".
func str(v any) string {
	s, _ := v.(string)
	return s
}

// describeDiff renders an object's differences for a log, one line each.
func describeDiff(d objectDiff) string {
	if d.Side != sideDiffers {
		return fmt.Sprintf("%s: %s", d.ID, d.Side)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:", d.ID)
	for _, f := range d.Fields {
		fmt.Fprintf(&b, "\n    %s %s", formatPath(f.Path, true), f.Side)
	}
	return b.String()
}
