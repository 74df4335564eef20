package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
)

// basicTemplate is an opm basic template (schema olm.template.basic, or the older form with
// only entries): FBC objects whose bundles are given by image.
type basicTemplate struct {
	Schema  string            `json:"schema"`
	Entries []json.RawMessage `json:"entries"`
}

// applyTemplate makes the channels of a package that the community pipeline publishes from a
// catalog template (ci.yaml fbc.enabled, catalog-templates/*.yaml) those of the template: the
// template, not the bundles' annotations, holds the real upgrade graph. The first template
// file in name order is used. Template bundles are given by image, which cannot be matched
// offline, so bundles are matched by the channel entries' names. It reports whether a template
// was applied.
func applyTemplate(p *Package, pkgDir string, problems *diag.Problems) bool {
	files, _ := filepath.Glob(filepath.Join(pkgDir, "catalog-templates", "*.yaml"))
	if len(files) == 0 {
		return false
	}
	slices.Sort(files)
	file := files[0]
	data, err := os.ReadFile(file)
	if err != nil {
		problems.Errorf(diag.Origin{File: file}, "", "", "cannot read catalog template: %v", err)
		return false
	}
	var t basicTemplate
	if err := yaml.Unmarshal(data, &t); err != nil {
		problems.Errorf(diag.Origin{File: file}, "", "", "invalid catalog template: %v", err)
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
