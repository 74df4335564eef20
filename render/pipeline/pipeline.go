package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/registry"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// Request is one render: where the inputs are and how to resolve and render them.
type Request struct {
	// Paths are the input files and directories ("-" is standard input).
	Paths []string
	// Root confines every read; the working directory when nil.
	Root *rootfs.Dir
	// Opened are further roots the request reads from (catalog bindings outside Root, each
	// confined to its own), closed with it.
	Opened []*rootfs.Dir
	// Stdin is read for the input path "-".
	Stdin io.Reader
	// Strict makes every problem of the inputs an error.
	Strict bool
	// AllowUnknownFields makes the unknown fields of the kinds a render interprets warnings
	// instead of errors (--strict=false).
	AllowUnknownFields bool
	// AllowEmpty lets inputs without any Subscription load (an empty render otherwise fails: Flux
	// and Argo CD would prune every operator).
	AllowEmpty bool
	// LoadRestrictor applies to kustomizations among the inputs.
	LoadRestrictor inputs.LoadRestrictor
	// Catalogs bind catalog snapshots to CatalogSources (from --catalog), overriding the
	// olm-render.dev/catalog annotations of the inputs.
	Catalogs []inputs.Binding
	// Registry configures pulling index images (CatalogSources given by image) and bundle images
	// (bundles a catalog has no manifests for); nothing is pulled when nil.
	Registry *registry.Options
	// MetadataOnly reads catalogs as OLM's resolver does, metadata only: bundle images are never
	// pulled, so a bundle the catalog has no manifests for has none (resolve needs none).
	MetadataOnly bool
	// Shared, when set, keeps the catalog snapshots this request loads for the other requests
	// of the same run (a fleet's clusters), and gives it those they loaded.
	Shared *Shared
	// Resolve and Render are passed to the resolver and the renderer.
	Resolve resolver.Options
	Render  render.Options
}

// Close releases the roots.
func (r Request) Close() error {
	var errs []error
	for _, d := range append([]*rootfs.Dir{r.Root}, r.Opened...) {
		if d != nil {
			errs = append(errs, d.Close())
		}
	}
	return errors.Join(errs...)
}

// ErrNoSubscription is returned by Load for inputs without any Subscription.
var ErrNoSubscription = errors.New("no Subscription")

// Output is what a run produced.
type Output struct {
	// Set is the loaded, validated input.
	Set *inputs.Set
	// Resolution is the bundle chosen for every Subscription.
	Resolution *resolver.Result
	// Objects are the rendered objects, sorted.
	Objects []*unstructured.Unstructured
	// Prediction are, for a cluster where OLM keeps running (render.TargetRunning) or where
	// OLM v1 runs (render.TargetV1), the objects OLM will create, marked so that nothing
	// applies them; sorted.
	Prediction []*unstructured.Unstructured
	// Verdicts are, with render.TargetV1, OLM v1's verdict on every Subscription (see
	// olmv1.Check): with V1.AllowPartial, those not eligible were left to OLM v0.
	Verdicts []olmv1.Verdict
	// Warnings are problems that did not fail the run, sorted.
	Warnings diag.Problems
}

// Load reads the inputs and the catalog snapshots they are bound to.
func Load(ctx context.Context, req Request) (*inputs.Set, error) {
	l := &loader{ctx: ctx, opts: req.Registry, metadataOnly: req.MetadataOnly, shared: req.Shared}
	set, err := inputs.Load(req.Paths, inputs.LoadOptions{Root: req.Root, Stdin: req.Stdin, Catalogs: req.Catalogs,
		Strict: req.Strict, AllowUnknownFields: req.AllowUnknownFields, LoadRestrictor: req.LoadRestrictor, Prepare: l.prepare, LoadCatalog: l.load})
	if err != nil {
		return nil, fmt.Errorf("loading inputs: %w", err)
	}
	if len(set.Subscriptions) == 0 && !req.AllowEmpty {
		return nil, fmt.Errorf("%w in %s: nothing to render, and an empty render would make Flux or Argo CD prune every operator; check the paths (a kustomization, a directory of YAML files), or pass --allow-empty to render none on purpose",
			ErrNoSubscription, strings.Join(req.Paths, ", "))
	}
	return set, nil
}

// Run loads, resolves and renders. Its warnings include those of the inputs and catalogs.
func Run(ctx context.Context, req Request) (*Output, error) {
	set, err := Load(ctx, req)
	if err != nil {
		return nil, err
	}
	out, err := RunSet(ctx, set, req)
	if err != nil {
		return nil, err
	}
	out.Warnings = append(LoadWarnings(set, out.Resolution), out.Warnings...).Sorted()
	return out, nil
}

// LoadWarnings are the warnings of the inputs and of the catalogs they bind. A catalog's
// warnings about packages the run does not use (neither named by a Subscription nor, when res
// is given, chosen as a dependency) are counted in one warning per catalog, which names the
// packages and the command that lists them: a large catalog does not bury the warnings that
// matter.
func LoadWarnings(set *inputs.Set, res *resolver.Result) diag.Problems {
	used := map[string]bool{}
	for _, s := range set.Subscriptions {
		if s.Spec != nil {
			used[s.Spec.Package] = true
		}
	}
	if res != nil {
		for _, b := range res.Bundles() {
			used[b.Package] = true
		}
	}
	out := slices.Clone(set.Warnings)
	for _, c := range set.Catalogs {
		if c.Catalog == nil {
			continue
		}
		var others []string
		n := 0
		for _, w := range c.Catalog.Warnings {
			if w.Package == "" || used[w.Package] {
				out = append(out, w)
				continue
			}
			n++
			others = append(others, w.Package)
		}
		if n > 0 {
			others = slices.Compact(slices.Sorted(slices.Values(others)))
			out.Add(diag.Problem{Severity: diag.Warning, Origin: diag.Origin{File: c.Catalog.Path}, Object: "CatalogSource/" + c.Key(),
				Message: fmt.Sprintf("%d warnings about %d packages this run does not use (%s) are not shown: olm-render catalog validate lists them",
					n, len(others), strings.Join(others, ", "))})
		}
	}
	return out.Sorted()
}

// Resolve resolves a loaded input set.
func Resolve(ctx context.Context, set *inputs.Set, opts resolver.Options) (*resolver.Result, error) {
	res, err := resolver.Resolve(ctx, set, opts)
	if err != nil {
		return nil, fmt.Errorf("resolving subscriptions: %w", err)
	}
	return res, nil
}

// RunSet resolves and renders an input set that is already loaded (the KRM function builds
// it from a ResourceList).
func RunSet(ctx context.Context, set *inputs.Set, req Request) (*Output, error) {
	res, err := Resolve(ctx, set, req.Resolve)
	if err != nil {
		return nil, err
	}
	return Render(set, res, req.Render)
}

// Render renders a resolution (the lock file's commands resolve on their own). The manifests of
// the chosen bundles are read first, concurrently (bundle images are pulled then). The OLM v0
// targets are package render's; render.TargetV1 is package olmv1's, with opts.V1 (its
// certificate provider and engine taken from opts when it names none).
func Render(set *inputs.Set, res *resolver.Result, opts render.Options) (*Output, error) {
	Prefetch(res)
	if opts.Target == render.TargetV1 {
		return renderV1(set, res, opts)
	}
	out, err := render.Render(set, res, opts)
	if err != nil {
		return nil, fmt.Errorf("rendering: %w", err)
	}
	warnings := append(diag.Problems{}, res.Warnings...)
	warnings = append(warnings, out.Warnings...)
	return &Output{Set: set, Resolution: res, Objects: out.Objects, Prediction: out.Prediction, Warnings: warnings.Sorted()}, nil
}

// renderV1 renders a resolution for a cluster where OLM v1 runs.
func renderV1(set *inputs.Set, res *resolver.Result, opts render.Options) (*Output, error) {
	v1 := opts.V1
	if v1.CertProvider == "" {
		v1.CertProvider = opts.CertProvider
	}
	if v1.Engine == "" {
		v1.Engine = opts.Engine
	}
	out, err := olmv1.Render(set, res, v1)
	if err != nil {
		return nil, fmt.Errorf("rendering for OLM v1: %w", err)
	}
	warnings := append(diag.Problems{}, res.Warnings...)
	warnings = append(warnings, out.Warnings...)
	return &Output{Set: set, Resolution: res, Objects: out.Objects, Prediction: out.Prediction, Verdicts: out.Verdicts, Warnings: warnings.Sorted()}, nil
}
