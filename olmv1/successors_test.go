package olmv1

import (
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// testCatalog builds a catalog of one package from channels of entries; every bundle an entry
// names exists, at the version its name ends with (<package>.v<version>).
func testCatalog(pkg string, channels map[string][]catalog.ChannelEntry, deprecated ...string) *catalog.Catalog {
	p := &catalog.Package{Name: pkg}
	for _, name := range sortedKeys(channels) {
		p.Channels = append(p.Channels, &catalog.Channel{Package: pkg, Name: name, Entries: channels[name]})
		for _, e := range channels[name] {
			if p.Bundle(e.Name) != nil {
				continue
			}
			b := testBundle(pkg, e.Name)
			if slices.Contains(deprecated, e.Name) {
				b.Deprecation = "deprecated"
			}
			p.Bundles = append(p.Bundles, b)
		}
	}
	return &catalog.Catalog{Packages: []*catalog.Package{p}}
}

// testBundle is a bundle named <package>.v<version>.
func testBundle(pkg, name string) *catalog.Bundle {
	_, v, _ := strings.Cut(name, ".v")
	return &catalog.Bundle{Package: pkg, Name: name, Version: semver.MustParse(v)}
}

// names lists bundles by name.
func names(bs []*catalog.Bundle) []string {
	out := []string{}
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

// TestSuccessors mirrors operator-controller's successors_test.go (TestSuccessorsPredicate,
// TestLegacySuccessor): replaces, skips and skipRange lead on, the installed version stays
// (build metadata as a release, matched exactly), and nothing follows a bundle the catalog does
// not hold; plus the channels that limit the edges, and deprecated bundles sorting last.
func TestSuccessors(t *testing.T) {
	upstream := testCatalog("test-package", map[string][]catalog.ChannelEntry{"stable": {
		{Name: "test-package.v2.0.0"},
		{Name: "test-package.v2.1.0", Replaces: "test-package.v2.0.0"},
		{Name: "test-package.v2.2.0", Replaces: "test-package.v2.1.0", Skips: []string{"test-package.v2.0.0+1"}},
		{Name: "test-package.v2.2.1"},
		{Name: "test-package.v2.3.0", Replaces: "test-package.v2.2.0", Skips: []string{"test-package.v2.2.1"}},
		{Name: "test-package.v2.4.0", SkipRange: ">=2.3.0 <2.4.0"},
		{Name: "test-package.v2.0.0+1"},
	}})
	legacy := testCatalog("package1", map[string][]catalog.ChannelEntry{"alpha": {
		{Name: "package1.v0.0.1"},
		{Name: "package1.v0.0.2", Replaces: "package1.v0.0.1"},
		{Name: "package1.v0.0.3", Replaces: "package1.v0.0.2"},
		{Name: "package1.v0.0.4", Skips: []string{"package1.v0.0.1"}},
		{Name: "package1.v0.0.5", SkipRange: "<=0.0.1"},
	}})
	channels := testCatalog("chans", map[string][]catalog.ChannelEntry{
		"fast":   {{Name: "chans.v1.0.0"}, {Name: "chans.v1.2.0", Replaces: "chans.v1.0.0"}},
		"stable": {{Name: "chans.v1.0.0"}, {Name: "chans.v1.1.0", Replaces: "chans.v1.0.0"}},
	})
	deprecated := testCatalog("dep", map[string][]catalog.ChannelEntry{"stable": {
		{Name: "dep.v1.0.0"}, {Name: "dep.v1.1.0", Replaces: "dep.v1.0.0"}, {Name: "dep.v1.2.0", Skips: []string{"dep.v1.0.0"}},
	}}, "dep.v1.2.0")
	tests := []struct {
		name      string
		cat       *catalog.Catalog
		installed string
		channels  []string
		want      []string
		next      string
	}{
		{"respect replaces directive from catalog", upstream, "test-package.v2.0.0", nil, []string{"test-package.v2.1.0", "test-package.v2.0.0"}, "test-package.v2.1.0"},
		{"respect skips directive from catalog", upstream, "test-package.v2.2.1", nil, []string{"test-package.v2.3.0", "test-package.v2.2.1"}, "test-package.v2.3.0"},
		{"respect skipRange directive from catalog", upstream, "test-package.v2.3.0", nil, []string{"test-package.v2.4.0", "test-package.v2.3.0"}, "test-package.v2.4.0"},
		{"installed bundle matcher is exact", upstream, "test-package.v2.0.0+1", nil, []string{"test-package.v2.2.0", "test-package.v2.0.0+1"}, "test-package.v2.2.0"},
		{"installed bundle not found", upstream, "test-package.v9.0.0", nil, []string{}, ""},
		{"the channel head stays", upstream, "test-package.v2.4.0", nil, []string{"test-package.v2.4.0"}, ""},
		{"legacy successor: replaces, skips, skipRange, not the replaces of the replaces", legacy, "package1.v0.0.1", nil,
			[]string{"package1.v0.0.5", "package1.v0.0.4", "package1.v0.0.2", "package1.v0.0.1"}, "package1.v0.0.5"},
		{"every channel's edges when none is named", channels, "chans.v1.0.0", nil, []string{"chans.v1.2.0", "chans.v1.1.0", "chans.v1.0.0"}, "chans.v1.2.0"},
		{"only the named channel's edges", channels, "chans.v1.0.0", []string{"stable"}, []string{"chans.v1.1.0", "chans.v1.0.0"}, "chans.v1.1.0"},
		{"deprecated bundles last", deprecated, "dep.v1.0.0", nil, []string{"dep.v1.1.0", "dep.v1.0.0", "dep.v1.2.0"}, "dep.v1.1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pkg := tt.cat.Packages[0]
			installed := pkg.Bundle(tt.installed)
			if installed == nil {
				installed = testBundle(pkg.Name, tt.installed)
			}
			if got := names(Successors(tt.cat, pkg.Name, installed, tt.channels)); !slices.Equal(got, tt.want) {
				t.Errorf("Successors = %v, want %v", got, tt.want)
			}
			next := ""
			if b := NextHop(tt.cat, pkg.Name, installed, tt.channels); b != nil {
				next = b.Name
			}
			if next != tt.next {
				t.Errorf("NextHop = %q, want %q", next, tt.next)
			}
		})
	}
}

// TestVersionRelease: build metadata that parses as a release orders bundles of one version;
// other build metadata is ignored, as semver ignores it.
func TestVersionRelease(t *testing.T) {
	order := []string{"1.0.0-rc.1", "1.0.0", "1.0.0+1", "1.0.0+2", "1.0.0+10", "1.0.0+10.a", "1.1.0"}
	for i := 1; i < len(order); i++ {
		a, b := versionRelease(semver.MustParse(order[i-1])), versionRelease(semver.MustParse(order[i]))
		if a.compare(b) >= 0 || b.compare(a) <= 0 {
			t.Errorf("%s is not below %s", order[i-1], order[i])
		}
	}
	if versionRelease(semver.MustParse("1.0.0+01")).compare(versionRelease(semver.MustParse("1.0.0+abc.02"))) != 0 {
		t.Error("build metadata that is no release should be ignored")
	}
}

// TestCheckHop: a pin to a direct successor (or to the installed version) is accepted; a jump
// over one is refused, naming the hops v1 accepts.
func TestCheckHop(t *testing.T) {
	cat := testCatalog("p", map[string][]catalog.ChannelEntry{"stable": {
		{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}, {Name: "p.v1.2.0", Replaces: "p.v1.1.0"},
	}})
	pkg := cat.Packages[0]
	from := pkg.Bundle("p.v1.0.0")
	for _, to := range []string{"p.v1.0.0", "p.v1.1.0"} {
		if err := CheckHop(cat, "p", from, pkg.Bundle(to), []string{"stable"}); err != nil {
			t.Errorf("%s to %s: %v", from.Name, to, err)
		}
	}
	err := CheckHop(cat, "p", from, pkg.Bundle("p.v1.2.0"), []string{"stable"})
	if err == nil || !strings.Contains(err.Error(), "from p.v1.0.0 it accepts p.v1.1.0 (1.1.0): pin one hop at a time") {
		t.Errorf("a jump of two hops: %v", err)
	}
	err = CheckHop(cat, "p", pkg.Bundle("p.v1.2.0"), from, nil)
	if err == nil || !strings.Contains(err.Error(), "it accepts none: p.v1.2.0 is the last bundle it reaches") {
		t.Errorf("a downgrade: %v", err)
	}
}
