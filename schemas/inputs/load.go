package inputs

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// Item is one object read from an input, and where it was read from.
type Item struct {
	Object *unstructured.Unstructured
	Origin diag.Origin
	// File is the declaring file's name inside the root, against whose directory relative paths
	// in the object (the olm-render.dev/catalog annotation) resolve; "" when the object was not
	// read from a file of the root (standard input): its paths resolve against the root.
	File string
}

// base is the directory relative references of the item resolve against.
func (it Item) base() string {
	if it.File == "" {
		return "."
	}
	return path.Dir(it.File)
}

// Stdin is the input path that reads standard input.
const Stdin = "-"

// skippedFiles are files in input directories that are never objects to load: kustomize's own
// configuration and olm-render's lock file.
var skippedFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization", "olm-render.lock.yaml"}

// Load reads the files and directories in paths (OS paths, absolute or relative to the working
// directory, all inside opts.Root; directories recursively, *.yaml, *.yml and *.json; hidden
// files, catalog snapshots and earlier render outputs skipped; "-" is standard input) and builds
// the Set. Every problem found is reported, sorted, in one error.
func Load(paths []string, opts LoadOptions) (*Set, error) {
	root, closeRoot, err := opts.root()
	if err != nil {
		return nil, err
	}
	defer closeRoot()
	opts.Root = root
	units, problems := inputUnits(root, paths)
	var items []Item
	for _, u := range units {
		its, ps := readUnit(root, u, opts)
		items = append(items, its...)
		problems = append(problems, ps...)
	}
	if opts.Strict {
		problems = promote(problems)
	}
	if problems.Err() != nil {
		return nil, problems.Err()
	}
	set, err := FromItems(items, opts)
	if err != nil {
		return nil, err
	}
	set.Warnings = append(set.Warnings, problems.Warnings()...).Sorted()
	return set, nil
}

// unit is one thing Load reads: a file, standard input, or a kustomization directory to build.
type unit struct {
	name          string
	kustomization bool
}

// inputUnits lists what Load reads for paths — names inside the root, sorted and without
// duplicates, so that the order of paths does not matter; standard input sorts first.
func inputUnits(root *rootfs.Dir, paths []string) ([]unit, diag.Problems) {
	var (
		units    []unit
		problems diag.Problems
	)
	for _, p := range paths {
		if p == Stdin {
			units = append(units, unit{name: Stdin})
			continue
		}
		name, err := root.Rel(p)
		if err != nil {
			problems.Errorf(diag.Origin{File: p}, "", "", "cannot read input: %s (pass --root with a directory that holds every input and catalog)", rootfs.Describe(err))
			continue
		}
		found, err := walkInputs(root, name)
		if err != nil {
			problems.Errorf(diag.Origin{File: rootfs.PathOf(err, p)}, "", "", "cannot read input: %s", rootfs.Describe(err))
			continue
		}
		units = append(units, found...)
	}
	slices.SortFunc(units, func(a, b unit) int { return strings.Compare(a.name, b.name) })
	return slices.Compact(units), problems
}

// walkInputs lists what to read under name: name itself when it is a file; the directory when
// it holds a kustomization (built, not walked); else every *.yaml, *.yml and *.json below it,
// minus hidden entries, olm-render's own files, catalog snapshots and earlier render outputs,
// with each subdirectory that holds a kustomization built as one unit. A symlinked directory is
// walked when its target is inside the root (the root refuses it otherwise), to a bounded depth.
func walkInputs(root *rootfs.Dir, name string) ([]unit, error) {
	return walkInputsDepth(root, name, 0)
}

// maxSymlinkedDirs bounds how many symlinked directories a walk passes through, one inside
// another: a symlink to an ancestor would otherwise walk for ever.
const maxSymlinkedDirs = 8

func walkInputsDepth(root *rootfs.Dir, name string, depth int) ([]unit, error) {
	st, err := root.Stat(name)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []unit{{name: name}}, nil
	}
	var units []unit
	err = fs.WalkDir(root, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != name && strings.HasPrefix(d.Name(), ".") {
			return skip(d)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			found, err := walkSymlink(root, p, depth)
			units = append(units, found...)
			return err
		}
		if d.IsDir() {
			return walkDir(root, name, p, &units)
		}
		if isInputFile(d.Name()) {
			units = append(units, unit{name: p})
		}
		return nil
	})
	return units, err
}

// walkSymlink decides what to do with a symbolic link met while walking: a link to a file is
// read like a file of its name (the root refuses a target outside it); a link to a directory
// inside the root is walked.
func walkSymlink(root *rootfs.Dir, p string, depth int) ([]unit, error) {
	st, err := root.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if isInputFile(path.Base(p)) {
			return []unit{{name: p}}, nil
		}
		return nil, nil
	}
	if depth >= maxSymlinkedDirs {
		return nil, fmt.Errorf("%s: more than %d symlinked directories one inside another (a link to an ancestor?)", root.Path(p), maxSymlinkedDirs)
	}
	if notInput(root, p) {
		return nil, nil
	}
	if kustomizationIn(root, p) != "" {
		return []unit{{name: p, kustomization: true}}, nil
	}
	return walkInputsDepth(root, p, depth+1)
}

// walkDir decides what to do with a directory met while walking an input directory.
func walkDir(root *rootfs.Dir, top, dir string, units *[]unit) error {
	if dir != top && notInput(root, dir) {
		return fs.SkipDir
	}
	if kustomizationIn(root, dir) != "" {
		*units = append(*units, unit{name: dir, kustomization: true})
		return fs.SkipDir
	}
	return nil
}

// readUnit reads one unit.
func readUnit(root *rootfs.Dir, u unit, opts LoadOptions) ([]Item, diag.Problems) {
	if u.kustomization {
		return buildKustomization(root, u.name, opts.LoadRestrictor)
	}
	return readInput(root, u.name, opts.Stdin)
}

func skip(d fs.DirEntry) error {
	if d.IsDir() {
		return fs.SkipDir
	}
	return nil
}

// isInputFile reports whether a file of an input directory holds objects to read.
func isInputFile(name string) bool {
	if slices.Contains(skippedFiles, name) {
		return false
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// notInput reports whether a directory below an input directory holds something other than
// inputs: a catalog snapshot (a registry+v1 bundle or package directory, a package manifest, an
// FBC root) or an earlier render's output.
func notInput(root *rootfs.Dir, dir string) bool {
	entries, err := root.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case name == ".olm-render-files", name == ".indexignore", name == "ci.yaml":
			return true
		case e.IsDir() && (name == "manifests" || name == "metadata" || name == "catalog-templates"):
			return true
		case !e.IsDir() && strings.HasSuffix(name, ".package.yaml"):
			return true
		}
	}
	if format, err := catalog.Detect(root, dir); err == nil && format != catalog.FormatFBC {
		return true
	}
	return isFBCDir(root, dir, entries)
}

// isFBCDir reports whether a directory holds a file-based catalog: a file whose first object has
// an olm.* schema.
func isFBCDir(root *rootfs.Dir, dir string, entries []fs.DirEntry) bool {
	for _, e := range entries {
		if e.IsDir() || !isInputFile(e.Name()) {
			continue
		}
		if catalog.LooksLikeFBC(root, path.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}

// readInput reads one input file, or standard input.
func readInput(root *rootfs.Dir, name string, stdin io.Reader) ([]Item, diag.Problems) {
	if name == Stdin {
		return readStdin(stdin)
	}
	data, err := root.ReadFile(name)
	if err != nil {
		return nil, diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: root.Path(name)}, Message: "cannot read input: " + rootfs.Describe(err)}}
	}
	items, problems := ReadBytes(root.Path(name), data)
	for i := range items {
		items[i].File = name
	}
	return items, problems
}

// readStdin reads standard input, bounded like a file.
func readStdin(stdin io.Reader) ([]Item, diag.Problems) {
	origin := diag.Origin{File: "<stdin>"}
	if stdin == nil {
		return nil, diag.Problems{{Severity: diag.Error, Origin: origin, Message: "no standard input"}}
	}
	limit := rootfs.DefaultLimits().MaxFileSize
	data, err := io.ReadAll(io.LimitReader(stdin, limit+1))
	switch {
	case err != nil:
		return nil, diag.Problems{{Severity: diag.Error, Origin: origin, Message: "cannot read standard input: " + err.Error()}}
	case int64(len(data)) > limit:
		return nil, diag.Problems{{Severity: diag.Error, Origin: origin, Message: "standard input is over the size limit"}}
	}
	return ReadBytes(origin.File, data)
}

// ReadFile reads every YAML or JSON document of a file on disk (confined to its directory) as an
// object. Empty documents are skipped (but counted in document indexes).
func ReadFile(p string) ([]Item, diag.Problems) {
	d, err := rootfs.OpenDir(filepath.Dir(p), rootfs.Limits{})
	if err != nil {
		return nil, diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: p}, Message: "cannot read input: " + rootfs.Describe(err)}}
	}
	defer d.Close()
	return readInput(d, filepath.Base(p), nil)
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
			problems.Errorf(o.Origin, o.GetKind(), "items", "%s", diag.Decoding(err))
			continue
		}
		for i := range list.Items {
			items = append(items, Item{Object: &list.Items[i], Origin: o.Origin})
		}
	}
	return items, problems
}

// promote makes every warning an error (--strict).
func promote(ps diag.Problems) diag.Problems {
	out := make(diag.Problems, len(ps))
	for i, p := range ps {
		if !p.IsError() {
			p.Severity = diag.Error
			p.Message += " (an error with --strict)"
		}
		out[i] = p
	}
	return out
}
