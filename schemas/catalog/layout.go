package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// templatesDir is the directory of a package directory holding its catalog templates.
const templatesDir = "catalog-templates"

// bundleDir is a bundle directory and the package directory holding it (the directory itself
// for a single bundle).
type bundleDir struct {
	dir, pkgDir string
}

// treeWalk lists the directories of a bundle tree as the community pipeline reads them (its
// operator-repo library: a bundle is <package>/<version>/ holding manifests/ and metadata/).
type treeWalk struct {
	fsys     rootfs.FS
	problems *diag.Problems
	// dirs are the bundle directories, configs the pipeline settings (ci.yaml) of each package
	// directory holding one.
	dirs    []bundleDir
	configs map[string]pipelineConfig
	// unreadable are the directories that could not be read (see unreadableDirs).
	unreadable []bundleDir
	// leftOut are the directories the published catalog holds no bundle from.
	leftOut []LeftOut
}

// bundleDirs lists the bundle directories under root, the pipeline settings of each package
// directory, the directories that could not be read (each might hold the bundle OLM would
// choose, so none is skipped: see unreadableDirs), and the directories no bundle of the
// published catalog comes from: a bundle below <version>/ (<version>/bundle/, say), which the
// pipeline never builds, and a directory the loader does not understand. None is skipped
// without a word.
func bundleDirs(fsys rootfs.FS, root string, problems *diag.Problems) ([]bundleDir, map[string]pipelineConfig, []Broken, []LeftOut) {
	w := &treeWalk{fsys: fsys, problems: problems, configs: map[string]pipelineConfig{}}
	if isBundleDir(fsys, root) {
		return []bundleDir{{dir: root, pkgDir: root}}, w.configs, nil, nil
	}
	w.tree(root)
	if len(w.dirs)+len(w.unreadable)+len(w.leftOut) == 0 {
		problems.Errorf(diag.Origin{File: fsys.Path(root)}, "", "", "no bundle directories (<package>/<version>/manifests and metadata/annotations.yaml) found")
	}
	return w.dirs, w.configs, unreadableDirs(fsys, root, w.dirs, w.unreadable), w.leftOut
}

// tree walks the root: a tree of package directories, or a package directory itself (its
// version directories hold bundles, directly or below).
func (w *treeWalk) tree(root string) {
	for _, sub := range w.subdirs(root, root) {
		switch {
		case isBundleDir(w.fsys, sub):
			w.bundle(root, sub)
		case path.Base(sub) == templatesDir:
		case isVersion(path.Base(sub)) && len(w.nested(sub)) > 0:
			w.below(root, sub)
		case isVersion(path.Base(sub)):
			w.unknown(root, sub, "is not a bundle directory, and holds none")
		default:
			found := w.found()
			w.pkg(sub)
			if w.found() == found {
				w.unknown(sub, sub, "holds no bundle directory")
			}
		}
	}
}

// pkg walks a package directory: each directory in it is a bundle directory, holds bundles
// below it, or is its catalog templates; any other is reported.
func (w *treeWalk) pkg(dir string) {
	for _, sub := range w.subdirs(dir, dir) {
		switch {
		case isBundleDir(w.fsys, sub):
			w.bundle(dir, sub)
		case path.Base(sub) == templatesDir:
		case len(w.nested(sub)) > 0:
			w.below(dir, sub)
		default:
			w.unknown(dir, sub, "is not a bundle directory, and holds none")
		}
	}
}

// subdirs lists the directories in dir that are not hidden; one that cannot be read is recorded
// as unreadable (held by pkgDir) and left out of the list.
func (w *treeWalk) subdirs(dir, pkgDir string) []string {
	entries, err := readDir(w.fsys, dir, w.problems)
	if err != nil {
		w.problems.Errorf(diag.Origin{File: w.fsys.Path(dir)}, "", "", "cannot read catalog directory: %s", rootfs.Describe(err))
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub := path.Join(dir, e.Name())
		if _, err := w.fsys.ReadDir(sub); err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.unreadable = append(w.unreadable, bundleDir{dir: sub, pkgDir: pkgDir})
			continue
		}
		out = append(out, sub)
	}
	return out
}

// found counts what the walk has found.
func (w *treeWalk) found() int { return len(w.dirs) + len(w.unreadable) + len(w.leftOut) }

// bundle records a bundle directory of the package directory pkgDir, reading the package's
// pipeline settings once, and reports the bundles below it, which the pipeline does not read.
func (w *treeWalk) bundle(pkgDir, dir string) {
	w.dirs = append(w.dirs, bundleDir{dir: dir, pkgDir: pkgDir})
	if _, ok := w.configs[pkgDir]; !ok {
		// A package directory is named for its package, as the pipeline requires.
		var ps diag.Problems
		w.configs[pkgDir] = readPipelineConfig(w.fsys, pkgDir, &ps)
		*w.problems = append(*w.problems, ps.InPackage(path.Base(pkgDir))...)
	}
	for _, n := range w.nested(dir) {
		w.leave(pkgDir, n, false, fmt.Sprintf("a bundle below the bundle directory %s is not read: the community pipeline builds the bundle of %s from its own manifests/ and metadata/, so the published catalog holds that one only; remove this copy",
			path.Base(dir), path.Base(dir)))
	}
}

// below reports the bundles in the directories of dir (<version>/bundle/, say): the pipeline
// reads a bundle only from <package>/<version>/ itself, so it never builds them and the published
// catalog leaves them out.
func (w *treeWalk) below(pkgDir, dir string) {
	for _, n := range w.nested(dir) {
		rel := path.Base(dir) + "/" + path.Base(n)
		w.leave(pkgDir, n, false, fmt.Sprintf("a bundle in %s/ is never built: the community pipeline reads a bundle only from <package>/<version>/ holding manifests/ and metadata/, so the published catalog leaves it out, and so does olm-render; move manifests/ and metadata/ up into %s/ to publish it",
			rel, path.Base(dir)))
	}
}

// unknown reports a directory the loader does not understand: catalog validate fails on it.
func (w *treeWalk) unknown(pkgDir, dir, what string) {
	w.leave(pkgDir, dir, true, fmt.Sprintf("%s: the community pipeline reads a bundle from <package>/<version>/ holding manifests/ and metadata/ (and catalog templates from %s/), so the published catalog holds nothing from it; lay it out so, or remove it",
		what, templatesDir))
}

// leave records a directory left out, with the warning naming it.
func (w *treeWalk) leave(pkgDir, dir string, unknown bool, msg string) {
	pkg := path.Base(w.fsys.Path(pkgDir))
	w.leftOut = append(w.leftOut, LeftOut{Package: pkg, Dir: w.fsys.Path(dir), Unknown: unknown,
		Problem: diag.Problem{Severity: diag.Warning, Origin: diag.Origin{File: w.fsys.Path(dir)},
			Object: fmt.Sprintf("package %q", pkg), Message: msg, Package: pkg}})
}

// nested lists the bundle directories directly in dir.
func (w *treeWalk) nested(dir string) []string {
	entries, _ := w.fsys.ReadDir(dir)
	var out []string
	for _, e := range entries {
		sub := path.Join(dir, e.Name())
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && isBundleDir(w.fsys, sub) {
			out = append(out, sub)
		}
	}
	return out
}

// isVersion reports whether a directory's name is a version, as the pipeline names bundle
// directories.
func isVersion(name string) bool {
	_, err := semver.ParseTolerant(name)
	return err == nil
}
