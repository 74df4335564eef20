package catalog

import (
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// packageManifest is a legacy <pkg>.package.yaml.
type packageManifest struct {
	PackageName string `json:"packageName"`
	Channels    []struct {
		Name       string `json:"name"`
		CurrentCSV string `json:"currentCSV"`
	} `json:"channels"`
	DefaultChannel string `json:"defaultChannelName"`
}

// loadPackageManifests reads one package-manifest directory (a <pkg>.package.yaml beside
// version folders) or a directory of them.
func loadPackageManifests(fsys rootfs.FS, root string) (*Catalog, diag.Problems) {
	var problems diag.Problems
	c := &Catalog{}
	dirs := []string{root}
	entries, _ := readDir(fsys, root, &problems)
	if packageYAML(entries) == "" {
		dirs = nil
		for _, e := range entries {
			sub := path.Join(root, e.Name())
			if sube, _ := readDir(fsys, sub, &problems); e.IsDir() && packageYAML(sube) != "" {
				dirs = append(dirs, sub)
			}
		}
	}
	for _, dir := range dirs {
		if p := loadPackageManifest(fsys, dir, &problems); p != nil {
			c.Packages = append(c.Packages, p)
		}
	}
	return c, problems
}

// packageYAML returns the first *.package.yaml of a directory listing, or "".
func packageYAML(entries []fs.DirEntry) string {
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".package.yaml") {
			return e.Name()
		}
	}
	return ""
}

func loadPackageManifest(fsys rootfs.FS, dir string, problems *diag.Problems) *Package {
	entries, err := readDir(fsys, dir, problems)
	if err != nil {
		problems.Errorf(diag.Origin{File: fsys.Path(dir)}, "", "", "cannot read package directory: %s", rootfs.Describe(err))
		return nil
	}
	name := path.Join(dir, packageYAML(entries))
	file := fsys.Path(name)
	data, err := fsys.ReadFile(name)
	if err != nil {
		problems.Errorf(diag.Origin{File: file}, "", "", "cannot read package manifest: %s", rootfs.Describe(err))
		return nil
	}
	var pm packageManifest
	if err := yaml.UnmarshalStrict(data, &pm); err != nil {
		problems.Errorf(diag.Origin{File: file}, "", "", "invalid package manifest: %s", diag.Decoding(err))
		return nil
	}
	origin := diag.Origin{File: file}
	if pm.PackageName == "" {
		problems.Errorf(origin, "", "packageName", "required")
		return nil
	}
	p := &Package{Name: pm.PackageName, DefaultChannel: pm.DefaultChannel, Origin: origin}
	if p.DefaultChannel == "" && len(pm.Channels) == 1 {
		p.DefaultChannel = pm.Channels[0].Name
	}
	manifests := map[string]*Manifests{}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		m, ps := readManifests(fsys, path.Join(dir, e.Name()))
		*problems = append(*problems, ps...)
		if m == nil || m.CSV == nil {
			continue
		}
		b, ps := bundleFromManifests(fsys, p.Name, m, bundleMetadata{})
		*problems = append(*problems, ps...)
		if b == nil {
			continue
		}
		if p.Bundle(b.Name) != nil {
			problems.Errorf(b.Origin, "ClusterServiceVersion/"+b.Name, "", "package %q has duplicate bundle %q", p.Name, b.Name)
			continue
		}
		manifests[b.Name] = m
		p.Bundles = append(p.Bundles, b)
	}
	for i, ch := range pm.Channels {
		c := &Channel{Package: p.Name, Name: ch.Name, Origin: origin, EdgesInCSVs: true}
		// The channel is the replaces chain from currentCSV, with every bundle it skips.
		seen := map[string]bool{}
		for cur := ch.CurrentCSV; cur != "" && !seen[cur]; {
			seen[cur] = true
			m := manifests[cur]
			if m == nil {
				if cur == ch.CurrentCSV {
					problems.Errorf(origin, "", "channels["+strconv.Itoa(i)+"].currentCSV", "no bundle named %q in %s", cur, fsys.Path(dir))
				}
				break
			}
			csv := m.CSV
			c.Entries = append(c.Entries, ChannelEntry{Name: csv.Name, Replaces: csv.Spec.Replaces, Skips: slices.Clone(csv.Spec.Skips), SkipRange: csv.Annotations[skipRangeAnnotation]})
			cur = csv.Spec.Replaces
		}
		slices.Reverse(c.Entries)
		p.Channels = append(p.Channels, c)
		for _, e := range c.Entries {
			b := p.Bundle(e.Name)
			b.Channels = append(b.Channels, c.Name)
		}
	}
	// Bundles no channel reaches are not served, as in opm.
	p.Bundles = slices.DeleteFunc(p.Bundles, func(b *Bundle) bool { return len(b.Channels) == 0 })
	return p
}
