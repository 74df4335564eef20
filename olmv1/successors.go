package olmv1

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// Successors returns the bundles of package pkg operator-controller accepts as the next install
// from the installed bundle under upgradeConstraintPolicy CatalogProvided
// (catalogmetadata/filter/successors.go SuccessorsOf, resolve/catalog.go): the bundles of the
// named channels (of every channel when none is named) whose entry in one of those channels
// replaces or skips the installed bundle, or whose skipRange holds its version; and the bundles
// of the installed bundle's exact version and release (staying put). They are sorted as v1
// prefers them: bundles not deprecated first, then by version and release, highest first.
// A pinned version (a ClusterExtension's spec.source.catalog.version) is accepted only when it
// names one of them.
func Successors(cat *catalog.Catalog, pkg string, installed *catalog.Bundle, channels []string) []*catalog.Bundle {
	p := cat.Package(pkg)
	if p == nil || installed == nil {
		return nil
	}
	chs := channelsOf(p, channels)
	from := versionRelease(installed.Version)
	var out []*catalog.Bundle
	for _, b := range p.Bundles {
		if len(channels) > 0 && !inAnyChannel(b, chs) {
			continue
		}
		if succeeds(b, installed, chs) || versionRelease(b.Version).compare(from) == 0 {
			out = append(out, b)
		}
	}
	slices.SortStableFunc(out, preferred)
	return out
}

// NextHop returns the bundle operator-controller moves to from the installed one when nothing
// pins a version (the first of Successors), or nil when it stays: one hop of an upgrade, the
// version to pin next.
func NextHop(cat *catalog.Catalog, pkg string, installed *catalog.Bundle, channels []string) *catalog.Bundle {
	s := Successors(cat, pkg, installed, channels)
	if len(s) == 0 || versionRelease(s[0].Version).compare(versionRelease(installed.Version)) == 0 {
		return nil
	}
	return s[0]
}

// CheckHop reports whether operator-controller moves from the installed bundle to the target
// when a ClusterExtension pins the target's version under CatalogProvided: the version must be
// that of the installed bundle or of one of its Successors (the pin ignores build metadata, so
// any of them with that version). Otherwise the error names the hops v1 accepts.
func CheckHop(cat *catalog.Catalog, pkg string, installed, target *catalog.Bundle, channels []string) error {
	succ := Successors(cat, pkg, installed, channels)
	if slices.ContainsFunc(succ, func(b *catalog.Bundle) bool { return b.Version.Compare(target.Version) == 0 }) {
		return nil
	}
	var hops []string
	for _, b := range succ {
		if b.Name != installed.Name {
			hops = append(hops, b.Name+" ("+b.Version.String()+")")
		}
	}
	where := "in channels " + strings.Join(channels, ", ")
	if len(channels) == 0 {
		where = "in any channel"
	}
	accepted := "none: " + installed.Name + " is the last bundle it reaches"
	if len(hops) > 0 {
		accepted = strings.Join(hops, ", ")
	}
	return fmt.Errorf("OLM v1 does not move %s from %s to %s: with upgradeConstraintPolicy CatalogProvided, a pinned version must be the installed bundle's or one of a bundle that replaces, skips or skipRange-covers it %s (catalogmetadata/filter/successors.go); from %s it accepts %s: pin one hop at a time",
		pkg, installed.Name, target.Name, where, installed.Name, accepted)
}

// channelsOf returns the named channels of a package (every channel when none is named).
func channelsOf(p *catalog.Package, names []string) []*catalog.Channel {
	if len(names) == 0 {
		return p.Channels
	}
	var out []*catalog.Channel
	for _, ch := range p.Channels {
		if slices.Contains(names, ch.Name) {
			out = append(out, ch)
		}
	}
	return out
}

// inAnyChannel reports whether one of the channels holds the bundle.
func inAnyChannel(b *catalog.Bundle, chs []*catalog.Channel) bool {
	return slices.ContainsFunc(chs, func(ch *catalog.Channel) bool { return ch.Entry(b.Name) != nil })
}

// succeeds reports whether the bundle's entry in one of the channels replaces or skips the
// installed bundle, or its skipRange (read with blang/semver, as OLM v0 reads it) holds the
// installed version.
func succeeds(b, installed *catalog.Bundle, chs []*catalog.Channel) bool {
	for _, ch := range chs {
		e := ch.Entry(b.Name)
		if e == nil {
			continue
		}
		if e.Replaces == installed.Name || slices.Contains(e.Skips, installed.Name) {
			return true
		}
		if e.SkipRange == "" {
			continue
		}
		if r, err := semver.ParseRange(e.SkipRange); err == nil && r(installed.Version) {
			return true
		}
	}
	return false
}

// preferred orders bundles as v1 prefers them: not deprecated first, then the highest version
// and release.
func preferred(a, b *catalog.Bundle) int {
	da, db := a.Deprecation != "", b.Deprecation != ""
	if da != db {
		if da {
			return 1
		}
		return -1
	}
	return versionRelease(b.Version).compare(versionRelease(a.Version))
}

// vr is a registry+v1 bundle's version and release: the release is its version's build
// metadata, when that parses as dot-separated semver prerelease identifiers of at most 20
// characters (operator-registry model.NewRelease, operator-controller
// bundleutil.ParseLegacyVersionRelease); the version then has no build metadata.
type vr struct {
	version semver.Version
	release []semver.PRVersion
}

// versionRelease splits a bundle version into its version and release.
func versionRelease(v semver.Version) vr {
	build := strings.Join(v.Build, ".")
	if build == "" || len(build) > 20 {
		return vr{version: v}
	}
	var rel []semver.PRVersion
	for _, seg := range strings.Split(build, ".") {
		pr, err := semver.NewPRVersion(seg)
		if err != nil {
			return vr{version: v}
		}
		rel = append(rel, pr)
	}
	v.Build = nil
	return vr{version: v, release: rel}
}

// compare orders version and release: version first (build metadata ignored), then release,
// where none is lower than any.
func (a vr) compare(b vr) int {
	if c := a.version.Compare(b.version); c != 0 {
		return c
	}
	switch {
	case len(a.release) == 0 && len(b.release) == 0:
		return 0
	case len(a.release) == 0:
		return -1
	case len(b.release) == 0:
		return 1
	}
	return semver.Version{Pre: a.release}.Compare(semver.Version{Pre: b.release})
}
