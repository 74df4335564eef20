package gitops

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
)

// FluxOptions say where Flux finds a staged directory render.
type FluxOptions struct {
	// Name is the operators Kustomization's name; the CRDs' is Name + "-crds".
	Name string
	// Namespace holds the Kustomizations (flux-system).
	Namespace string
	// Source is the Kustomizations' sourceRef, KIND/NAME (GitRepository/flux-system).
	Source string
	// Path is the render directory's path in the source, e.g. ./clusters/prod/operators.
	Path string
}

// fluxSourceKinds are the kinds a Flux Kustomization's sourceRef may name.
var fluxSourceKinds = []string{"Bucket", "GitRepository", "OCIRepository"}

// DefaultFluxSource is the source flux bootstrap creates.
const DefaultFluxSource = "GitRepository/flux-system"

// CSVHealthCheck is Flux's healthCheckExprs entry for ClusterServiceVersions (the --olm=absent
// fragment of examples/flux/health-check-exprs.yaml, which a test keeps equal): a CSV no
// olm-operator synced (it has no operators.coreos.com/csv-cleanup finalizer, which the
// olm-operator adds before any status) is current, since no status will come and its
// Deployments gate the wait; otherwise the phase OLM writes decides. Flux binds only the
// object's top-level fields, so the guard on metadata decides before status is read.
func CSVHealthCheck() map[string]any {
	const synced = "has(metadata.finalizers) && 'operators.coreos.com/csv-cleanup' in metadata.finalizers"
	return map[string]any{
		"apiVersion": "operators.coreos.com/v1alpha1",
		"kind":       "ClusterServiceVersion",
		"inProgress": synced + " && (!has(status.phase) || !(status.phase in ['Succeeded', 'Failed']))",
		"failed":     synced + " && has(status.phase) && status.phase == 'Failed'",
		"current":    "!(" + synced + ") || has(status.phase) && status.phase == 'Succeeded'",
	}
}

// FluxKustomizations returns the two Flux Kustomizations of a staged render: <name>-crds applying
// crds/ and <name> applying operators/ after it (dependsOn), waiting for its objects and
// judging ClusterServiceVersions by their phase.
func FluxKustomizations(o FluxOptions) ([]*unstructured.Unstructured, error) {
	kind, name, ok := strings.Cut(o.Source, "/")
	if !ok || !slices.Contains(fluxSourceKinds, kind) || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return nil, fmt.Errorf("flux source %q: want KIND/NAME, KIND one of %s and NAME an object name, e.g. %s",
			o.Source, strings.Join(fluxSourceKinds, ", "), DefaultFluxSource)
	}
	for _, n := range []string{o.Name, o.Name + "-crds"} {
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			return nil, fmt.Errorf("flux Kustomization name %q: %s", n, strings.Join(errs, "; "))
		}
	}
	if errs := validation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
		return nil, fmt.Errorf("flux namespace %q: %s", o.Namespace, strings.Join(errs, "; "))
	}
	source := map[string]any{"kind": kind, "name": name}
	crds := fluxKustomization(o.Name+"-crds", o.Namespace, map[string]any{
		"interval":  "10m",
		"sourceRef": source,
		"path":      fluxPath(o.Path, string(StageCRDs)),
		"prune":     true,
		"wait":      true,
	})
	operators := fluxKustomization(o.Name, o.Namespace, map[string]any{
		"interval":         "10m",
		"sourceRef":        source,
		"path":             fluxPath(o.Path, string(StageOperators)),
		"prune":            true,
		"wait":             true,
		"timeout":          "10m",
		"dependsOn":        []any{map[string]any{"name": o.Name + "-crds"}},
		"healthCheckExprs": []any{CSVHealthCheck()},
	})
	return []*unstructured.Unstructured{crds, operators}, nil
}

func fluxKustomization(name, namespace string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
		"kind":       "Kustomization",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       spec,
	}}
}

// fluxPath joins a directory's path in the source with a stage, in Flux's "./" form.
func fluxPath(dir, stage string) string {
	p := path.Clean(path.Join(strings.TrimPrefix(dir, "./"), stage))
	return "./" + p
}
