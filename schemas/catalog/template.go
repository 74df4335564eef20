package catalog

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// basicTemplate is an opm basic template (schema olm.template.basic, or the older form with
// only entries): FBC objects whose bundles are given by image.
type basicTemplate struct {
	Schema  string            `json:"schema"`
	Entries []json.RawMessage `json:"entries"`
}

// applyTemplate makes the channels of a package that the community pipeline publishes from a
// catalog template (ci.yaml fbc.enabled, catalog-templates/*.yaml) those of the template: the
// template, not the bundles' annotations, holds the real upgrade graph. Template bundles are
// given by image, which cannot be matched offline, so bundles are matched by the channel
// entries' names. It reports whether the template was applied.
func applyTemplate(fsys rootfs.FS, p *Package, name string, problems *diag.Problems) bool {
	file := fsys.Path(name)
	data, err := fsys.ReadFile(name)
	if err != nil {
		problems.Errorf(diag.Origin{File: file}, "", "", "cannot read catalog template: %s", rootfs.Describe(err))
		return false
	}
	var t basicTemplate
	if err := yaml.Unmarshal(data, &t); err != nil {
		problems.Errorf(diag.Origin{File: file}, "", "", "invalid catalog template: %s", diag.Decoding(err))
		return false
	}
	var channels []*Channel
	for i, raw := range t.Entries {
		origin := diag.Origin{File: file, Index: i}
		o, err := fbcMeta(raw)
		if err != nil {
			problems.Errorf(origin, "", "", "%v", err)
			continue
		}
		switch o.schema {
		case SchemaPackage:
			var v fbcPackage
			if json.Unmarshal(raw, &v) == nil && v.Name == p.Name && v.DefaultChannel != "" {
				p.DefaultChannel = v.DefaultChannel
				p.Description = v.Description
			}
		case SchemaChannel:
			var v fbcChannel
			if err := json.Unmarshal(raw, &v); err != nil {
				problems.Errorf(origin, "", "", "parse channel: %v", err)
				continue
			}
			ch := &Channel{Package: p.Name, Name: v.Name, Origin: origin}
			for _, e := range v.Entries {
				if p.Bundle(e.Name) == nil {
					problems.Warnf(origin, "channel "+v.Name, "entries", "bundle %q of the template has no bundle directory; left out", e.Name)
					continue
				}
				ch.Entries = append(ch.Entries, e)
			}
			channels = append(channels, ch)
		}
	}
	if len(channels) == 0 {
		return false
	}
	p.Channels = channels
	for _, b := range p.Bundles {
		b.Channels = nil
		for _, ch := range channels {
			if ch.Entry(b.Name) != nil {
				b.Channels = append(b.Channels, ch.Name)
			}
		}
	}
	p.Bundles = slices.DeleteFunc(p.Bundles, func(b *Bundle) bool { return len(b.Channels) == 0 })
	return true
}

// firstTemplate returns the first *.yaml file of a catalog-templates directory, by name, or "".
func firstTemplate(fsys rootfs.FS, dir string) string {
	entries, _ := fsys.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
			return path.Join(dir, e.Name())
		}
	}
	return ""
}
