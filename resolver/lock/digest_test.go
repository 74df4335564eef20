package lock

import (
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// TestDigestOfImage: a bundle the catalog has no manifests for, whose image is named by digest,
// is digested by that digest without reading (pulling) its manifests; by tag, or with inline
// manifests, its manifests are read.
func TestDigestOfImage(t *testing.T) {
	const d = "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		name   string
		image  string
		inline bool
		wantOf string
		pulled bool
	}{
		{name: "by digest", image: "quay.io/x/bundle@" + d, wantOf: DigestOfImage},
		{name: "by tag", image: "quay.io/x/bundle:v1", wantOf: DigestOfMetadata, pulled: true},
		{name: "by digest, manifests inline", image: "quay.io/x/bundle@" + d, inline: true, wantOf: DigestOfMetadata, pulled: true},
		{name: "a digest that is not one", image: "quay.io/x/bundle@sha256:beef", wantOf: DigestOfMetadata, pulled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &catalog.Bundle{Name: "x.v1", Package: "x", Image: tt.image}
			if tt.inline {
				b.InlineObjects = [][]byte{[]byte(`{}`)}
			}
			pulled := false
			b.SetManifests(func() (*catalog.Manifests, error) { pulled = true; return nil, catalog.ErrNoManifests })
			got, of, err := Digest(b)
			if err != nil {
				t.Fatal(err)
			}
			if of != tt.wantOf || pulled != tt.pulled || NeedsManifests(b) != tt.pulled {
				t.Errorf("Digest: of %q, manifests read %v (NeedsManifests %v); want %q, %v", of, pulled, NeedsManifests(b), tt.wantOf, tt.pulled)
			}
			if of == DigestOfImage && got != d {
				t.Errorf("Digest = %s, want the image digest %s", got, d)
			}
			if !strings.HasPrefix(got, "sha256:") {
				t.Errorf("Digest = %q", got)
			}
		})
	}
}

// TestDiffAcrossDigestKinds: the same bundle digested over other content by an older lock
// (manifests, now its image digest) is no change of content.
func TestDiffAcrossDigestKinds(t *testing.T) {
	entry := func(digest, of string) *Lock {
		return &Lock{Namespaces: []Namespace{{Namespace: "operators", Subscriptions: []Entry{{
			Subscription: "x", Package: "x", Bundle: "x.v1", Digest: digest, DigestOf: of}}}}}
	}
	if cs := Diff(entry("sha256:aa", DigestOfManifests), entry("sha256:bb", DigestOfImage)); len(cs) != 0 {
		t.Errorf("Diff = %v, want no change", cs)
	}
	if cs := Diff(entry("sha256:aa", DigestOfImage), entry("sha256:bb", DigestOfImage)); len(cs) != 1 {
		t.Errorf("Diff = %v, want a change of content", cs)
	}
}
