package catalog

import (
	"encoding/json"
	"fmt"
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
// entries' names. It returns the bundles the template lists in no channel, which the published
// catalog leaves out: they are removed from the package.
func applyTemplate(fsys rootfs.FS, p *Package, name string, problems *diag.Problems) []*Bundle {
	file := fsys.Path(name)
	data, err := fsys.ReadFile(name)
	if err != nil {
		problems.Errorf(diag.Origin{File: file}, "", "", "cannot read catalog template: %s", rootfs.Describe(err))
		return nil
	}
	var t basicTemplate
	if err := yaml.Unmarshal(data, &t); err != nil {
		problems.Errorf(diag.Origin{File: file}, "", "", "invalid catalog template: %s", diag.Decoding(err))
		return nil
	}
	var channels []*Channel
	for i, raw := range t.Entries {
		origin := diag.Origin{File: file, Index: i}
		o, err := fbcMeta(raw)
		o.origin = origin
		if err != nil {
			problems.Add(blobProblem(o, err))
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
			if err := decodeBlob("", raw, &v); err != nil {
				problems.Add(blobProblem(o, err))
				continue
			}
			ch := &Channel{Package: p.Name, Name: v.Name, Origin: origin}
			for j, e := range v.Entries {
				if p.Bundle(e.Name) == nil {
					problems.Warnf(origin, blobName(SchemaChannel, p.Name, v.Name), fmt.Sprintf("entries[%d].name", j), "bundle %q of the template has no bundle directory; left out", e.Name)
					continue
				}
				ch.Entries = append(ch.Entries, e)
			}
			channels = append(channels, ch)
		}
	}
	if len(channels) == 0 {
		return nil
	}
	p.Channels = channels
	var out []*Bundle
	for _, b := range p.Bundles {
		b.Channels = nil
		for _, ch := range channels {
			if ch.Entry(b.Name) != nil {
				b.Channels = append(b.Channels, ch.Name)
			}
		}
		if len(b.Channels) == 0 {
			out = append(out, b)
		}
	}
	p.Bundles = slices.DeleteFunc(p.Bundles, func(b *Bundle) bool { return len(b.Channels) == 0 })
	return out
}

// notInTemplate records a bundle directory whose bundle the package's catalog template lists in
// no channel: the published catalog leaves it out, and so does olm-render.
func notInTemplate(fsys rootfs.FS, b *Bundle, bundles []*dirBundle, template string) LeftOut {
	dir := path.Dir(path.Dir(b.Origin.File))
	for _, d := range bundles {
		if d.bundle == b {
			dir = fsys.Path(d.dir)
		}
	}
	return LeftOut{Package: b.Package, Dir: dir, Problem: diag.Problem{Severity: diag.Warning, Origin: diag.Origin{File: dir},
		Object: fmt.Sprintf("bundle %q", b.Name), Package: b.Package,
		Message: fmt.Sprintf("left out, as the published catalog leaves it out: the catalog template %s (ci.yaml fbc.catalog_mapping, for the newest catalog) lists it in no channel; add it to the template's channels to publish it",
			fsys.Path(template))}}
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
