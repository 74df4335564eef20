package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/olm-render/olm-render/schemas/diag"
)

// Load reads the snapshot at path, detecting its format (see the package documentation), and
// validates it. Every problem found is returned, sorted, as a diag.Problems error.
func Load(path string) (*Catalog, error) {
	format, err := Detect(path)
	if err != nil {
		return nil, err
	}
	var (
		c        *Catalog
		problems diag.Problems
	)
	switch format {
	case FormatFBC:
		c, problems = loadFBC(path)
	case FormatPackageManifest:
		c, problems = loadPackageManifests(path)
	default:
		c, problems = loadBundles(path)
	}
	c.Path, c.Format = path, format
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

// Detect returns the format of the snapshot at path.
func Detect(path string) (Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: path}, Message: fmt.Sprintf("cannot read catalog snapshot: %v", err)}}
	}
	if !st.IsDir() {
		return FormatFBC, nil
	}
	if isBundleDir(path) {
		return FormatBundles, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return "", fmt.Errorf("reading catalog snapshot %s: %w", path, err)
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".package.yaml") {
			return FormatPackageManifest, nil
		}
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub := filepath.Join(path, e.Name())
		if isBundleDir(sub) {
			return FormatBundles, nil
		}
		subEntries, _ := os.ReadDir(sub)
		for _, se := range subEntries {
			if !se.IsDir() && strings.HasSuffix(se.Name(), ".package.yaml") {
				return FormatPackageManifest, nil
			}
			if se.IsDir() && isBundleDir(filepath.Join(sub, se.Name())) {
				return FormatBundles, nil
			}
		}
	}
	return FormatFBC, nil
}

// isBundleDir reports whether dir holds a registry+v1 bundle (manifests/ and
// metadata/annotations.yaml).
func isBundleDir(dir string) bool {
	if st, err := os.Stat(filepath.Join(dir, "manifests")); err != nil || !st.IsDir() {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "metadata", "annotations.yaml"))
	return err == nil
}
