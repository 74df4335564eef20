package catalog

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/schemas/diag"
)

// Format is the on-disk layout a snapshot was read from.
type Format string

// The snapshot formats Load detects.
const (
	// FormatFBC is a file-based catalog: olm.package, olm.channel, olm.bundle and
	// olm.deprecations objects in JSON or YAML streams.
	FormatFBC Format = "file-based-catalog"
	// FormatBundles is a tree of registry+v1 bundle directories in the community catalog layout
	// (<package>/<version>/{manifests,metadata}), or a single bundle directory.
	FormatBundles Format = "registry+v1"
	// FormatPackageManifest is the legacy package-manifest layout (<pkg>.package.yaml beside
	// version folders holding a CSV and CRDs).
	FormatPackageManifest Format = "package-manifest"
)

// Catalog is one loaded snapshot. Everything in it is sorted by name, so walking it is
// deterministic.
type Catalog struct {
	// Path is the snapshot's root, as messages show it.
	Path string
	// Image is the index image the snapshot was pulled from, as name@digest; "" for snapshots
	// read from disk.
	Image string
	// Format is the layout Load detected.
	Format Format
	// Packages are sorted by name.
	Packages []*Package
	// Others are FBC objects of unknown schema, kept in load order.
	Others []json.RawMessage
	// Broken are the bundle directories that could not be loaded, in load order.
	Broken []Broken
	// LeftOut are the directories of a bundle tree the published catalog holds no bundle from,
	// in load order.
	LeftOut []LeftOut
	// Warnings are problems found while loading that do not make the snapshot unusable.
	Warnings diag.Problems
}

// Package returns the named package, or nil.
func (c *Catalog) Package(name string) *Package {
	for _, p := range c.Packages {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Counts returns the number of packages, channels and bundles.
func (c *Catalog) Counts() (packages, channels, bundles int) {
	for _, p := range c.Packages {
		channels += len(p.Channels)
		bundles += len(p.Bundles)
	}
	return len(c.Packages), channels, bundles
}

// Package is an operator package: its channels and bundles.
type Package struct {
	Name string
	// DefaultChannel names the channel a Subscription without spec.channel follows.
	DefaultChannel string
	Description    string
	// Channels are sorted by name.
	Channels []*Channel
	// Bundles are sorted by name.
	Bundles []*Bundle
	// Deprecation holds the olm.deprecations messages for the package itself; channel and
	// bundle messages sit on Channel.Deprecation and Bundle.Deprecation. Informational only:
	// OLM never lets them change resolution.
	Deprecation string
	// Origin is where the package was declared (FBC olm.package, package.yaml, or the
	// annotations.yaml that named the default channel).
	Origin diag.Origin
}

// Channel returns the named channel, or nil.
func (p *Package) Channel(name string) *Channel {
	for _, c := range p.Channels {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Bundle returns the named bundle, or nil.
func (p *Package) Bundle(name string) *Bundle {
	for _, b := range p.Bundles {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// Channel is an upgrade graph: entries with replaces, skips and skipRange edges.
type Channel struct {
	Package string
	Name    string
	// Entries are in declaration order (FBC entries order; for bundle trees, bundle version
	// order ascending).
	Entries     []ChannelEntry
	Deprecation string
	Origin      diag.Origin
	// EdgesInCSVs says the entries' edges are written in each bundle's CSV (spec.replaces,
	// spec.skips: bundle trees and package manifests), not in the channel itself (Origin).
	EdgesInCSVs bool
}

// Entry returns the entry for the named bundle, or nil.
func (c *Channel) Entry(name string) *ChannelEntry {
	for i := range c.Entries {
		if c.Entries[i].Name == name {
			return &c.Entries[i]
		}
	}
	return nil
}

// ChannelEntry is one bundle's place in a channel, with the edges that lead to it.
type ChannelEntry struct {
	Name      string   `json:"name"`
	Replaces  string   `json:"replaces,omitempty"`
	Skips     []string `json:"skips,omitempty"`
	SkipRange string   `json:"skipRange,omitempty"`
}

// Property is a typed bundle property, as in FBC: {"type": ..., "value": <JSON>}.
type Property struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// Property types OLM and opm know.
const (
	TypePackage         = "olm.package"
	TypeGVK             = "olm.gvk"
	TypePackageRequired = "olm.package.required"
	TypeGVKRequired     = "olm.gvk.required"
	TypeLabel           = "olm.label"
	TypeLabelRequired   = "olm.label.required"
	TypeConstraint      = "olm.constraint"
	TypeDeprecated      = "olm.deprecated"
	TypeBundleObject    = "olm.bundle.object"
	TypeCSVMetadata     = "olm.csv.metadata"
	TypeChannel         = "olm.channel"
)

// PackageValue is the value of an olm.package property.
type PackageValue struct {
	PackageName string `json:"packageName"`
	Version     string `json:"version"`
	Release     string `json:"release,omitempty"`
}

// GVKValue is the value of olm.gvk and olm.gvk.required properties.
type GVKValue struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// PackageRequiredValue is the value of an olm.package.required property.
type PackageRequiredValue struct {
	PackageName  string `json:"packageName"`
	VersionRange string `json:"versionRange"`
}

// LabelValue is the value of olm.label and olm.label.required properties.
type LabelValue struct {
	Label string `json:"label"`
}

// RelatedImage is an image a bundle uses.
type RelatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

// Bundle is one operator version. Its properties are what the resolver reasons about; its
// manifests are what the renderer renders, loaded on first use.
type Bundle struct {
	Package string
	Name    string
	// Version is the olm.package property's version, parsed strictly.
	Version semver.Version
	// Image is the bundle image reference, when known.
	Image         string
	RelatedImages []RelatedImage
	// Properties are the bundle's properties as opm serves them to OLM, in order: declared
	// FBC properties, or for bundle directories the ones opm derives (olm.package, olm.gvk per
	// owned API, olm.gvk.required per required API, dependencies.yaml, properties.yaml).
	// olm.bundle.object and olm.csv.metadata are never in this list.
	Properties []Property
	// CSVMetadata is the olm.csv.metadata property value, when the catalog has one.
	CSVMetadata json.RawMessage
	// InlineObjects are the raw values of its olm.bundle.object properties, in order, when the
	// catalog inlines its manifests ({"data": <base64 manifest>}); decoded on first use.
	InlineObjects [][]byte
	// inlineAt are the indexes of the olm.bundle.object properties in the olm.bundle blob, for
	// messages.
	inlineAt []int
	// Channels lists the channels that hold this bundle, sorted.
	Channels []string
	// Deprecation is the olm.deprecations message for this bundle, if any.
	Deprecation string
	// Origin is the file that declared the bundle (the olm.bundle object, or the CSV file).
	Origin diag.Origin
	// DependenciesOrigin is the file its dependency properties were declared in when that is
	// not Origin (a bundle directory's metadata/dependencies.yaml or properties.yaml).
	DependenciesOrigin diag.Origin
	// Invalid are the problems that keep a bundle of a bundle tree from being rendered (a
	// manifest that does not decode or that the API server would refuse, an unreadable
	// dependencies.yaml). The bundle keeps its place in its channels, since OLM might choose it;
	// a resolution that chooses it fails with them, and Manifests returns them.
	Invalid diag.Problems

	// declaredAt are the fields where its declared properties were written (dependencies[0] of
	// metadata/dependencies.yaml, properties[2] of an olm.bundle blob), by property.
	declaredAt map[string]string

	manifests func() (*Manifests, error)
	provided  provided
	once      sync.Once
	loaded    *Manifests
	loadErr   error
	pinned    string
}

// PinnedImage returns the bundle image by digest: Image when it names a digest, else the digest
// its manifests were pulled at (set by the loader), else "".
func (b *Bundle) PinnedImage() string {
	if strings.Contains(b.Image, "@sha256:") {
		return b.Image
	}
	return b.pinned
}

// SetPinnedImage records the digest reference a bundle image given by tag was pulled at.
func (b *Bundle) SetPinnedImage(ref string) { b.pinned = ref }

// ErrNoManifests is returned by Bundle.Manifests when the snapshot carries only metadata for a
// bundle (an FBC olm.csv.metadata property without olm.bundle.object).
var ErrNoManifests = errors.New("the catalog has no manifests for this bundle")

// SetManifests sets the function that loads the bundle's manifests on first use. Loaders call
// it; nil means the snapshot has none (Manifests then returns ErrNoManifests).
func (b *Bundle) SetManifests(load func() (*Manifests, error)) { b.manifests = load }

// HasManifests reports whether the snapshot carries the bundle's manifests.
func (b *Bundle) HasManifests() bool { return b.manifests != nil }

// Manifests returns the bundle's CSV and other objects, loading them on first use. It is safe
// for concurrent use.
func (b *Bundle) Manifests() (*Manifests, error) {
	if b.manifests == nil {
		return nil, ErrNoManifests
	}
	b.once.Do(func() { b.loaded, b.loadErr = b.manifests() })
	return b.loaded, b.loadErr
}

// PropertiesOf returns the bundle's properties of one type, in order.
func (b *Bundle) PropertiesOf(typ string) []Property {
	var out []Property
	for _, p := range b.Properties {
		if p.Type == typ {
			out = append(out, p)
		}
	}
	return out
}

// Manifests are a bundle's Kubernetes objects.
type Manifests struct {
	// CSV is the ClusterServiceVersion, decoded into operator-framework/api's type (so that
	// re-encoding it gives the Go-struct JSON OLM's hashes are computed over).
	CSV *v1alpha1.ClusterServiceVersion
	// CSVOrigin is the file the CSV came from.
	CSVOrigin diag.Origin
	// Objects are every other manifest (CRDs first as found, then the rest), in file order.
	Objects []Object

	// digest identifies the files read (names and contents), for a lazy re-read to check;
	// csvName is the file the CSV came from (its name in the file system read).
	digest  [sha256.Size]byte
	csvName string
}

// Object is a non-CSV bundle manifest and where it came from.
type Object struct {
	*unstructured.Unstructured
	Origin diag.Origin
}

// Broken is a bundle directory of a snapshot that could not be loaded. It is not served, and
// resolving its package fails with its problems rather than choosing another bundle in its place.
type Broken struct {
	// Package is the bundle's package as far as it can be told (its annotations, or the name of
	// the package directory holding it); "" when unknown.
	Package string
	// Dir is the bundle directory, as messages show it.
	Dir string
	// Version is the version the directory's name gives (<package>/<version>/), when it is
	// one: a broken bundle older than the one a resolution chooses is not the one OLM would
	// choose.
	Version *semver.Version
	// Problems say why it could not be loaded.
	Problems diag.Problems
}

// LeftOut is a directory of a bundle tree that the catalog the community pipeline publishes holds
// no bundle from. It is counted and reported, never skipped without a word: a bundle in
// <version>/bundle/ (or another directory below <version>/), which the pipeline never builds; a
// bundle the package's catalog template lists in no channel; or a directory the loader does not
// understand (Unknown), which fails catalog validate.
type LeftOut struct {
	// Package is the package directory's name.
	Package string
	// Dir is the directory, as messages show it.
	Dir string
	// Unknown says the loader does not understand the directory's layout.
	Unknown bool
	// Problem says why it is left out, naming the directory (a warning).
	Problem diag.Problem
}

// declared is a property and the field it was declared at.
type declared struct {
	Property
	field string
}

// propertyKey keys a property by type and value.
func propertyKey(p Property) string { return p.Type + "\x00" + string(compactJSON(p.Value)) }

// declare records the field a property of the bundle was declared at.
func (b *Bundle) declare(p Property, field string) {
	if b.declaredAt == nil {
		b.declaredAt = map[string]string{}
	}
	if _, seen := b.declaredAt[propertyKey(p)]; !seen {
		b.declaredAt[propertyKey(p)] = field
	}
}

// Declared returns the field a property of the bundle was declared at, in the file
// DependenciesOrigin (or Origin) names: dependencies[0] of metadata/dependencies.yaml,
// properties[2] of metadata/properties.yaml or of the olm.bundle blob; "" when the loader derived
// it (olm.gvk of a CRD, say).
func (b *Bundle) Declared(p Property) string { return b.declaredAt[propertyKey(p)] }
