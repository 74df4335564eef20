package catalog

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// Bundle annotations (metadata/annotations.yaml).
const (
	annotationPackage        = "operators.operatorframework.io.bundle.package.v1"
	annotationChannels       = "operators.operatorframework.io.bundle.channels.v1"
	annotationDefaultChannel = "operators.operatorframework.io.bundle.channel.default.v1"
	annotationMediaType      = "operators.operatorframework.io.bundle.mediatype.v1"
	// skipRangeAnnotation is the CSV annotation holding the skipRange.
	skipRangeAnnotation = "olm.skipRange"
)

// dirBundle is one registry+v1 bundle directory, read.
type dirBundle struct {
	dir            string
	pkg            string
	channels       []string
	defaultChannel string
	annotations    diag.Origin
	// entry is the bundle's channel entry as its CSV declares it (name, replaces, skips,
	// skipRange); buildPackage places it in each of its channels.
	entry  ChannelEntry
	bundle *Bundle
	// annotationsFile, csvFile and dependenciesFile are the files the annotations, the CSV and
	// the metadata/ dependencies (or properties) came from ("" for none), and digest the digest
	// of manifests/ (Manifests.digest): what the tree cache records.
	annotationsFile, csvFile, dependenciesFile string
	digest                                     [sha256.Size]byte
}

// sortedChannels returns a bundle's channels sorted, each once.
func sortedChannels(channels []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(channels)))
}

// loadBundles reads a single bundle directory, a package directory of bundle directories, or a
// tree of package directories. A bundle directory that cannot be read is not skipped: it is
// recorded in Catalog.Broken, so that resolving its package fails instead of quietly choosing
// another bundle.
func loadBundles(fsys rootfs.FS, root string, cache DerivedCache) (*Catalog, diag.Problems) {
	var problems diag.Problems
	dirs, configs, unreadable, leftOut := bundleDirs(fsys, root, &problems)
	read := make([]*dirBundle, len(dirs))
	readProblems := make([]diag.Problems, len(dirs))
	// Bundle directories are independent: parse them on every CPU, then assemble in order.
	// A tree's manifests are validated here and read again when a render needs them (see
	// lazyManifests), so a catalog of thousands of bundles holds only their properties.
	parallel(len(dirs), func(i int) { read[i], readProblems[i] = readBundleDirCached(fsys, dirs[i].dir, cache) })
	c := &Catalog{Broken: unreadable, LeftOut: leftOut}
	for _, b := range unreadable {
		problems = append(problems, b.warnings()...)
	}
	for _, l := range leftOut {
		problems = append(problems, l.Problem)
	}
	byPackage := map[string][]*dirBundle{}
	var pkgDirs []string
	for i, b := range read {
		if b.bundle == nil {
			broken := brokenBundle(fsys, dirs[i], b, readProblems[i])
			c.Broken = append(c.Broken, broken)
			problems = append(problems, readProblems[i].Warnings().InPackage(broken.Package)...)
			problems = append(problems, broken.warnings()...)
			continue
		}
		if misplaced, ok := misplacedBundle(fsys, root, dirs[i], b); ok {
			c.Broken = append(c.Broken, misplaced)
			problems = append(problems, readProblems[i].Warnings().InPackage(misplaced.Package)...)
			problems = append(problems, misplaced.warnings()...)
			continue
		}
		problems = append(problems, readProblems[i].Warnings().InPackage(b.pkg)...)
		problems = append(problems, invalidWarnings(b.bundle)...)
		if _, seen := byPackage[b.pkg]; !seen {
			pkgDirs = append(pkgDirs, dirs[i].pkgDir)
		}
		byPackage[b.pkg] = append(byPackage[b.pkg], b)
	}
	for name, bundles := range byPackage {
		cfg := configs[dirs[indexOf(dirs, bundles[0].dir)].pkgDir]
		if cfg.mode == "" {
			cfg.mode = "replaces-mode"
		}
		p, duplicates := buildPackage(name, bundles, cfg.mode)
		for _, d := range duplicates {
			broken := duplicateBundle(fsys, d, p.Bundle(d.bundle.Name))
			c.Broken = append(c.Broken, broken)
			problems = append(problems, broken.warnings()...)
		}
		if cfg.template != "" {
			var ps diag.Problems
			for _, b := range applyTemplate(fsys, p, cfg.template, &ps) {
				l := notInTemplate(fsys, b, bundles, cfg.template)
				c.LeftOut = append(c.LeftOut, l)
				ps = append(ps, l.Problem)
			}
			problems = append(problems, ps.InPackage(p.Name)...)
		}
		c.Packages = append(c.Packages, p)
	}
	if len(dirs) == 1 {
		// A single bundle that cannot be read or rendered is the whole catalog: fail.
		for _, b := range c.Broken {
			problems = append(problems, b.Problems...)
		}
		if read[0].bundle != nil {
			problems = append(problems, read[0].bundle.Invalid...)
		}
	}
	return c, problems
}

// misplacedBundle records a bundle whose package annotation names another package than the
// package directory holding it: the community pipeline refuses such a bundle, and taking
// either name would silently change what a Subscription to the directory's package installs (an
// older bundle of it, or a bundle of another package). Resolving the directory's package fails
// unless it chooses a newer bundle.
func misplacedBundle(fsys rootfs.FS, root string, d bundleDir, b *dirBundle) (Broken, bool) {
	dirPkg := path.Base(d.pkgDir)
	if d.pkgDir == d.dir || d.pkgDir == root || dirPkg == b.pkg {
		return Broken{}, false
	}
	return Broken{Package: dirPkg, Dir: fsys.Path(d.dir), Version: dirVersion(d), Problems: diag.Problems{{
		Severity: diag.Error, Origin: b.annotations, Field: "annotations[" + annotationPackage + "]",
		Message: fmt.Sprintf("the bundle says it is of package %q but sits in the package directory %q: move it, or correct the annotation",
			b.pkg, dirPkg)}}}, true
}

// invalidWarnings restate the problems of a bundle that cannot be rendered as load warnings.
func invalidWarnings(b *Bundle) diag.Problems {
	out := make(diag.Problems, len(b.Invalid))
	for i, p := range b.Invalid {
		p.Severity = diag.Warning
		p.Message = fmt.Sprintf("bundle %s cannot be rendered: %s (a resolution that chooses it fails until this is fixed)", b.Name, p.Message)
		p.Package = b.Package
		out[i] = p
	}
	return out
}

// duplicateBundle records a bundle directory whose CSV has the name of another bundle of its
// package (kept: the lower version). Which of the two the published catalog holds cannot be
// told, so resolving the package fails until one is renamed or removed.
func duplicateBundle(fsys rootfs.FS, d *dirBundle, kept *Bundle) Broken {
	return Broken{Package: d.pkg, Dir: fsys.Path(d.dir), Version: &d.bundle.Version, Problems: diag.Problems{{Severity: diag.Error,
		Origin: d.bundle.Origin, Object: "ClusterServiceVersion/" + d.bundle.Name, Field: "metadata.name",
		Message: fmt.Sprintf("package %q has duplicate bundle %q (also %s): rename one CSV (metadata.name) or remove one bundle directory",
			d.pkg, d.bundle.Name, kept.Origin)}}}
}

func indexOf(dirs []bundleDir, dir string) int {
	for i, d := range dirs {
		if d.dir == dir {
			return i
		}
	}
	return 0
}

// brokenBundle records a bundle directory that failed to load, with the package it belongs to as
// far as it can be told (its annotations, else its package directory's name).
func brokenBundle(fsys rootfs.FS, d bundleDir, b *dirBundle, problems diag.Problems) Broken {
	out := Broken{Dir: fsys.Path(d.dir), Problems: problems.Errors(), Version: dirVersion(d)}
	switch {
	case b != nil && b.pkg != "":
		out.Package = b.pkg
	case d.pkgDir != d.dir:
		out.Package = path.Base(d.pkgDir)
	}
	return out
}

// dirVersion is the version a bundle directory's name gives (<package>/<version>/ or
// <package>/<version>/bundle/), or nil.
func dirVersion(d bundleDir) *semver.Version {
	if d.dir == d.pkgDir {
		return nil
	}
	name := path.Base(d.dir)
	if name == "bundle" {
		name = path.Base(path.Dir(d.dir))
	}
	v, err := semver.ParseTolerant(name)
	if err != nil {
		return nil
	}
	return &v
}

// warnings restate a broken bundle's problems as load warnings.
func (b Broken) warnings() diag.Problems {
	out := make(diag.Problems, len(b.Problems))
	for i, p := range b.Problems {
		p.Severity = diag.Warning
		p.Message = "bundle left out: " + p.Message
		p.Package = b.Package
		if b.Package != "" {
			p.Message += fmt.Sprintf(" (resolving package %q fails until this is fixed, unless it chooses a newer bundle)", b.Package)
		}
		out[i] = p
	}
	return out
}

// unreadableDirs records the directories of a bundle tree that could not be read (permission
// denied) as broken bundles: one directly under a package directory is a bundle of that package,
// one directly under the root a package of its name — or, when the root is itself a package
// directory (it holds bundle directories), a bundle of the root's package. Resolving the package
// then fails unless it chooses a newer bundle, instead of quietly choosing an older one.
func unreadableDirs(fsys rootfs.FS, root string, dirs, unreadable []bundleDir) []Broken {
	rootIsPackage := slices.ContainsFunc(dirs, func(d bundleDir) bool { return d.pkgDir == root })
	var out []Broken
	for _, d := range unreadable {
		b := Broken{Package: path.Base(d.pkgDir), Dir: fsys.Path(d.dir), Version: dirVersion(d)}
		if d.pkgDir == root && !rootIsPackage {
			b.Package, b.Version = path.Base(d.dir), nil
		}
		_, err := fsys.ReadDir(d.dir)
		b.Problems = diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: b.Dir},
			Message: fmt.Sprintf("cannot read bundle directory: %s: it might hold the bundle OLM would choose, so it is never skipped; make it readable, or remove it", rootfs.Describe(err))}}
		out = append(out, b)
	}
	return out
}

// pipelineConfig is what the community pipeline's ci.yaml of a package directory says about
// the catalog it builds: the update-graph mode of its bundles' edges, or the catalog template
// that holds the package's channels (fbc.enabled).
type pipelineConfig struct {
	mode     string // "replaces-mode" or "semver-mode"
	template string // the basic catalog template's path, when one makes the channels
}

// ciFile is the part of a community ci.yaml the catalog depends on.
type ciFile struct {
	UpdateGraph string `json:"updateGraph"`
	FBC         struct {
		Enabled        bool `json:"enabled"`
		CatalogMapping []struct {
			TemplateName string   `json:"template_name"`
			Type         string   `json:"type"`
			CatalogNames []string `json:"catalog_names"`
		} `json:"catalog_mapping"`
	} `json:"fbc"`
}

// readPipelineConfig reads the ci.yaml of a package directory: updateGraph "replaces-mode" (the
// default) or "semver-mode", and, when fbc.enabled, the catalog template the pipeline renders.
func readPipelineConfig(fsys rootfs.FS, dir string, problems *diag.Problems) pipelineConfig {
	cfg := pipelineConfig{mode: "replaces-mode"}
	file := path.Join(dir, "ci.yaml")
	data, err := fsys.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg
	}
	origin := diag.Origin{File: fsys.Path(file)}
	if err != nil {
		problems.Errorf(origin, "", "", "cannot read ci.yaml: %s", rootfs.Describe(err))
		return cfg
	}
	var ci ciFile
	if err := yaml.Unmarshal(data, &ci); err != nil {
		problems.Errorf(origin, "", "", "invalid ci.yaml: %s", diag.Decoding(err))
		return cfg
	}
	switch ci.UpdateGraph {
	case "", "replaces-mode":
	case "semver-mode", "semver-skippatch-mode":
		cfg.mode = "semver-mode"
	default:
		problems.Errorf(origin, "", "updateGraph", "unknown update graph mode %q: want replaces-mode or semver-mode", ci.UpdateGraph)
	}
	if ci.FBC.Enabled {
		cfg.template = templateOf(fsys, dir, ci, origin, problems)
	}
	return cfg
}

// templateOf returns the catalog template an FBC-enabled package's channels come from: the
// basic template its catalog_mapping names for the newest catalog (the first template file by
// name when there is no mapping), or "" with a warning when the template cannot be matched to
// the bundle directories offline (a semver template lists bundles only by image).
func templateOf(fsys rootfs.FS, dir string, ci ciFile, origin diag.Origin, problems *diag.Problems) string {
	templates := path.Join(dir, "catalog-templates")
	if len(ci.FBC.CatalogMapping) == 0 {
		return firstTemplate(fsys, templates)
	}
	best, newest := -1, ""
	for i, m := range ci.FBC.CatalogMapping {
		for _, name := range m.CatalogNames {
			if best < 0 || compareCatalogNames(name, newest) > 0 {
				best, newest = i, name
			}
		}
	}
	m := ci.FBC.CatalogMapping[max(best, 0)]
	field := fmt.Sprintf("fbc.catalog_mapping[%d]", max(best, 0))
	switch {
	case m.Type != "" && m.Type != "olm.template.basic":
		problems.Warnf(origin, "", field+".type",
			"%s template %q lists bundles only by image, which a bundle tree cannot match offline: channels come from the bundles' annotations instead; render from the published catalog (an FBC or index image) for the exact graph", m.Type, m.TemplateName)
		return ""
	case m.TemplateName == "" || strings.ContainsAny(m.TemplateName, `/\`) || strings.HasPrefix(m.TemplateName, "."):
		problems.Errorf(origin, "", field+".template_name", "want the name of a file in %s, got %q", fsys.Path(templates), m.TemplateName)
		return ""
	}
	return path.Join(templates, m.TemplateName)
}

// compareCatalogNames orders catalog names such as v4.9 and v4.16 by version, other names by text.
func compareCatalogNames(a, b string) int {
	va, errA := semver.ParseTolerant(a)
	vb, errB := semver.ParseTolerant(b)
	if errA == nil && errB == nil {
		return va.Compare(vb)
	}
	return strings.Compare(a, b)
}

// bundleMetadata are the files of a bundle's metadata/ that hold its annotations, dependencies
// and properties ("" when none does).
type bundleMetadata struct {
	annotations, dependencies, properties string
}

// Well-known names of the files of metadata/.
const (
	annotationsFile  = "annotations.yaml"
	dependenciesFile = "dependencies.yaml"
	propertiesFile   = "properties.yaml"
)

// findMetadata finds the files of a bundle's metadata/ as opm's bundle parser does
// (operator-registry pkg/registry/parse.go addMetadata): whatever their names, in name order,
// the first whose first document holds bundle annotations (package, channels or default
// channel), the first that lists dependencies and the first that lists properties. Files that
// do not decode are passed over, as opm passes them over, except the well-known names, which
// readBundleDir reads and reports.
func findMetadata(fsys rootfs.FS, dir string) bundleMetadata {
	var meta bundleMetadata
	metadata := path.Join(dir, "metadata")
	entries, err := fsys.ReadDir(metadata)
	if err != nil {
		return bundleMetadata{annotations: path.Join(metadata, annotationsFile)}
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		name := path.Join(metadata, e.Name())
		var doc struct {
			Annotations  map[string]any `json:"annotations"`
			Dependencies []any          `json:"dependencies"`
			Properties   []any          `json:"properties"`
		}
		if data, err := fsys.ReadFile(name); err != nil || utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&doc) != nil {
			doc.Annotations, doc.Dependencies, doc.Properties = nil, nil, nil
			if e.Name() == annotationsFile && meta.annotations == "" {
				meta.annotations = name // read again to report why
			}
		}
		if meta.annotations == "" && (doc.Annotations[annotationPackage] != nil || doc.Annotations[annotationChannels] != nil || doc.Annotations[annotationDefaultChannel] != nil) {
			meta.annotations = name
		}
		if meta.dependencies == "" && (len(doc.Dependencies) > 0 || e.Name() == dependenciesFile) {
			meta.dependencies = name
		}
		if meta.properties == "" && (len(doc.Properties) > 0 || e.Name() == propertiesFile) {
			meta.properties = name
		}
	}
	if meta.annotations == "" {
		meta.annotations = path.Join(metadata, annotationsFile)
	}
	return meta
}

// readBundleDir reads one bundle directory: annotations, manifests, dependencies and properties.
// With lazy, the bundle keeps no manifests: Bundle.Manifests reads them again (lazyManifests).
func readBundleDir(fsys rootfs.FS, dir string, lazy bool) (*dirBundle, diag.Problems) {
	var problems diag.Problems
	meta := findMetadata(fsys, dir)
	annFile := meta.annotations
	b := &dirBundle{dir: dir, annotations: diag.Origin{File: fsys.Path(annFile)}, annotationsFile: annFile}
	data, err := fsys.ReadFile(annFile)
	if err != nil {
		problems.Errorf(b.annotations, "", "", "cannot read bundle annotations: %s", rootfs.Describe(err))
		return b, problems
	}
	ann, ok := decodeAnnotations(data, b.annotations, &problems)
	if !ok {
		return b, problems
	}
	b.readAnnotations(ann, &problems)
	known := problems.Err() == nil // package and channels
	m, ps := readManifests(fsys, path.Join(dir, "manifests"))
	problems = append(problems, ps...)
	if !known || m == nil || m.CSV == nil {
		return b, problems
	}
	csv := m.CSV
	b.entry = ChannelEntry{Name: csv.Name, Replaces: csv.Spec.Replaces, Skips: slices.Clone(csv.Spec.Skips),
		SkipRange: csv.Annotations[skipRangeAnnotation]}
	b.csvFile, b.digest = m.csvName, m.digest
	bundle, ps := bundleFromManifests(fsys, b.pkg, m, meta)
	problems = append(problems, ps...)
	if bundle == nil {
		return b, problems
	}
	bundle.Channels = sortedChannels(b.channels)
	b.bundle = bundle
	if b.dependenciesFile = cmp.Or(meta.dependencies, meta.properties); b.dependenciesFile != "" {
		bundle.DependenciesOrigin = diag.Origin{File: fsys.Path(b.dependenciesFile)}
	}
	if err := problems.Err(); err != nil {
		// The bundle is known (package, channels, name, version, edges) but cannot be rendered:
		// it keeps its place in its channels, since OLM might choose it, and a resolution that
		// chooses it fails with these problems.
		bundle.Invalid = problems.Errors()
		bundle.SetManifests(func() (*Manifests, error) { return nil, err })
		return b, problems
	}
	if lazy {
		bundle.SetManifests(lazyManifests(fsys, path.Join(dir, "manifests"), m.digest))
	}
	return b, problems
}

// lazyManifests reads a bundle directory's manifests again when a render needs them. They must
// be the files validated when the catalog was loaded: a change in between is an error, never a
// different install.
func lazyManifests(fsys rootfs.FS, dir string, digest [sha256.Size]byte) func() (*Manifests, error) {
	return func() (*Manifests, error) {
		m, problems := readManifests(fsys, dir)
		if err := problems.Err(); err != nil {
			return nil, err
		}
		if m.digest != digest {
			return nil, diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: fsys.Path(dir)},
				Message: "the bundle's manifests changed while olm-render was running: render again"}}
		}
		return m, nil
	}
}

// decodeAnnotations decodes the first document of a bundle's annotations file as opm does: the
// bundle annotations are string values under annotations; other keys and annotations are not
// read. A repeated key is an error unless it repeats its value.
func decodeAnnotations(data []byte, origin diag.Origin, problems *diag.Problems) (map[string]string, bool) {
	doc, err := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data))).Read()
	if err != nil && !errors.Is(err, io.EOF) {
		problems.Errorf(origin, "", "", "invalid bundle annotations: %s", diag.Decoding(err))
		return nil, false
	}
	pos := 0
	obj, ok := decodeDocument(doc, origin, startLine(data, &pos, doc), sameRepeats, problems)
	if !ok {
		return nil, false
	}
	ann, isMap := obj["annotations"].(map[string]any)
	if obj["annotations"] != nil && !isMap {
		problems.Errorf(origin, "", "annotations", "invalid bundle annotations: want a map of strings")
		return nil, false
	}
	out := map[string]string{}
	for _, key := range []string{annotationPackage, annotationChannels, annotationDefaultChannel, annotationMediaType} {
		switch v := ann[key].(type) {
		case nil:
		case string:
			out[key] = v
		default:
			problems.Errorf(origin, "", "annotations["+key+"]", "invalid bundle annotation: want a string, got %v", v)
			return nil, false
		}
	}
	return out, true
}

// readAnnotations takes the package, channels and default channel from a bundle's annotations.
func (b *dirBundle) readAnnotations(ann map[string]string, problems *diag.Problems) {
	b.pkg = strings.TrimSpace(ann[annotationPackage])
	if b.pkg == "" {
		problems.Errorf(b.annotations, "", "annotations["+annotationPackage+"]", "required: the bundle's package name")
	}
	for _, ch := range strings.Split(ann[annotationChannels], ",") {
		if ch = strings.TrimSpace(ch); ch != "" {
			b.channels = append(b.channels, ch)
		}
	}
	if len(b.channels) == 0 {
		problems.Errorf(b.annotations, "", "annotations["+annotationChannels+"]", "required: the channels the bundle belongs to")
	}
	b.defaultChannel = strings.TrimSpace(ann[annotationDefaultChannel])
	if mt := strings.TrimSpace(ann[annotationMediaType]); mt != "" && mt != "registry+v1" {
		problems.Errorf(b.annotations, "", "annotations["+annotationMediaType+"]",
			"bundle format %q: OLM v0 installs registry+v1 bundles only, and so does olm-render", mt)
	}
}

// bundleFromManifests derives a bundle and its properties from its manifests, as opm does for a
// registry+v1 bundle: olm.package; olm.gvk for every version of every CRD and every owned
// APIService; olm.gvk.required for the CSV's required CRDs and APIServices; the dependencies of
// metadata/ (findMetadata). Properties are sorted by type, then value, and deduplicated.
func bundleFromManifests(fsys rootfs.FS, pkg string, m *Manifests, meta bundleMetadata) (*Bundle, diag.Problems) {
	var problems diag.Problems
	csv := m.CSV
	obj := "ClusterServiceVersion/" + csv.Name
	version := csv.Spec.Version.Version
	if version.Equals(semver.Version{}) {
		problems.Errorf(m.CSVOrigin, obj, "spec.version", "required: a semver version")
		return nil, problems
	}
	b := &Bundle{Package: pkg, Name: csv.Name, Version: version, Origin: m.CSVOrigin}
	for _, ri := range csv.Spec.RelatedImages {
		b.RelatedImages = append(b.RelatedImages, RelatedImage{Name: ri.Name, Image: ri.Image})
	}
	props := []Property{mustProperty(TypePackage, PackageValue{PackageName: pkg, Version: version.String()})}
	for _, o := range m.Objects {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		group, _, _ := unstructuredString(o.Object, "spec", "group")
		kind, _, _ := unstructuredString(o.Object, "spec", "names", "kind")
		for _, v := range crdVersions(o.Object) {
			props = append(props, mustProperty(TypeGVK, GVKValue{Group: group, Kind: kind, Version: v}))
		}
	}
	for _, api := range csv.Spec.APIServiceDefinitions.Owned {
		props = append(props, mustProperty(TypeGVK, GVKValue{Group: api.Group, Kind: api.Kind, Version: api.Version}))
	}
	for _, crd := range csv.Spec.CustomResourceDefinitions.Required {
		_, group, _ := strings.Cut(crd.Name, ".")
		props = append(props, mustProperty(TypeGVKRequired, GVKValue{Group: group, Kind: crd.Kind, Version: crd.Version}))
	}
	for _, api := range csv.Spec.APIServiceDefinitions.Required {
		props = append(props, mustProperty(TypeGVKRequired, GVKValue{Group: api.Group, Kind: api.Kind, Version: api.Version}))
	}
	annotated, ps := csvProperties(m)
	problems = append(problems, ps...)
	props = append(props, annotated...)
	deps, ps := readDependencies(fsys, meta.dependencies)
	problems = append(problems, ps...)
	extra, ps := readProperties(fsys, meta.properties)
	problems = append(problems, ps...)
	for _, d := range append(deps, extra...) {
		props = append(props, d.Property)
		b.declare(d.Property, d.field)
	}
	for i := range problems {
		problems[i].Object = cmp.Or(problems[i].Object, fmt.Sprintf("bundle %q", b.Name))
	}
	b.Properties = sortProperties(props)
	b.SetManifests(func() (*Manifests, error) { return m, nil })
	return b, problems
}

func unstructuredString(obj map[string]any, fields ...string) (string, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[f]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// crdVersions lists a CRD's versions: spec.versions[].name, or the v1beta1 spec.version.
func crdVersions(obj map[string]any) []string {
	var out []string
	spec, _ := obj["spec"].(map[string]any)
	if vs, ok := spec["versions"].([]any); ok {
		for _, v := range vs {
			if m, ok := v.(map[string]any); ok {
				if name, ok := m["name"].(string); ok {
					out = append(out, name)
				}
			}
		}
	}
	if v, ok := spec["version"].(string); ok && !slices.Contains(out, v) {
		out = append(out, v)
	}
	return out
}

func mustProperty(typ string, v any) Property {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encoding %s property: %v", typ, err))
	}
	return Property{Type: typ, Value: data}
}

// sortProperties sorts by type then value and removes duplicates.
func sortProperties(props []Property) []Property {
	slices.SortStableFunc(props, func(a, b Property) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(string(a.Value), string(b.Value)))
	})
	return slices.CompactFunc(props, func(a, b Property) bool {
		return a.Type == b.Type && string(a.Value) == string(b.Value)
	})
}

// csvPropertiesAnnotation is the CSV annotation a bundle may declare properties in, as opm reads
// it (operator-registry pkg/registry/parse.go, derivedProperties).
const csvPropertiesAnnotation = "olm.properties"

// csvProperties reads the properties a CSV declares in its olm.properties annotation (a JSON
// list, e.g. olm.maxOpenShiftVersion). opm only warns when it does not parse, and so does this.
func csvProperties(m *Manifests) ([]Property, diag.Problems) {
	value, ok := m.CSV.Annotations[csvPropertiesAnnotation]
	if !ok {
		return nil, nil
	}
	var problems diag.Problems
	var props []Property
	if err := json.Unmarshal([]byte(value), &props); err != nil {
		problems.Warnf(m.CSVOrigin, "ClusterServiceVersion/"+m.CSV.Name, "metadata.annotations["+csvPropertiesAnnotation+"]",
			"ignored, as opm ignores it: not a JSON list of properties: %s", diag.Decoding(err))
		return nil, problems
	}
	out := props[:0]
	for i, p := range props {
		if p.Type == "" {
			continue
		}
		if err := checkPropertyValue(p.Type, p.Value); err != nil {
			problems.Errorf(m.CSVOrigin, "ClusterServiceVersion/"+m.CSV.Name, fmt.Sprintf("metadata.annotations[%s][%d].value", csvPropertiesAnnotation, i), "%s", diag.Decoding(err))
			continue
		}
		p.Value = compactJSON(p.Value)
		out = append(out, p)
	}
	return out, problems
}

// readDependencies reads metadata/dependencies.yaml into required properties: olm.package →
// olm.package.required, olm.gvk → olm.gvk.required, olm.label → olm.label.required,
// olm.constraint as is.
func readDependencies(fsys rootfs.FS, name string) ([]declared, diag.Problems) {
	var problems diag.Problems
	if name == "" {
		return nil, nil
	}
	data, _ := readOptional(fsys, name, &problems)
	if data == nil {
		return nil, problems
	}
	file := fsys.Path(name)
	var deps struct {
		Dependencies []struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		} `json:"dependencies"`
	}
	if !decodeMetadata(data, diag.Origin{File: file}, "dependencies", &deps.Dependencies, &problems) {
		return nil, problems
	}
	var out []declared
	for i, d := range deps.Dependencies {
		field := fmt.Sprintf("dependencies[%d]", i)
		switch d.Type {
		case "olm.package":
			var v struct {
				PackageName string `json:"packageName"`
				Version     string `json:"version"`
			}
			if err := json.Unmarshal(d.Value, &v); err != nil || v.PackageName == "" {
				problems.Errorf(diag.Origin{File: file}, "", field+".value", "want {packageName, version}: %v", err)
				continue
			}
			if _, err := semver.ParseRange(v.Version); err != nil {
				problems.Errorf(diag.Origin{File: file}, "", field+".value.version", "invalid version range %q: %v", v.Version, err)
				continue
			}
			out = append(out, declared{mustProperty(TypePackageRequired, PackageRequiredValue{PackageName: v.PackageName, VersionRange: v.Version}), field})
		case "olm.gvk":
			var v GVKValue
			if err := json.Unmarshal(d.Value, &v); err != nil || v.Group == "" || v.Kind == "" || v.Version == "" {
				problems.Errorf(diag.Origin{File: file}, "", field+".value", "want {group, version, kind}: %v", err)
				continue
			}
			out = append(out, declared{mustProperty(TypeGVKRequired, v), field})
		case "olm.label":
			var v LabelValue
			if err := json.Unmarshal(d.Value, &v); err != nil || v.Label == "" {
				problems.Errorf(diag.Origin{File: file}, "", field+".value", "want {label}: %v", err)
				continue
			}
			out = append(out, declared{mustProperty(TypeLabelRequired, v), field})
		case "olm.constraint":
			out = append(out, declared{Property{Type: TypeConstraint, Value: compactJSON(d.Value)}, field})
		default:
			problems.Errorf(diag.Origin{File: file}, "", field+".type", "unknown dependency type %q: want olm.package, olm.gvk, olm.label or olm.constraint", d.Type)
		}
	}
	return out, problems
}

// readProperties reads metadata/properties.yaml.
func readProperties(fsys rootfs.FS, name string) ([]declared, diag.Problems) {
	var problems diag.Problems
	if name == "" {
		return nil, nil
	}
	data, _ := readOptional(fsys, name, &problems)
	if data == nil {
		return nil, problems
	}
	file := fsys.Path(name)
	var props struct {
		Properties []Property `json:"properties"`
	}
	if !decodeMetadata(data, diag.Origin{File: file}, "properties", &props.Properties, &problems) {
		return nil, problems
	}
	for i, p := range props.Properties {
		if p.Type == "" {
			problems.Errorf(diag.Origin{File: file}, "", fmt.Sprintf("properties[%d].type", i), "required")
		}
		if err := checkPropertyValue(p.Type, p.Value); err != nil {
			problems.Errorf(diag.Origin{File: file}, "", fmt.Sprintf("properties[%d].value", i), "%s", diag.Decoding(err))
		}
		props.Properties[i].Value = compactJSON(p.Value)
	}
	out := make([]declared, len(props.Properties))
	for i, p := range props.Properties {
		out[i] = declared{p, fmt.Sprintf("properties[%d]", i)}
	}
	return out, problems
}

// decodeMetadata decodes the list under key in the first document of a metadata file into
// list (entries strictly: {type, value}), as opm reads dependencies and properties; the file's
// other keys are not read. A repeated key is an error unless it repeats its value.
func decodeMetadata(data []byte, origin diag.Origin, key string, list any, problems *diag.Problems) bool {
	doc, err := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data))).Read()
	if err != nil && !errors.Is(err, io.EOF) {
		problems.Errorf(origin, "", key, "invalid %s: %s", key, diag.Decoding(err))
		return false
	}
	pos := 0
	obj, ok := decodeDocument(doc, origin, startLine(data, &pos, doc), sameRepeats, problems)
	if !ok {
		return false
	}
	js, err := json.Marshal(obj[key])
	if err == nil {
		err = yaml.UnmarshalStrict(js, list)
	}
	if err != nil {
		problems.Errorf(origin, "", key, "invalid %s: %s", key, diag.Decoding(err))
		return false
	}
	return true
}

// buildPackage assembles a package from its bundle directories: channels from the bundles'
// channel annotations, edges from the CSVs (replaces-mode) or from semver order (semver-mode).
// A bundle named as one before it (in version order) is left out and returned.
func buildPackage(name string, bundles []*dirBundle, mode string) (p *Package, duplicates []*dirBundle) {
	slices.SortFunc(bundles, func(a, b *dirBundle) int {
		return cmp.Or(a.bundle.Version.Compare(b.bundle.Version), cmp.Compare(a.bundle.Name, b.bundle.Name))
	})
	p = &Package{Name: name}
	latest := bundles[len(bundles)-1]
	p.Origin = latest.annotations
	// The default channel is the newest bundle's default-channel annotation, as the index
	// builder leaves it; bundles without one are passed over.
	for i := len(bundles) - 1; i >= 0 && p.DefaultChannel == ""; i-- {
		p.DefaultChannel = bundles[i].defaultChannel
	}
	channels := map[string]*Channel{}
	for _, b := range bundles {
		if p.Bundle(b.bundle.Name) != nil {
			duplicates = append(duplicates, b)
			continue
		}
		p.Bundles = append(p.Bundles, b.bundle)
		for _, chName := range b.bundle.Channels {
			ch := channels[chName]
			if ch == nil {
				ch = &Channel{Package: name, Name: chName, Origin: b.annotations, EdgesInCSVs: true}
				channels[chName] = ch
			}
			e := b.entry
			e.Skips = slices.Clone(e.Skips)
			ch.Entries = append(ch.Entries, e)
		}
	}
	for _, ch := range channels {
		if mode != "replaces-mode" {
			semverEdges(ch)
		}
		p.Channels = append(p.Channels, ch)
	}
	if p.DefaultChannel == "" && len(latest.bundle.Channels) > 0 {
		// No bundle names a default: the newest bundle's first channel (by name).
		p.DefaultChannel = latest.bundle.Channels[0]
	}
	return p, duplicates
}

// semverEdges replaces a channel's replaces edges by semver order, as the community pipeline's
// semver-mode does: every entry replaces the one before it (entries are in version order). The
// CSVs' skips and skipRange are kept.
func semverEdges(ch *Channel) {
	for i := range ch.Entries {
		ch.Entries[i].Replaces = ""
		if i > 0 {
			ch.Entries[i].Replaces = ch.Entries[i-1].Name
		}
	}
}

// readOptional reads a file that may be absent: nil data and no problem when it does not exist,
// a problem when it exists but cannot be read.
func readOptional(fsys rootfs.FS, name string, problems *diag.Problems) ([]byte, error) {
	data, err := fsys.ReadFile(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		problems.Errorf(diag.Origin{File: fsys.Path(name)}, "", "", "cannot read: %s", rootfs.Describe(err))
		return nil, err
	}
	return data, nil
}

// LoadBundle reads one registry+v1 bundle directory of fsys (manifests/ and
// metadata/annotations.yaml): the bundle opm would derive from it, with its manifests.
func LoadBundle(fsys rootfs.FS, dir string) (*Bundle, error) {
	b, problems := readBundleDir(fsys, dir, false)
	if err := problems.Err(); err != nil {
		return nil, err
	}
	return b.bundle, nil
}
