package registrytest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// Published is a catalog published to a registry as opm publishes one.
type Published struct {
	// Index is the index image by tag, under the name given (IMAGE:TAG).
	Index string
	// Bundles maps each bundle's name to its bundle image by digest, under the name given.
	Bundles map[string]string
}

// PublishCatalog publishes the registry+v1 bundle tree at dir (the community layout,
// <package>/<version>/{manifests,metadata}) as a registry serves it to OLM: one bundle image per
// bundle, REPO/bundles/<package>:<version>, and the index image image (REPO/NAME:TAG) whose
// file-based catalog carries only olm.csv.metadata and names every bundle image by digest, as
// every OpenShift index since 4.17 does. REPO (image without its last path element) is where
// a client pulls from: a registries.conf rewriting it to this registry (WriteRegistriesConf)
// serves it, so a catalog can stand under its real name (registry.example.com/...).
func (r *Registry) PublishCatalog(dir, image string) (*Published, error) {
	repo, tagged, ok := cutLast(image)
	name, tag, ok2 := strings.Cut(tagged, ":")
	host, path, ok3 := strings.Cut(repo, "/")
	if !ok || !ok2 || !ok3 {
		return nil, fmt.Errorf("index image %q: want HOST/REPO/NAME:TAG", image)
	}
	c, err := catalog.Load(dir)
	if err != nil {
		return nil, err
	}
	out := &Published{Index: image, Bundles: map[string]string{}}
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			files, labels, err := bundleFiles(filepath.Dir(filepath.Dir(b.Origin.File)))
			if err != nil {
				return nil, err
			}
			pushed, err := r.PushFiles(path+"/bundles/"+p.Name, b.Version.String(), files, labels)
			if err != nil {
				return nil, err
			}
			out.Bundles[b.Name] = host + strings.TrimPrefix(pushed, r.Host)
		}
	}
	var fbc bytes.Buffer
	err = catalog.WriteFBC(&fbc, c, catalog.WriteOptions{CSVMetadata: true, Image: func(b *catalog.Bundle) string { return out.Bundles[b.Name] }})
	if err != nil {
		return nil, err
	}
	files, labels := IndexFiles(fbc.Bytes())
	if _, err := r.PushFiles(path+"/"+name, tag, files, labels); err != nil {
		return nil, err
	}
	return out, nil
}

// cutLast splits s at its last "/".
func cutLast(s string) (before, after string, ok bool) {
	i := strings.LastIndex(s, "/")
	if i < 0 {
		return "", s, false
	}
	return s[:i], s[i+1:], true
}
