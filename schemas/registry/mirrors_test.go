package registry

import (
	"slices"
	"testing"
)

// TestCandidates: mirrors apply as a node's registries.conf applies them: by kind of pull
// (digest mirrors to digests, tag mirrors to tags), the closest source only, the rules of one
// source merged in the order declared, and the source itself last unless a rule forbids it.
func TestCandidates(t *testing.T) {
	const d = "@sha256:0123456789012345678901234567890123456789012345678901234567890123"
	mirrors := []Mirror{
		{Source: "registry.redhat.io", Mirrors: []string{"mirror.corp/all"}},
		{Source: "registry.redhat.io/redhat", Mirrors: []string{"mirror.corp/a/redhat", "mirror.corp/b/redhat"}},
		{Source: "registry.redhat.io/redhat", Mirrors: []string{"mirror.corp/b/redhat", "mirror.corp/c/redhat"}},
		{Source: "registry.redhat.io/redhat/", Mirrors: []string{"mirror.corp/d/redhat"}, NeverContactSource: true, From: "ImageDigestMirrorSet/idms-operator-0"},
		{Source: "registry.redhat.io/redhat", Mirrors: []string{"mirror.corp/tags/redhat"}, Tags: true},
		{Source: "quay.io/operatorhubio", Mirrors: []string{"mirror.corp/hub"}, Tags: true},
	}
	tests := []struct {
		ref  string
		want []string
	}{
		{"registry.redhat.io/redhat/index" + d, []string{
			"mirror.corp/a/redhat/index" + d, "mirror.corp/b/redhat/index" + d, "mirror.corp/c/redhat/index" + d, "mirror.corp/d/redhat/index" + d}},
		{"registry.redhat.io/other/x" + d, []string{"mirror.corp/all/other/x" + d, "registry.redhat.io/other/x" + d}},
		{"registry.redhat.io/redhat/index:v4.18", []string{"mirror.corp/tags/redhat/index:v4.18", "registry.redhat.io/redhat/index:v4.18"}},
		{"quay.io/operatorhubio/catalog" + d, []string{"quay.io/operatorhubio/catalog" + d}},
		{"quay.io/operatorhubio/catalog:latest", []string{"mirror.corp/hub/catalog:latest", "quay.io/operatorhubio/catalog:latest"}},
		{"registry.redhat.io/redhatx/index" + d, []string{"mirror.corp/all/redhatx/index" + d, "registry.redhat.io/redhatx/index" + d}},
	}
	for _, tt := range tests {
		p, err := parse(tt.ref)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range candidates(p, mirrors) {
			got = append(got, c.String())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("candidates(%s)\n got %q\nwant %q", tt.ref, got, tt.want)
		}
	}
}
