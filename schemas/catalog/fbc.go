package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// FBC schemas.
const (
	SchemaPackage      = "olm.package"
	SchemaChannel      = "olm.channel"
	SchemaBundle       = "olm.bundle"
	SchemaDeprecations = "olm.deprecations"
)

type fbcPackage struct {
	Name           string `json:"name"`
	DefaultChannel string `json:"defaultChannel"`
	Description    string `json:"description"`
}

type fbcChannel struct {
	Package string         `json:"package"`
	Name    string         `json:"name"`
	Entries []ChannelEntry `json:"entries"`
}

type fbcBundle struct {
	Package       string         `json:"package"`
	Name          string         `json:"name"`
	Image         string         `json:"image"`
	Properties    []Property     `json:"properties"`
	RelatedImages []RelatedImage `json:"relatedImages"`
}

type fbcDeprecations struct {
	Package string `json:"package"`
	Entries []struct {
		Reference struct {
			Schema string `json:"schema"`
			Name   string `json:"name"`
		} `json:"reference"`
		Message string `json:"message"`
	} `json:"entries"`
}

// fbcObject is one decoded FBC object and where it came from.
type fbcObject struct {
	schema, pkg, name string
	raw               json.RawMessage
	origin            diag.Origin
	// bundle is an olm.bundle object decoded (while objects are decoded in parallel), or why it
	// could not be.
	bundle    fbcBundle
	bundleErr error
}

// loadFBC loads a file-based catalog file or directory, as opm's declcfg.LoadFS does (lexical
// walk, .indexignore, every other file parsed whatever its extension).
func loadFBC(fsys rootfs.FS, root string) (*Catalog, diag.Problems) {
	var problems diag.Problems
	files, err := fbcFiles(fsys, root)
	if err != nil {
		problems.Errorf(diag.Origin{File: rootfs.PathOf(err, fsys.Path(root))}, "", "", "cannot read catalog: %s", rootfs.Describe(err))
		return &Catalog{}, problems
	}
	objs := make([][]fbcObject, len(files))
	filesProblems := make([]diag.Problems, len(files))
	parallel(len(files), func(i int) {
		f := files[i]
		data, err := fsys.ReadFile(f)
		if err != nil {
			filesProblems[i].Errorf(diag.Origin{File: fsys.Path(f)}, "", "", "cannot read catalog file: %s", rootfs.Describe(err))
			return
		}
		objs[i], filesProblems[i] = decodeFBC(fsys.Path(f), data)
	})
	var all []fbcObject
	for i := range files {
		all = append(all, objs[i]...)
		problems = append(problems, filesProblems[i]...)
	}
	c := buildFBC(all, &problems)
	return c, problems
}

// fbcFiles lists the files of an FBC root in lexical order, minus .indexignore files and the
// paths they ignore.
func fbcFiles(fsys rootfs.FS, root string) ([]string, error) {
	st, err := fsys.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{root}, nil
	}
	ignores := map[string][]ignoreRule{}
	var files []string
	err = fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if err := fbcSymlink(fsys, p); err != nil {
				return err
			}
		}
		if d.Name() == ".indexignore" {
			rules, rerr := readIgnore(fsys, p)
			ignores[path.Dir(p)] = rules
			return rerr
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// .indexignore files apply to their whole directory, including files walked before them.
	return slices.DeleteFunc(files, func(f string) bool { return ignored(root, f, ignores) }), nil
}

// fbcSymlink checks a symbolic link met walking an FBC root: a link to a file inside the root is
// read like the file (opm reads through it); a link leaving the root is refused, and so is a
// link to a directory, which opm's walk would skip without a word.
func fbcSymlink(fsys rootfs.FS, p string) error {
	st, err := fsys.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return &fs.PathError{Op: "walk", Path: fsys.Path(p), Err: errors.New("a symbolic link to a directory: opm does not follow it, so its catalog would be left out; put the directory itself there")}
	}
	return nil
}

// ignoreRule is one gitignore-style pattern of an .indexignore file.
type ignoreRule struct {
	pattern string
	negate  bool
}

func readIgnore(fsys rootfs.FS, file string) ([]ignoreRule, error) {
	data, err := fsys.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rules []ignoreRule
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{pattern: line}
		if strings.HasPrefix(line, "!") {
			r.negate, r.pattern = true, line[1:]
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// ignored applies the .indexignore rules of every directory from root down to the file; the
// last matching rule wins. Names are slash-separated.
func ignored(root, file string, ignores map[string][]ignoreRule) bool {
	out := false
	// Walk domains from the root down so deeper rules override shallower ones.
	var domains []string
	for dir := path.Dir(file); ; dir = path.Dir(dir) {
		domains = append([]string{dir}, domains...)
		if dir == root || dir == "." || dir == "/" {
			break
		}
	}
	for _, dir := range domains {
		rel := strings.TrimPrefix(file, dir+"/")
		if dir == "." {
			rel = file
		}
		for _, r := range ignores[dir] {
			if matchIgnore(r.pattern, rel) {
				out = !r.negate
			}
		}
	}
	return out
}

// matchIgnore matches a gitignore-style pattern against a slash-separated path relative to the
// pattern's directory: a pattern with a slash (other than a trailing one) is anchored; one
// without matches any path element; a trailing slash matches directories only.
func matchIgnore(pattern, rel string) bool {
	dirOnly := strings.HasSuffix(pattern, "/")
	pattern = strings.TrimSuffix(pattern, "/")
	parts := strings.Split(rel, "/")
	if strings.Contains(pattern, "/") {
		pattern = strings.TrimPrefix(pattern, "/")
		for i := range parts {
			if dirOnly && i == len(parts)-1 {
				break
			}
			if ok, _ := filepathMatch(pattern, strings.Join(parts[:i+1], "/")); ok {
				return true
			}
		}
		return false
	}
	for i, part := range parts {
		if dirOnly && i == len(parts)-1 {
			break
		}
		if ok, _ := filepathMatch(pattern, part); ok {
			return true
		}
	}
	return false
}

func filepathMatch(pattern, name string) (bool, error) {
	if pattern == "**" {
		return true, nil
	}
	return path.Match(strings.ReplaceAll(pattern, "**", "*"), name)
}

// buildFBC converts FBC objects into the model, with opm's ConvertToModel checks.
func buildFBC(objs []fbcObject, problems *diag.Problems) *Catalog {
	c := &Catalog{}
	pkgs := map[string]*Package{}
	for _, o := range objs {
		if o.schema != SchemaPackage {
			continue
		}
		var v fbcPackage
		if err := decodeBlob("", o.raw, &v); err != nil {
			problems.Add(blobProblem(o, err))
			continue
		}
		obj := blobName(SchemaPackage, "", v.Name)
		switch {
		case v.Name == "":
			problems.Errorf(o.origin, "", "name", "config contains package with no name")
		case pkgs[v.Name] != nil:
			problems.Errorf(o.origin, obj, "name", "duplicate package %q (first in %s)", v.Name, pkgs[v.Name].Origin)
		default:
			p := &Package{Name: v.Name, DefaultChannel: v.DefaultChannel, Description: v.Description, Origin: o.origin}
			pkgs[v.Name] = p
			c.Packages = append(c.Packages, p)
		}
	}
	for _, o := range objs {
		if o.schema != SchemaChannel {
			continue
		}
		var v fbcChannel
		if err := decodeBlob("", o.raw, &v); err != nil {
			problems.Add(blobProblem(o, err))
			continue
		}
		p := pkgs[v.Package]
		obj := blobName(SchemaChannel, v.Package, v.Name)
		switch {
		case p == nil:
			problems.Errorf(o.origin, obj, "package", "unknown package %q for channel %q", v.Package, v.Name)
			continue
		case v.Name == "":
			problems.Errorf(o.origin, "", "name", "package %q contains channel with no name", v.Package)
			continue
		case p.Channel(v.Name) != nil:
			problems.Errorf(o.origin, obj, "name", "package %q has duplicate channel %q", v.Package, v.Name)
			continue
		}
		seen := map[string]bool{}
		for i, e := range v.Entries {
			if seen[e.Name] {
				problems.Errorf(o.origin, obj, fmt.Sprintf("entries[%d].name", i), "invalid package %q, channel %q: duplicate entry %q", v.Package, v.Name, e.Name)
			}
			seen[e.Name] = true
		}
		p.Channels = append(p.Channels, &Channel{Package: p.Name, Name: v.Name, Entries: v.Entries, Origin: o.origin})
	}
	for _, o := range objs {
		if o.schema != SchemaBundle {
			continue
		}
		b := fbcBundleFrom(o, pkgs, problems)
		if b == nil {
			continue
		}
		p := pkgs[b.Package]
		for _, ch := range p.Channels {
			if ch.Entry(b.Name) != nil {
				b.Channels = append(b.Channels, ch.Name)
			}
		}
		if len(b.Channels) == 0 {
			problems.Errorf(o.origin, blobName(SchemaBundle, b.Package, b.Name), "name", "package %q, bundle %q not found in any channel entries: add it to the entries of a channel, or remove the blob", b.Package, b.Name)
			continue
		}
		p.Bundles = append(p.Bundles, b)
	}
	for _, p := range c.Packages {
		for _, ch := range p.Channels {
			missingBundles(p, ch, problems)
		}
	}
	for _, o := range objs {
		if o.schema == SchemaDeprecations {
			applyDeprecations(o, pkgs, problems)
		}
	}
	for _, o := range objs {
		switch o.schema {
		case SchemaPackage, SchemaChannel, SchemaBundle, SchemaDeprecations:
		default:
			c.Others = append(c.Others, o.raw)
		}
	}
	return c
}

// missingBundles reports each entry of a channel that names no olm.bundle blob of its package,
// at the channel blob and the entry: opm refuses the catalog ("no olm.bundle blobs found in
// package ... for olm.channel entries").
func missingBundles(p *Package, ch *Channel, problems *diag.Problems) {
	var names []string
	for _, b := range p.Bundles {
		names = append(names, b.Name)
	}
	for i, e := range ch.Entries {
		if p.Bundle(e.Name) != nil {
			continue
		}
		msg := fmt.Sprintf("no olm.bundle blob %q in package %q (opm: no olm.bundle blobs found for olm.channel entries): add the bundle's blob, or remove the entry", e.Name, p.Name)
		if m := diag.Closest(e.Name, names); m != "" {
			msg += fmt.Sprintf(": did you mean %q?", m)
		}
		problems.Errorf(ch.Origin, blobName(SchemaChannel, p.Name, ch.Name), fmt.Sprintf("entries[%d].name", i), "%s", msg)
	}
}

// fbcBundleFrom decodes an olm.bundle object: its properties, version and inline manifests.
func fbcBundleFrom(o fbcObject, pkgs map[string]*Package, problems *diag.Problems) *Bundle {
	v, err := o.bundle, o.bundleErr
	if err != nil {
		problems.Add(blobProblem(o, err))
		return nil
	}
	obj := blobName(SchemaBundle, v.Package, v.Name)
	switch {
	case v.Package == "":
		problems.Errorf(o.origin, obj, "package", "package name must be set for bundle %q", v.Name)
		return nil
	case pkgs[v.Package] == nil:
		problems.Errorf(o.origin, obj, "package", "unknown package %q for bundle %q", v.Package, v.Name)
		return nil
	case pkgs[v.Package].Bundle(v.Name) != nil:
		problems.Errorf(o.origin, obj, "name", "package %q has duplicate bundle %q", v.Package, v.Name)
		return nil
	}
	b := &Bundle{Package: v.Package, Name: v.Name, Image: v.Image, RelatedImages: v.RelatedImages, Origin: o.origin}
	var (
		pkgProps []PackageValue
		objects  [][]byte
		at       []int
	)
	for i, p := range v.Properties {
		field := fmt.Sprintf("properties[%d]", i)
		if p.Type == "" || p.Value == nil || (!bigProperty(p.Type) && !json.Valid(p.Value)) {
			problems.Errorf(o.origin, obj, field, "parse properties for bundle %q: parse property[%d] of type %q: invalid value", v.Name, i, p.Type)
			continue
		}
		if err := checkPropertyValue(p.Type, p.Value); err != nil {
			problems.Errorf(o.origin, obj, field+".value", "%s", diag.Decoding(err))
			continue
		}
		switch p.Type {
		case TypePackage:
			var pv PackageValue
			if err := json.Unmarshal(p.Value, &pv); err != nil {
				problems.Errorf(o.origin, obj, field, "parse properties for bundle %q: parse property[%d] of type %q: %s", v.Name, i, p.Type, diag.Decoding(err))
				continue
			}
			pkgProps = append(pkgProps, pv)
			b.Properties = append(b.Properties, Property{Type: p.Type, Value: compactJSON(p.Value)})
		case TypeBundleObject:
			objects, at = append(objects, p.Value), append(at, i) // decoded when the bundle is rendered
		case TypeCSVMetadata:
			if b.CSVMetadata != nil {
				problems.Errorf(o.origin, obj, field, "expected at most 1 property of type %q, found 2", TypeCSVMetadata)
			}
			b.CSVMetadata = p.Value // not compacted: never rendered, only digested (canonically)
		default:
			b.Properties = append(b.Properties, Property{Type: p.Type, Value: compactJSON(p.Value)})
			b.declare(p, field)
		}
	}
	if len(pkgProps) != 1 {
		problems.Errorf(o.origin, obj, "properties", "package %q bundle %q must have exactly 1 %q property, found %d", v.Package, v.Name, TypePackage, len(pkgProps))
		return nil
	}
	if pkgProps[0].PackageName != v.Package {
		problems.Errorf(o.origin, obj, "properties", "package %q does not match %q property %q", v.Package, TypePackage, pkgProps[0].PackageName)
		return nil
	}
	version, err := semver.Parse(pkgProps[0].Version)
	if err != nil {
		problems.Errorf(o.origin, obj, "properties", "error parsing bundle %q version %q: %v", v.Name, pkgProps[0].Version, err)
		return nil
	}
	b.Version = version
	b.InlineObjects, b.inlineAt = objects, at
	b.attachInline()
	return b
}

// attachInline makes a bundle's manifests its olm.bundle.object properties, if it has any.
func (b *Bundle) attachInline() {
	if len(b.InlineObjects) == 0 {
		return
	}
	in := inline{origin: b.Origin, pkg: b.Package, name: b.Name, objects: b.InlineObjects, at: b.inlineAt}
	b.SetManifests(in.manifests)
}

// bigProperty reports whether a property's value is a big document kept undecoded at load.
func bigProperty(typ string) bool { return typ == TypeCSVMetadata || typ == TypeBundleObject }

// inline are the olm.bundle.object properties of an olm.bundle blob: their values ({"data":
// base64}) and their indexes in the blob's properties (at; nil when they are all of them).
type inline struct {
	origin    diag.Origin
	pkg, name string
	objects   [][]byte
	at        []int
}

// field is the path, in the blob, of the i-th olm.bundle.object's manifest.
func (in inline) field(i int) string {
	if i < len(in.at) {
		return fmt.Sprintf("properties[%d].value.data", in.at[i])
	}
	return fmt.Sprintf("properties[%d].value.data", i)
}

// problem is a problem of the blob at field.
func (in inline) problem(field, format string, args ...any) diag.Problems {
	return diag.Problems{{Severity: diag.Error, Origin: in.origin, Object: blobName(SchemaBundle, in.pkg, in.name), Field: field,
		Message: fmt.Sprintf(format, args...)}}
}

// manifests decodes the manifests: they must pass checkManifests, the CSV named as the bundle.
func (in inline) manifests() (*Manifests, error) {
	m := &Manifests{CSVOrigin: in.origin}
	for i, value := range in.objects {
		var bo struct {
			Data string `json:"data"`
		}
		if err := decodeBlob(strings.TrimSuffix(in.field(i), ".data"), value, &bo); err != nil {
			var fe *fieldError
			errors.As(err, &fe)
			return nil, in.problem(fe.field, "%s", fe.msg)
		}
		data, err := base64.StdEncoding.DecodeString(bo.Data)
		if err != nil {
			return nil, in.problem(in.field(i), "not base64 (illegal data at %s): want the manifest encoded in base64, as opm writes it", strings.TrimPrefix(err.Error(), "illegal base64 data at input "))
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, in.problem(in.field(i), "the manifest is not YAML or JSON: %s", diag.Decoding(err))
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			return nil, in.problem(in.field(i), "not a Kubernetes object: %s", diag.Decoding(err))
		}
		if u.GetKind() == "ClusterServiceVersion" {
			csv, err := decodeCSV(u.Object)
			if err != nil {
				return nil, in.problem(in.field(i), "%v", err)
			}
			m.CSV = csv
			continue
		}
		m.Objects = append(m.Objects, Object{Unstructured: u, Origin: in.origin})
	}
	if m.CSV == nil {
		return nil, in.problem("properties", "the bundle's olm.bundle.object properties hold no ClusterServiceVersion")
	}
	if err := checkManifests(m, in.name).Err(); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", in.name, err)
	}
	return m, nil
}

// applyDeprecations attaches olm.deprecations messages to packages, channels and bundles.
func applyDeprecations(o fbcObject, pkgs map[string]*Package, problems *diag.Problems) {
	var v fbcDeprecations
	if err := decodeBlob("", o.raw, &v); err != nil {
		problems.Add(blobProblem(o, err))
		return
	}
	obj := blobName(SchemaDeprecations, v.Package, "")
	p := pkgs[v.Package]
	if p == nil {
		problems.Errorf(o.origin, obj, "package", "cannot apply deprecations to an unknown package %q", v.Package)
		return
	}
	for j, e := range v.Entries {
		ref, field := e.Reference, fmt.Sprintf("entries[%d].reference", j)
		switch ref.Schema {
		case SchemaPackage:
			p.Deprecation = e.Message
		case SchemaChannel:
			if ch := p.Channel(ref.Name); ch != nil {
				ch.Deprecation = e.Message
			} else {
				problems.Errorf(o.origin, obj, field+".name", "cannot deprecate channel %q for package %q: channel not found", ref.Name, v.Package)
			}
		case SchemaBundle:
			if b := p.Bundle(ref.Name); b != nil {
				b.Deprecation = e.Message
			} else {
				problems.Errorf(o.origin, obj, field+".name", "cannot deprecate bundle %q for package %q: bundle not found", ref.Name, v.Package)
			}
		case "":
			problems.Errorf(o.origin, obj, field+".schema", "schema must be set for deprecation entry [%d] for package %q", j, v.Package)
		default:
			problems.Errorf(o.origin, obj, field+".schema", "cannot deprecate object of schema %q referenced by entry %d for package %q: object schema unknown", ref.Schema, j, v.Package)
		}
	}
}

// compactJSON re-encodes JSON compactly, as opm's Normalize does.
func compactJSON(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}
