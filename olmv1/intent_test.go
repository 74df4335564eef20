package olmv1

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

const (
	digestA = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	digestB = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// vendored is a snapshot olm-render catalog pull vendored from image.
func vendored(image string) *catalog.Catalog {
	src, _ := json.Marshal(catalog.Source{Schema: catalog.SourceSchema, Image: image})
	return &catalog.Catalog{Path: "catalogs/community", Others: []json.RawMessage{src}}
}

// TestCatalogImage pins a CatalogSource's ClusterCatalog as --olm=running pins the
// CatalogSource: by the digest the catalog was read at (pulled, or recorded in a vendored
// snapshot), in spec.image's repository; a digest typed in spec.image when the snapshot records
// none; an error when it cannot know one, when spec.image pins another, or when there is no
// image; a warning for a repository that neither is where the catalog was read nor mirrors it.
func TestCatalogImage(t *testing.T) {
	tests := []struct {
		name, image string
		bound       *catalog.Catalog
		from        inputs.Source
		mirrors     []inputs.ImageMirror
		want, err   string
		warning     string
	}{
		{name: "vendored snapshot", image: "registry.redhat.io/redhat/community-operator-index:v4.16", bound: vendored("registry.redhat.io/redhat/community-operator-index@" + digestA),
			want: "registry.redhat.io/redhat/community-operator-index@" + digestA},
		{name: "pulled index", image: "quay.io/acme/index:latest", from: inputs.Source{Image: "quay.io/acme/index:latest"},
			bound: &catalog.Catalog{Image: "quay.io/acme/index@" + digestB}, want: "quay.io/acme/index@" + digestB},
		{name: "digest typed by hand", image: "quay.io/acme/index@" + digestB, bound: &catalog.Catalog{Path: "catalogs/acme"},
			want: "quay.io/acme/index@" + digestB},
		{name: "tag without a digest anywhere", image: "quay.io/acme/index:latest", bound: &catalog.Catalog{Path: "catalogs/acme"},
			err: "spec.image quay.io/acme/index:latest is a tag, and olm-render read this catalog from the snapshot the olm-render.dev/catalog annotation binds, which records no index digest"},
		{name: "another digest than read", image: "registry.redhat.io/redhat/community-operator-index@" + digestB, bound: vendored("registry.redhat.io/redhat/community-operator-index@" + digestA),
			err: "spec.image pins " + digestB + ", but olm-render read this catalog at " + digestA},
		{name: "no image", bound: &catalog.Catalog{Path: "catalogs/acme"},
			err: "a ClusterCatalog serves an index image (spec.source.image.ref), and this CatalogSource has none"},
		{name: "mirror", image: "mirror.example.com/redhat/community-operator-index:v4.16", bound: vendored("registry.redhat.io/redhat/community-operator-index@" + digestA),
			mirrors: []inputs.ImageMirror{{Source: "registry.redhat.io/redhat", Mirrors: []string{"mirror.example.com/redhat"}}},
			want:    "mirror.example.com/redhat/community-operator-index@" + digestA},
		{name: "unrelated repository", image: "quay.io/elsewhere/index:v4.16", bound: vendored("registry.redhat.io/redhat/community-operator-index@" + digestA),
			want: "quay.io/elsewhere/index@" + digestA, warning: "which no ImageDigestMirrorSet or ImageContentSourcePolicy among the inputs mirrors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := &inputs.CatalogSource{Origin: diag.Origin{File: "catalogsource.yaml"}, CatalogSource: v1alpha1.CatalogSource{
				ObjectMeta: metav1.ObjectMeta{Name: "community", Namespace: "olm", Annotations: map[string]string{inputs.CatalogAnnotation: "catalogs/community"}},
				Spec:       v1alpha1.CatalogSourceSpec{Image: tt.image}}}
			set := &inputs.Set{CatalogSources: []*inputs.CatalogSource{cs}, ImageMirrors: tt.mirrors,
				Catalogs: []*inputs.Catalog{{Name: "community", Namespace: "olm", Source: cs, From: tt.from, Catalog: tt.bound}}}
			got, warnings, err := catalogImage(set, cs)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "catalogsource.yaml: CatalogSource olm/community: ") {
					t.Fatalf("error %v, want one naming the file and saying %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("catalogImage = %q, %v, want %q", got, err, tt.want)
			}
			if tt.warning == "" && len(warnings) > 0 || tt.warning != "" && !slices.ContainsFunc(warnings, func(p diag.Problem) bool { return strings.Contains(p.Message, tt.warning) }) {
				t.Errorf("warnings %v, want %q", warnings, tt.warning)
			}
		})
	}
}

// TestClusterCatalogNames: a ClusterCatalog is named after its CatalogSource, or after it and
// its namespace where CatalogSources of several namespaces share the name.
func TestClusterCatalogNames(t *testing.T) {
	cs := func(ns, name string) *inputs.CatalogSource {
		return &inputs.CatalogSource{CatalogSource: v1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}}
	}
	got := clusterCatalogNames(&inputs.Set{CatalogSources: []*inputs.CatalogSource{cs("olm", "community"), cs("team", "community"), cs("olm", "certified")}})
	want := map[string]string{"olm/community": "community-olm", "team/community": "community-team", "olm/certified": "certified"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}

// TestParseOptions parses operator-controller versions and feature gates as the command line
// gives them.
func TestParseOptions(t *testing.T) {
	for in, want := range map[string]Version{"": DefaultVersion, "v1.10": {1, 10}, "1.9.3": {1, 9}, "v1.11.0": {1, 11}} {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"v2.0", "latest", "1"} {
		if _, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q): no error", in)
		}
	}
	if !(Version{1, 10}).NeedsServiceAccount() || DefaultVersion.NeedsServiceAccount() {
		t.Error("the ServiceAccount switch is at v1.11")
	}
	got, err := ParseGates([]string{"SingleOwnNamespaceInstallSupport=true,DeploymentConfig", "DeploymentConfig=false"})
	if err != nil || !slices.Equal(got, []Gate{SingleOwnNamespaceInstallSupport}) {
		t.Errorf("ParseGates = %v, %v", got, err)
	}
	if _, err := ParseGates([]string{"BoxcutterRuntime=true"}); err == nil || !strings.Contains(err.Error(), "olm-render knows DeploymentConfig and SingleOwnNamespaceInstallSupport") {
		t.Errorf("an unknown gate: %v", err)
	}
	if _, err := (Options{CertProvider: "olm"}).withDefaults(); err == nil {
		t.Error("OLM v0's own certificates for v1: no error")
	}
}
