package catalog

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/schemas/diag"
)

// modelVersion changes whenever what the loaders put into a Catalog changes, so that an encoded
// catalog of an older olm-render is never read as a current one.
const modelVersion = "olm-render-catalog-1"

// EncodingKey identifies this build's catalog encoding: the model version and the build's VCS
// revision when known. Caches of encoded catalogs key on it.
func EncodingKey() string {
	key := modelVersion
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				key += "+" + s.Value
			}
		}
	}
	return key
}

// Marshal encodes a loaded catalog (everything but manifests read from disk or pulled, which the
// loader attaches again) so that Unmarshal restores it without parsing the catalog again.
func Marshal(c *Catalog) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(c); err != nil {
		return nil, fmt.Errorf("encoding catalog %s: %w", c.Path, err)
	}
	return buf.Bytes(), nil
}

// Unmarshal decodes what Marshal encoded. Bundles with inline manifests get them back; bundles
// whose manifests came from elsewhere have none until the caller attaches them.
func Unmarshal(data []byte) (*Catalog, error) {
	c := &Catalog{}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(c); err != nil {
		return nil, fmt.Errorf("decoding a cached catalog: %w", err)
	}
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			b.attachInline()
		}
	}
	return c, nil
}

// encodedManifests is the JSON form of Manifests.
type encodedManifests struct {
	CSV       json.RawMessage `json:"csv"`
	CSVOrigin diag.Origin     `json:"csvOrigin"`
	Objects   []encodedObject `json:"objects"`
}

type encodedObject struct {
	Origin diag.Origin     `json:"origin"`
	Object json.RawMessage `json:"object"`
}

// MarshalManifests encodes a bundle's manifests as JSON, so that UnmarshalManifests restores
// them without parsing their YAML again.
func MarshalManifests(m *Manifests) ([]byte, error) {
	csv, err := json.Marshal(m.CSV)
	if err != nil {
		return nil, fmt.Errorf("encoding ClusterServiceVersion %s: %w", m.CSV.Name, err)
	}
	out := encodedManifests{CSV: csv, CSVOrigin: m.CSVOrigin, Objects: make([]encodedObject, len(m.Objects))}
	for i, o := range m.Objects {
		js, err := o.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encoding %s %s: %w", o.GetKind(), o.GetName(), err)
		}
		out.Objects[i] = encodedObject{Origin: o.Origin, Object: js}
	}
	return json.Marshal(out)
}

// UnmarshalManifests decodes what MarshalManifests encoded.
func UnmarshalManifests(data []byte) (*Manifests, error) {
	var in encodedManifests
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("decoding cached manifests: %w", err)
	}
	m := &Manifests{CSV: &v1alpha1.ClusterServiceVersion{}, CSVOrigin: in.CSVOrigin}
	if err := json.Unmarshal(in.CSV, m.CSV); err != nil {
		return nil, fmt.Errorf("decoding cached manifests: %w", err)
	}
	for _, o := range in.Objects {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(o.Object); err != nil {
			return nil, fmt.Errorf("decoding cached manifests: %w", err)
		}
		m.Objects = append(m.Objects, Object{Unstructured: u, Origin: o.Origin})
	}
	return m, nil
}
