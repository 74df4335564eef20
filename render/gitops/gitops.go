// Package gitops prepares a render for the engine that applies it.
//
// Argo CD: Namespaces and CRDs go in sync wave -1, before everything that needs them; objects too
// large for client-side apply (kubectl keeps the whole object in a last-applied annotation, and
// the API server allows 262,144 bytes of annotations) are marked ServerSideApply=true; CRDs are
// never pruned (Prune=false), because OLM never deletes a CRD and deleting one deletes every
// custom resource of it.
//
// Flux: Flux applies server-side and in stages already; CRDs are marked
// kustomize.toolkit.fluxcd.io/prune: disabled for the same reason, and a directory render is laid
// out in two Kustomizations, crds/ (Namespaces and CRDs) and operators/ (the rest), the second
// depending on the first and judging ClusterServiceVersions by their phase (see FluxKustomizations).
//
// kubectl (the default): objects are left alone, and an object too large for client-side apply
// is reported, with the command that applies it.
package gitops

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/schemas/diag"
)

// Engine is the tool that applies a render.
type Engine string

// The engines a render can be prepared for.
const (
	Kubectl Engine = "kubectl"
	ArgoCD  Engine = "argocd"
	Flux    Engine = "flux"
)

// Engines lists the engines, for help texts.
var Engines = []Engine{Kubectl, ArgoCD, Flux}

// ParseEngine parses an engine name; empty is kubectl.
func ParseEngine(s string) (Engine, error) {
	if s == "" {
		return Kubectl, nil
	}
	if slices.Contains(Engines, Engine(s)) {
		return Engine(s), nil
	}
	return "", fmt.Errorf("unknown engine %q: want kubectl, argocd or flux", s)
}

// Annotations and values the engines read.
const (
	ArgoSyncWave    = "argocd.argoproj.io/sync-wave"
	ArgoSyncOptions = "argocd.argoproj.io/sync-options"
	FluxPrune       = "kustomize.toolkit.fluxcd.io/prune"

	lastApplied = "kubectl.kubernetes.io/last-applied-configuration"
	// maxAnnotationBytes is the API server's limit on the keys and values of an object's
	// annotations together (apimachinery TotalAnnotationSizeLimitB).
	maxAnnotationBytes = 256 * 1024
)

// Stage is the part of a staged layout an object belongs to.
type Stage string

// The stages of a staged layout.
const (
	StageCRDs      Stage = "crds"
	StageOperators Stage = "operators"
)

// StageOf returns the stage of an object: Namespaces and CRDs first, everything else after.
func StageOf(u *unstructured.Unstructured) Stage {
	if prerequisite(u) {
		return StageCRDs
	}
	return StageOperators
}

// prerequisite reports whether other objects need u to exist first.
func prerequisite(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	return gvk.Group == "" && gvk.Kind == "Namespace" ||
		gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition"
}

// isCRD reports whether u is a CustomResourceDefinition.
func isCRD(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	return gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition"
}

// ClientSideApplySize returns the bytes of annotations an object would carry after a client-side
// apply: its own annotations plus kubectl's last-applied-configuration, which holds the object's
// JSON (kubectl GetModifiedConfiguration).
func ClientSideApplySize(u *unstructured.Unstructured) (int, error) {
	c := u.DeepCopy()
	annotations := c.GetAnnotations()
	delete(annotations, lastApplied)
	c.SetAnnotations(annotations)
	data, err := json.Marshal(c.Object)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	size := len(lastApplied) + len(data)
	for k, v := range annotations {
		size += len(k) + len(v)
	}
	return size, nil
}

// tooLargeForClientSide reports whether an object's annotations would pass the API server's
// limit after a client-side apply, with their size when they would. Most objects are far
// below it: a bound on their JSON's size (jsonBound) settles them without encoding them.
func tooLargeForClientSide(u *unstructured.Unstructured) (int, bool, error) {
	bound := len(lastApplied) + jsonBound(u.Object)
	for k, v := range u.GetAnnotations() {
		bound += len(k) + len(v)
	}
	if bound <= maxAnnotationBytes {
		return 0, false, nil
	}
	size, err := ClientSideApplySize(u)
	return size, size > maxAnnotationBytes, err
}

// stringBound returns an upper bound of the bytes of a JSON string: its quotes, 6 bytes for
// each byte encoding/json escapes as \u00XX, 2 for each byte of a multi-byte rune (U+2028
// and U+2029, three bytes, become six), and 6 for every byte of a string that is not UTF-8
// (each invalid byte becomes \ufffd).
func stringBound(s string) int {
	if !utf8.ValidString(s) {
		return 6*len(s) + 2
	}
	n := 2
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b < 0x20 || b == '"' || b == '\\' || b == '<' || b == '>' || b == '&':
			n += 6
		case b >= utf8.RuneSelf:
			n += 2
		default:
			n++
		}
	}
	return n
}

// unboundedJSON is jsonBound's answer for a value whose encoding it cannot bound.
const unboundedJSON = math.MaxInt / 2

// jsonBound returns an upper bound of the bytes of v's JSON encoding, for the values an
// unstructured object holds: strings as stringBound bounds them, every number as long as a
// float64 can be. Other values are unbounded.
func jsonBound(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 2
		for k, e := range x {
			n = min(n+6*len(k)+4+jsonBound(e), unboundedJSON)
		}
		return n
	case []any:
		n := 2
		for _, e := range x {
			n = min(n+jsonBound(e)+1, unboundedJSON)
		}
		return n
	case string:
		return stringBound(x)
	case nil, bool:
		return 5
	case int64, int32, int, float64:
		return 32
	}
	return unboundedJSON
}

// Prepare returns the objects annotated for the engine (copies; the input is not modified),
// in the same order, and a warning per object the engine would fail to apply as rendered.
func Prepare(objs []*unstructured.Unstructured, e Engine) ([]*unstructured.Unstructured, diag.Problems, error) {
	out := make([]*unstructured.Unstructured, len(objs))
	var warnings diag.Problems
	for i, u := range objs {
		u = u.DeepCopy()
		out[i] = u
		size, tooLarge, err := tooLargeForClientSide(u)
		if err != nil {
			return nil, nil, err
		}
		switch e {
		case ArgoCD:
			if prerequisite(u) {
				setAnnotation(u, ArgoSyncWave, "-1")
			}
			if tooLarge {
				addSyncOption(u, "ServerSideApply=true")
			}
			if isCRD(u) {
				addSyncOption(u, "Prune=false")
			}
		case Flux:
			if isCRD(u) {
				setAnnotation(u, FluxPrune, "disabled")
			}
		default:
			if tooLarge {
				warnings.Warnf(diag.Origin{}, ObjectName(u), "metadata.annotations",
					"%d bytes of annotations after a client-side apply, more than the API server's %d: apply with `kubectl apply --server-side` (or render with --for argocd or --for flux)",
					size, maxAnnotationBytes)
			}
		}
	}
	return out, warnings, nil
}

// ObjectName names an object as warnings do: Kind/name, or Kind/namespace/name.
func ObjectName(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetKind() + "/" + u.GetName()
	}
	return u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
}

func setAnnotation(u *unstructured.Unstructured, key, value string) {
	a := u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[key] = value
	u.SetAnnotations(a)
}

// addSyncOption adds an option to Argo CD's comma-separated sync-options annotation, keeping
// the ones there and their order.
func addSyncOption(u *unstructured.Unstructured, option string) {
	var options []string
	if v := u.GetAnnotations()[ArgoSyncOptions]; v != "" {
		for _, o := range strings.Split(v, ",") {
			if o = strings.TrimSpace(o); o != "" {
				options = append(options, o)
			}
		}
	}
	key, _, _ := strings.Cut(option, "=")
	options = slices.DeleteFunc(options, func(o string) bool { k, _, _ := strings.Cut(o, "="); return k == key })
	options = append(options, option)
	setAnnotation(u, ArgoSyncOptions, strings.Join(options, ","))
}
