package inputs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

// Item is one object read from an input, and where it was read from.
type Item struct {
	Object *unstructured.Unstructured
	Origin diag.Origin
}

// skippedFiles are files in input directories that are never objects to load: kustomize's own
// configuration and olm-render's lock file.
var skippedFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization", "olm-render.lock.yaml"}

// Load reads the files and directories in paths (directories recursively; *.yaml, *.yml and
// *.json; hidden files and directories skipped) and builds the Set. Every problem found is
// reported, sorted, in one error.
func Load(paths []string, opts LoadOptions) (*Set, error) {
	files, err := inputFiles(paths)
	if err != nil {
		return nil, err
	}
	var (
		items    []Item
		problems diag.Problems
	)
	for _, f := range files {
		its, ps := ReadFile(f)
		items = append(items, its...)
		problems = append(problems, ps...)
	}
	set, err := FromItems(items, opts)
	problems = append(problems, diag.From(err)...)
	if err := problems.Err(); err != nil {
		return nil, err
	}
	set.Warnings = append(set.Warnings, problems.Warnings()...)
	return set, nil
}

// inputFiles lists the input files of paths, sorted and without duplicates, so that the order
// of paths does not matter.
func inputFiles(paths []string) ([]string, error) {
	var files []string
	var problems diag.Problems
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			problems.Errorf(diag.Origin{File: p}, "", "", "cannot read input: %v", unwrapPath(err))
			continue
		}
		if !st.IsDir() {
			files = append(files, filepath.Clean(p))
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if path != p && strings.HasPrefix(name, ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || slices.Contains(skippedFiles, name) {
				return nil
			}
			switch strings.ToLower(filepath.Ext(name)) {
			case ".yaml", ".yml", ".json":
				files = append(files, filepath.Clean(path))
			}
			return nil
		})
		if err != nil {
			problems.Errorf(diag.Origin{File: p}, "", "", "cannot read input directory: %v", err)
		}
	}
	slices.Sort(files)
	return slices.Compact(files), problems.Err()
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadFile reads every YAML or JSON document of a file as an object. Empty documents are
// skipped (but counted in document indexes).
func ReadFile(path string) ([]Item, diag.Problems) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: path}, Message: fmt.Sprintf("cannot read input: %v", unwrapPath(err))}}
	}
	return ReadBytes(path, data)
}

// ReadBytes reads every document of data (a List contributes its items); name is used in
// origins.
func ReadBytes(name string, data []byte) ([]Item, diag.Problems) {
	objs, problems := catalog.DecodeDocuments(name, data)
	var items []Item
	for _, o := range objs {
		if !o.IsList() {
			items = append(items, Item{Object: o.Unstructured, Origin: o.Origin})
			continue
		}
		list, err := o.ToList()
		if err != nil {
			problems.Errorf(o.Origin, o.GetKind(), "items", "%v", err)
			continue
		}
		for i := range list.Items {
			items = append(items, Item{Object: &list.Items[i], Origin: o.Origin})
		}
	}
	return items, problems
}
