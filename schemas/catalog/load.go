package catalog

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// Load reads the snapshot at path on disk, confined to it (a file's directory, for an FBC file),
// with the default read limits. See LoadFS. The directory stays open for the bundles' manifests
// while the catalog is in use (it is closed when the catalog is garbage collected).
func Load(path string) (*Catalog, error) {
	root, name := path, "."
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		root, name = filepath.Dir(path), filepath.Base(path)
	}
	d, err := rootfs.OpenDir(root, rootfs.Limits{})
	if err != nil {
		return nil, diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: path},
			Message: "cannot read catalog snapshot: " + rootfs.Describe(err)}}
	}
	c, err := LoadFS(d, name)
	if err != nil {
		d.Close()
	}
	return c, err
}

// LoadFS reads the snapshot at name in fsys, detecting its format (see the package
// documentation), and validates it. Every problem found is returned, sorted, as a diag.Problems
// error. Everything is read and validated while loading; a bundle tree's manifests are then read
// again from fsys when first needed (Bundle.Manifests), so fsys must stay open while the
// catalog's bundles are rendered.
func LoadFS(fsys rootfs.FS, name string) (*Catalog, error) {
	return loadFS(fsys, name, nil)
}

func loadFS(fsys rootfs.FS, name string, cache DerivedCache) (*Catalog, error) {
	format, err := Detect(fsys, name)
	if err != nil {
		return nil, err
	}
	var (
		c        *Catalog
		problems diag.Problems
	)
	switch format {
	case FormatFBC:
		c, problems = loadFBC(fsys, name)
	case FormatPackageManifest:
		c, problems = loadPackageManifests(fsys, name)
	default:
		c, problems = loadBundles(fsys, name, cache)
	}
	c.Path, c.Format = fsys.Path(name), format
	c.sort()
	if problems.Err() == nil {
		problems = append(problems, Validate(c)...)
	}
	if err := problems.Err(); err != nil {
		return nil, err
	}
	c.Warnings = problems.Warnings().Sorted()
	return c, nil
}

// Detect returns the format of the snapshot at name.
func Detect(fsys rootfs.FS, name string) (Format, error) {
	st, err := fsys.Stat(name)
	if err != nil {
		return "", diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: fsys.Path(name)},
			Message: "cannot read catalog snapshot: " + rootfs.Describe(err)}}
	}
	if !st.IsDir() {
		return FormatFBC, nil
	}
	if isBundleDir(fsys, name) {
		return FormatBundles, nil
	}
	entries, err := readDir(fsys, name, new(diag.Problems))
	if err != nil {
		return "", diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: fsys.Path(name)},
			Message: "cannot read catalog snapshot: " + rootfs.Describe(err)}}
	}
	if hasPackageYAML(entries) {
		return FormatPackageManifest, nil
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if f := detectSub(fsys, path.Join(name, e.Name())); f != "" {
			return f, nil
		}
	}
	return FormatFBC, nil
}

// detectSub recognises a package directory: one holding bundle directories or a package.yaml.
func detectSub(fsys rootfs.FS, sub string) Format {
	if isBundleDir(fsys, sub) {
		return FormatBundles
	}
	entries, _ := readDir(fsys, sub, new(diag.Problems))
	if hasPackageYAML(entries) {
		return FormatPackageManifest
	}
	for _, se := range entries {
		if se.IsDir() && isBundleDir(fsys, path.Join(sub, se.Name())) {
			return FormatBundles
		}
	}
	return ""
}

func hasPackageYAML(entries []fs.DirEntry) bool {
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".package.yaml") {
			return true
		}
	}
	return false
}

// isBundleDir reports whether dir holds a registry+v1 bundle: a manifests/ directory beside a
// metadata/ directory, or either one beside the other's expected content. A bundle directory
// with a broken layout (metadata/annotations.yaml missing, manifests a file) still counts, so
// that loading it reports the problem instead of skipping the bundle.
func isBundleDir(fsys rootfs.FS, dir string) bool {
	manifests, errM := fsys.Stat(path.Join(dir, "manifests"))
	metadata, errA := fsys.Stat(path.Join(dir, "metadata"))
	switch {
	case errM == nil && errA == nil:
		return true
	case errM == nil && manifests.IsDir():
		return hasCSVFile(fsys, path.Join(dir, "manifests"))
	case errA == nil && metadata.IsDir():
		_, err := fsys.Stat(path.Join(dir, "metadata", "annotations.yaml"))
		return err == nil
	}
	return false
}

// hasCSVFile reports whether a manifests directory holds a *clusterserviceversion* file.
func hasCSVFile(fsys rootfs.FS, dir string) bool {
	entries, _ := fsys.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(strings.ToLower(e.Name()), "clusterserviceversion") {
			return true
		}
	}
	return false
}

// problemf returns a one-problem error.
func problemf(origin diag.Origin, format string, args ...any) diag.Problems {
	return diag.Problems{{Severity: diag.Error, Origin: origin, Message: fmt.Sprintf(format, args...)}}
}

// LooksLikeFBC reports whether the file's first object is a file-based-catalog object (an olm.*
// schema), so that input walking can leave catalog files alone.
func LooksLikeFBC(fsys rootfs.FS, name string) bool {
	data, err := fsys.ReadFile(name)
	if err != nil {
		return false
	}
	var first struct {
		Schema string `json:"schema"`
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	return dec.Decode(&first) == nil && strings.HasPrefix(first.Schema, "olm.")
}
