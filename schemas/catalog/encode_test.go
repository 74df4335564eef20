package catalog

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/olm-render/olm-render/test/fixture/corpus"
)

// TestMarshalRoundTrip: a catalog decoded from its encoding writes the same file-based catalog,
// inline manifests included.
func TestMarshalRoundTrip(t *testing.T) {
	shared := corpus.Dir(t)
	for _, dir := range []string{
		filepath.Join(shared, "fbc", "community-operators-prod", "catalogs", "v4.16"),
		filepath.Join(shared, "fbc", "community-operators-prod", "catalogs", "v4.18"),
		filepath.Join(shared, "fbc", "operator-registry", "fbc-dir", "file-based-catalog"),
	} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			c, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			data, err := Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Unmarshal(data)
			if err != nil {
				t.Fatal(err)
			}
			if want, got := fbcOf(t, c), fbcOf(t, back); !bytes.Equal(want, got) {
				t.Fatal("the decoded catalog differs")
			}
		})
	}
}

func fbcOf(t *testing.T, c *Catalog) []byte {
	t.Helper()
	inline := false
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			inline = inline || b.HasManifests()
		}
	}
	var buf bytes.Buffer
	if err := WriteFBC(&buf, c, WriteOptions{Objects: inline}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
