package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WriteOptions control WriteFBC.
type WriteOptions struct {
	// Objects inlines every bundle's manifests as olm.bundle.object properties (the bundles must
	// have manifests); otherwise a bundle carries only its metadata.
	Objects bool
	// CSVMetadata adds an olm.csv.metadata property derived from each bundle's CSV, as
	// `opm render --migrate-level bundle-object-to-csv-metadata` does (kept when the catalog
	// already has one).
	CSVMetadata bool
	// Image returns the image reference written for a bundle; the bundle's own Image when nil.
	Image func(*Bundle) string
}

// WriteFBC writes c as a file-based catalog: a JSON stream of olm.package, olm.channel,
// olm.bundle and olm.deprecations objects, packages in name order and, within one, channels and
// bundles in name order (operator-registry's declcfg writer order), so the output is
// deterministic.
func WriteFBC(w io.Writer, c *Catalog, opts WriteOptions) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	for _, p := range c.Packages {
		if err := writePackage(enc, p, opts); err != nil {
			return err
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func writePackage(enc *json.Encoder, p *Package, opts WriteOptions) error {
	if err := enc.Encode(fbcPackageOut{Schema: SchemaPackage, Name: p.Name, DefaultChannel: p.DefaultChannel, Description: p.Description}); err != nil {
		return err
	}
	for _, ch := range p.Channels {
		entries := ch.Entries
		if entries == nil {
			entries = []ChannelEntry{}
		}
		if err := enc.Encode(fbcChannelOut{Schema: SchemaChannel, Package: p.Name, Name: ch.Name, Entries: entries}); err != nil {
			return err
		}
	}
	for _, b := range p.Bundles {
		out, err := bundleOut(b, opts)
		if err != nil {
			return err
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	if d := deprecationsOut(p); d != nil {
		return enc.Encode(d)
	}
	return nil
}

type fbcPackageOut struct {
	Schema         string `json:"schema"`
	Name           string `json:"name"`
	DefaultChannel string `json:"defaultChannel,omitempty"`
	Description    string `json:"description,omitempty"`
}

type fbcChannelOut struct {
	Schema  string         `json:"schema"`
	Package string         `json:"package"`
	Name    string         `json:"name"`
	Entries []ChannelEntry `json:"entries"`
}

type fbcBundleOut struct {
	Schema        string         `json:"schema"`
	Name          string         `json:"name"`
	Package       string         `json:"package"`
	Image         string         `json:"image"`
	Properties    []Property     `json:"properties,omitempty"`
	RelatedImages []RelatedImage `json:"relatedImages,omitempty"`
}

// bundleOut builds a bundle's olm.bundle object: its properties, then olm.csv.metadata, then
// olm.bundle.object manifests (CSV first, then the other objects in bundle order).
func bundleOut(b *Bundle, opts WriteOptions) (fbcBundleOut, error) {
	out := fbcBundleOut{Schema: SchemaBundle, Name: b.Name, Package: b.Package, Image: b.Image, RelatedImages: b.RelatedImages,
		Properties: slices.Clone(b.Properties)}
	if opts.Image != nil {
		out.Image = opts.Image(b)
	}
	meta, err := csvMetadataOf(b, opts)
	if err != nil {
		return out, err
	}
	if meta != nil {
		out.Properties = append(out.Properties, Property{Type: TypeCSVMetadata, Value: meta})
	}
	if opts.Objects {
		objs, err := bundleObjects(b)
		if err != nil {
			return out, err
		}
		out.Properties = append(out.Properties, objs...)
	}
	return out, nil
}

func csvMetadataOf(b *Bundle, opts WriteOptions) (json.RawMessage, error) {
	if b.CSVMetadata != nil || !opts.CSVMetadata {
		return b.CSVMetadata, nil
	}
	m, err := b.Manifests()
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	return CSVMetadataOf(m.CSV)
}

// bundleObjects returns a bundle's manifests as olm.bundle.object properties.
func bundleObjects(b *Bundle) ([]Property, error) {
	m, err := b.Manifests()
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	csv, err := json.Marshal(m.CSV)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: encoding the CSV: %w", b.Name, err)
	}
	out := []Property{objectProperty(csv)}
	for _, o := range m.Objects {
		data, err := json.Marshal(o.Object)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: encoding %s %s: %w", b.Name, o.GetKind(), o.GetName(), err)
		}
		out = append(out, objectProperty(data))
	}
	return out, nil
}

func objectProperty(data []byte) Property {
	return mustProperty(TypeBundleObject, struct {
		Data []byte `json:"data"`
	}{data})
}

// csvMetadata is the value of an olm.csv.metadata property: the CSV minus its install strategy,
// as operator-registry's property.MustBuildCSVMetadata builds it.
type csvMetadata struct {
	Annotations               map[string]string                  `json:"annotations,omitempty"`
	APIServiceDefinitions     v1alpha1.APIServiceDefinitions     `json:"apiServiceDefinitions,omitempty"`
	CustomResourceDefinitions v1alpha1.CustomResourceDefinitions `json:"crdDescriptions,omitempty"`
	Description               string                             `json:"description,omitempty"`
	DisplayName               string                             `json:"displayName,omitempty"`
	InstallModes              []v1alpha1.InstallMode             `json:"installModes,omitempty"`
	Keywords                  []string                           `json:"keywords,omitempty"`
	Labels                    map[string]string                  `json:"labels,omitempty"`
	Links                     []v1alpha1.AppLink                 `json:"links,omitempty"`
	Maintainers               []v1alpha1.Maintainer              `json:"maintainers,omitempty"`
	Maturity                  string                             `json:"maturity,omitempty"`
	MinKubeVersion            string                             `json:"minKubeVersion,omitempty"`
	NativeAPIs                []metav1.GroupVersionKind          `json:"nativeAPIs,omitempty"`
	Provider                  v1alpha1.AppLink                   `json:"provider,omitempty"`
}

// CSVMetadataOf builds the olm.csv.metadata value of a CSV.
func CSVMetadataOf(csv *v1alpha1.ClusterServiceVersion) (json.RawMessage, error) {
	m := csvMetadata{
		Annotations: csv.Annotations, APIServiceDefinitions: csv.Spec.APIServiceDefinitions,
		CustomResourceDefinitions: csv.Spec.CustomResourceDefinitions, Description: csv.Spec.Description,
		DisplayName: csv.Spec.DisplayName, InstallModes: csv.Spec.InstallModes, Keywords: csv.Spec.Keywords,
		Labels: csv.Labels, Links: csv.Spec.Links, Maintainers: csv.Spec.Maintainers, Maturity: csv.Spec.Maturity,
		MinKubeVersion: csv.Spec.MinKubeVersion, NativeAPIs: csv.Spec.NativeAPIs, Provider: csv.Spec.Provider,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("ClusterServiceVersion %s: encoding olm.csv.metadata: %w", csv.Name, err)
	}
	return compactJSON(buf.Bytes()), nil
}

type fbcDeprecationsOut struct {
	Schema  string           `json:"schema"`
	Package string           `json:"package"`
	Entries []deprecationOut `json:"entries"`
}

type deprecationOut struct {
	Reference struct {
		Schema string `json:"schema"`
		Name   string `json:"name,omitempty"`
	} `json:"reference"`
	Message string `json:"message"`
}

// deprecationsOut collects a package's deprecation messages into one olm.deprecations object.
func deprecationsOut(p *Package) *fbcDeprecationsOut {
	d := &fbcDeprecationsOut{Schema: SchemaDeprecations, Package: p.Name}
	add := func(schema, name, msg string) {
		if msg == "" {
			return
		}
		var e deprecationOut
		e.Reference.Schema, e.Reference.Name, e.Message = schema, name, msg
		d.Entries = append(d.Entries, e)
	}
	add(SchemaPackage, "", p.Deprecation)
	for _, ch := range p.Channels {
		add(SchemaChannel, ch.Name, ch.Deprecation)
	}
	for _, b := range p.Bundles {
		add(SchemaBundle, b.Name, b.Deprecation)
	}
	if len(d.Entries) == 0 {
		return nil
	}
	return d
}
