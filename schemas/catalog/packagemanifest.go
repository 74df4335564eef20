package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
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
func loadPackageManifests(root string) (*Catalog, diag.Problems) {
	var problems diag.Problems
	c := &Catalog{}
	dirs := []string{root}
	if !hasPackageYAML(root) {
		dirs = nil
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if e.IsDir() && hasPackageYAML(filepath.Join(root, e.Name())) {
				dirs = append(dirs, filepath.Join(root, e.Name()))
			}
		}
	}
	for _, dir := range dirs {
		if p := loadPackageManifest(dir, &problems); p != nil {
			c.Packages = append(c.Packages, p)
		}
	}
	return c, problems
}

func hasPackageYAML(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.package.yaml"))
	return len(m) > 0
}

func loadPackageManifest(dir string, problems *diag.Problems) *Package {
	files, _ := filepath.Glob(filepath.Join(dir, "*.package.yaml"))
	file := files[0]
	data, err := os.ReadFile(file)
	if err != nil {
		problems.Errorf(diag.Origin{File: file}, "", "", "cannot read package manifest: %v", err)
		return nil
	}
	var pm packageManifest
	if err := yaml.Unmarshal(data, &pm); err != nil {
		problems.Errorf(diag.Origin{File: file}, "", "", "invalid package manifest: %v", err)
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
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		m, ps := readManifests(filepath.Join(dir, e.Name()))
		*problems = append(*problems, ps...)
		if m == nil || m.CSV == nil {
			continue
		}
		b, ps := bundleFromManifests(p.Name, m, filepath.Join(dir, e.Name()))
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
		c := &Channel{Package: p.Name, Name: ch.Name, Origin: origin}
		// The channel is the replaces chain from currentCSV, with every bundle it skips.
		seen := map[string]bool{}
		for cur := ch.CurrentCSV; cur != "" && !seen[cur]; {
			seen[cur] = true
			m := manifests[cur]
			if m == nil {
				if cur == ch.CurrentCSV {
					problems.Errorf(origin, "", "channels["+strconv.Itoa(i)+"].currentCSV", "no bundle named %q in %s", cur, dir)
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
