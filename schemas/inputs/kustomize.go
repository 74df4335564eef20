package inputs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// kustomizationFiles are the names kustomize recognises, in its order of preference.
var kustomizationFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

func isKustomizationFile(name string) bool { return slices.Contains(kustomizationFiles, name) }

// kustomizationIn returns the kustomization file of a directory, or "".
func kustomizationIn(root rootfs.FS, dir string) string {
	for _, f := range kustomizationFiles {
		if info, err := root.Stat(path.Join(dir, f)); err == nil && !info.IsDir() {
			return path.Join(dir, f)
		}
	}
	return ""
}

// originAnnotation is where kustomize records the file a resource came from
// (buildMetadata: [originAnnotations]).
const originAnnotation = "config.kubernetes.io/origin"

// LoadRestrictor is kustomize's --load-restrictor: LoadRestrictionsRootOnly (the default, also
// for the zero value: a kustomization reads files only below its own directory) or
// LoadRestrictionsNone.
type LoadRestrictor = types.LoadRestrictions

// ParseLoadRestrictor parses kustomize's --load-restrictor values.
func ParseLoadRestrictor(s string) (LoadRestrictor, error) {
	switch s {
	case "", "LoadRestrictionsRootOnly", "rootOnly":
		return types.LoadRestrictionsRootOnly, nil
	case "LoadRestrictionsNone", "none":
		return types.LoadRestrictionsNone, nil
	}
	return 0, fmt.Errorf("invalid load restrictor %q: want LoadRestrictionsRootOnly or LoadRestrictionsNone", s)
}

// buildKustomization builds the kustomization in dir with kustomize's own code, in process, over
// a read-only view of the root (nothing outside it is read, no remote base is fetched, no plugin
// runs), and returns its resources as items, each with the file it came from (origin
// annotations).
func buildKustomization(root *rootfs.Dir, dir string, restrictor LoadRestrictor) ([]Item, diag.Problems) {
	file := kustomizationIn(root, dir)
	origin := diag.Origin{File: root.Path(file)}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = restrictor
	if restrictor != types.LoadRestrictionsNone {
		opts.LoadRestrictions = types.LoadRestrictionsRootOnly
	}
	opts.PluginConfig = types.DisabledPluginConfig()
	k := &kustFS{root: root, top: file}
	resMap, err := krusty.MakeKustomizer(opts).Run(k, k.abs(dir))
	if k.refused != nil {
		return nil, diag.Problems{{Severity: diag.Error, Origin: origin, Message: "kustomize build: " + rootfs.Describe(k.refused) + refusedWhere(root, k.refused)}}
	}
	if err != nil {
		return nil, diag.Problems{{Severity: diag.Error, Origin: origin, Message: "kustomize build: " + kustomizeError(root, err)}}
	}
	var (
		items    []Item
		problems diag.Problems
	)
	for i, r := range resMap.Resources() {
		m, err := jsonObject(r)
		if err != nil {
			problems.Errorf(origin, "", "", "kustomize build: resource %d: %s", i, diag.Decoding(err))
			continue
		}
		items = append(items, itemFromBuild(root, dir, &unstructured.Unstructured{Object: m}, origin))
	}
	return items, problems
}

// jsonObject returns a built resource as a JSON object: kyaml's Map holds YAML integers as Go
// ints, which unstructured objects (and their DeepCopy) do not allow; JSON decodes them as
// int64, as the other inputs are.
func jsonObject(r interface{ MarshalJSON() ([]byte, error) }) (map[string]any, error) {
	data, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return u.Object, nil
}

// itemFromBuild makes an item of a built resource: its origin annotation names the file it came
// from (relative to the kustomization's directory); the annotation, which olm-render added, is
// removed.
func itemFromBuild(root *rootfs.Dir, dir string, u *unstructured.Unstructured, kustomization diag.Origin) Item {
	it := Item{Object: u, Origin: kustomization, File: path.Join(dir, "kustomization.yaml")}
	annotations := u.GetAnnotations()
	raw, ok := annotations[originAnnotation]
	if !ok {
		return it
	}
	delete(annotations, originAnnotation)
	if len(annotations) == 0 {
		annotations = nil
	}
	u.SetAnnotations(annotations)
	var o struct {
		Path string `json:"path"`
		Repo string `json:"repo"`
	}
	if err := yaml.Unmarshal([]byte(raw), &o); err != nil || o.Path == "" || o.Repo != "" {
		return it
	}
	if name, err := rootfs.Join(dir, o.Path); err == nil {
		it.File, it.Origin = name, diag.Origin{File: root.Path(name)}
	}
	return it
}

// withOriginAnnotations adds originAnnotations to a kustomization's buildMetadata.
func withOriginAnnotations(data []byte) ([]byte, error) {
	node, err := kyaml.Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("invalid kustomization: %s", diag.Decoding(err))
	}
	list, err := node.Pipe(kyaml.LookupCreate(kyaml.SequenceNode, "buildMetadata"))
	if err != nil {
		return nil, fmt.Errorf("invalid kustomization buildMetadata: %s", diag.Decoding(err))
	}
	if !slices.Contains(scalarValues(list), "originAnnotations") {
		if err := list.PipeE(kyaml.Append(kyaml.NewScalarRNode("originAnnotations").YNode())); err != nil {
			return nil, err
		}
	}
	out, err := node.String()
	return []byte(out), err
}

func scalarValues(list *kyaml.RNode) []string {
	var out []string
	for _, n := range list.Content() {
		out = append(out, n.Value)
	}
	return out
}

// checkRemote refuses a kustomization that references anything outside the root: remote bases
// (git repositories, URLs) or files by absolute path. Kustomize would fetch them over the
// network; olm-render builds only what the repository holds.
func checkRemote(root *rootfs.Dir, name string, data []byte) error {
	var k types.Kustomization
	if err := yaml.Unmarshal(data, &k); err != nil {
		return nil // kustomize reports it
	}
	if len(k.HelmCharts) > 0 || len(k.HelmChartInflationGenerator) > 0 {
		return fmt.Errorf("%s: helmCharts are not supported: olm-render does not run helm (render the chart into the repository)", root.Path(name))
	}
	for _, ref := range references(&k) {
		if isRemote(root, path.Dir(name), ref) {
			return fmt.Errorf("%s: %q is remote or outside the repository: olm-render reads only the repository (vendor it)", root.Path(name), ref)
		}
	}
	return nil
}

// references lists the paths a kustomization names.
func references(k *types.Kustomization) []string {
	refs := slices.Concat(k.Resources, k.Bases, k.Components, k.Crds, k.Configurations,
		k.Generators, k.Transformers, k.Validators)
	for _, p := range k.PatchesStrategicMerge {
		if s := string(p); !strings.Contains(s, "\n") {
			refs = append(refs, s)
		}
	}
	for _, p := range slices.Concat(k.Patches, k.PatchesJson6902) {
		refs = append(refs, p.Path)
	}
	for _, r := range k.Replacements {
		refs = append(refs, r.Path)
	}
	refs = append(refs, k.OpenAPI["path"])
	for _, g := range k.ConfigMapGenerator {
		refs = append(refs, generatorFiles(g.GeneratorArgs)...)
	}
	for _, g := range k.SecretGenerator {
		refs = append(refs, generatorFiles(g.GeneratorArgs)...)
	}
	return slices.DeleteFunc(refs, func(s string) bool { return s == "" })
}

func generatorFiles(g types.GeneratorArgs) []string {
	out := slices.Concat(g.EnvSources, g.FileSources)
	if g.EnvSource != "" {
		out = append(out, g.EnvSource)
	}
	for i, f := range out {
		if _, file, ok := strings.Cut(f, "="); ok {
			out[i] = file
		}
	}
	return out
}

// isRemote reports whether a reference of a kustomization in dir points outside the root: an
// absolute path, a URL, a git repository, or a path that leaves the root.
func isRemote(root *rootfs.Dir, dir, ref string) bool {
	switch {
	case strings.Contains(ref, "://"), strings.HasPrefix(ref, "git@"), strings.Contains(ref, "?ref="),
		strings.Contains(ref, "?version="), strings.HasPrefix(ref, "/"):
		return true
	}
	name, err := rootfs.Join(dir, ref)
	if err != nil {
		return true
	}
	_, err = root.Stat(name)
	switch {
	case err == nil:
		return false
	case errors.Is(err, rootfs.ErrOutside):
		return true
	}
	// A missing path whose first element looks like a host (github.com/org/repo) is a remote base.
	first, rest, ok := strings.Cut(ref, "/")
	return ok && rest != "" && strings.Contains(first, ".") && first != "." && first != ".."
}

// kustomizeError describes a kustomize failure naming files relative to the root, cut to a
// readable length.
func kustomizeError(root *rootfs.Dir, err error) string {
	msg := strings.ReplaceAll(err.Error(), root.Root()+"/", "")
	if len(msg) > 1000 {
		msg = msg[:1000] + "..."
	}
	return msg
}

// refusedWhere names the file of a refused read, when the error carries it.
func refusedWhere(root *rootfs.Dir, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return " (" + pe.Path + ")"
	}
	return ""
}
