package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// Paths the person types (arguments, --catalog PATH, --lock, --output-dir) are trusted: they are
// read wherever they are, as kubectl, kustomize and opm read them. What the inputs name (catalog
// annotations, kustomization resources, a RenderConfig's catalogs) stays inside a root: --root,
// else the Git work tree holding the first input, else the working directory when it holds that
// input, else the input's own directory. Every read, trusted or not, is bounded (rootfs: no
// device, FIFO or oversized file).
//
// A command line olm-render builds from what a repository says (the Argo CD plugin's parameters
// come from the Application) is not trusted: there, as in the KRM function, every path must be
// inside --root (default: the Git work tree holding the working directory, else the working
// directory).

// confinedKey marks a context whose command line is not typed by a person.
type confinedKey struct{}

// withConfinedArgs returns ctx marking the command line it runs as untrusted.
func withConfinedArgs(ctx context.Context) context.Context {
	return context.WithValue(ctx, confinedKey{}, true)
}

// argsConfined reports whether cmd's paths must stay inside --root.
func argsConfined(cmd *cobra.Command) bool {
	ctx := cmd.Context()
	return ctx != nil && ctx.Value(confinedKey{}) != nil
}

// checkLimits refuses sizes that are none.
func checkLimits(limits rootfs.Limits) error {
	if limits.MaxFileSize < 0 || limits.MaxTotalSize < 0 {
		return fmt.Errorf("--max-file-size and --max-total-size are sizes in bytes: %d and %d are not", limits.MaxFileSize, limits.MaxTotalSize)
	}
	return nil
}

// openRoot opens dir, or the default root of an untrusted command line: the Git work tree holding
// the working directory, else the working directory.
func openRoot(dir string, limits rootfs.Limits) (*rootfs.Dir, error) {
	if err := checkLimits(limits); err != nil {
		return nil, err
	}
	if dir == "" {
		var err error
		if dir, err = defaultRoot(); err != nil {
			return nil, err
		}
	}
	return rootfs.OpenDir(dir, limits)
}

// defaultRoot is the Git work tree holding the working directory, else the working directory.
func defaultRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the root: %w", err)
	}
	if top, ok := rootfs.GitWorkTree(wd); ok {
		return top, nil
	}
	return wd, nil
}

// ownRoot is the root of a path given on the command line: the Git work tree holding it, else
// the working directory when it holds it, else its own directory (a file's: the one holding it).
// Symbolic links in p are resolved first: the argument is read where it is.
func ownRoot(p string) (string, error) {
	real, err := realPath(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	dir := real
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		dir = filepath.Dir(real)
	}
	if top, ok := rootfs.GitWorkTree(dir); ok {
		return top, nil
	}
	if wd, err := os.Getwd(); err == nil {
		if wd, err := realPath(wd); err == nil && rootfs.Within(dir, wd) {
			return wd, nil
		}
	}
	return dir, nil
}

// openInputRoot opens the root of a command's inputs (see above) and returns the inputs as the
// root reads them: an input that is a symbolic link to a place outside the root is given by its
// target. With confined, every input must be inside --root (or its default) as given.
func openInputRoot(rootFlag string, limits rootfs.Limits, paths []string, confined bool) (*rootfs.Dir, []string, error) {
	if confined {
		root, err := openRoot(rootFlag, limits)
		return root, paths, err
	}
	if err := checkLimits(limits); err != nil {
		return nil, nil, err
	}
	dir := rootFlag
	if dir == "" {
		var err error
		if dir, err = inputsRoot(paths); err != nil {
			return nil, nil, err
		}
	}
	root, err := rootfs.OpenDir(dir, limits)
	if err != nil {
		return nil, nil, err
	}
	out, err := inputsInside(root, paths, rootFlag != "")
	if err != nil {
		root.Close()
		return nil, nil, err
	}
	return root, out, nil
}

// inputsRoot is the root of the first input path (standard input alone: the default root).
func inputsRoot(paths []string) (string, error) {
	for _, p := range paths {
		if p != inputs.Stdin {
			return ownRoot(p)
		}
	}
	return defaultRoot()
}

// inputsInside checks that every input is inside root, returning each as the root reads it: as
// given, or by its target when it is a symbolic link from outside the root into it.
func inputsInside(root *rootfs.Dir, paths []string, explicit bool) ([]string, error) {
	top, err := realPath(root.Root())
	if err != nil {
		top = root.Root()
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if p == inputs.Stdin {
			continue
		}
		real, err := realPath(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if !rootfs.Within(real, top) {
			if explicit {
				return nil, fmt.Errorf("%s is outside --root %s: --root bounds what the inputs name, so it must hold the inputs too", p, root.Path("."))
			}
			return nil, fmt.Errorf("%s is not in the same tree as %s (%s): pass --root with a directory that holds every input", p, paths[0], root.Path("."))
		}
		if _, err := root.Rel(p); err != nil {
			out[i] = real
		}
	}
	return out, nil
}

// trustBinding makes a --catalog binding typed on the command line readable wherever its path
// is: a path outside root gets a root of its own (ownRoot), which the caller closes.
func trustBinding(root *rootfs.Dir, b inputs.Binding, limits rootfs.Limits) (inputs.Binding, *rootfs.Dir, error) {
	if b.Root != nil || strings.HasPrefix(b.Path, inputs.ImagePrefix) {
		return b, nil, nil
	}
	real, err := realPath(b.Path)
	if err != nil {
		return b, nil, fmt.Errorf("--catalog %s/%s=%s: %w", b.Namespace, b.Name, b.Path, err)
	}
	if top, err := realPath(root.Root()); err == nil && rootfs.Within(real, top) {
		if _, err := root.Rel(b.Path); err != nil {
			b.Path = real
		}
		return b, nil, nil
	}
	if _, err := os.Stat(real); err != nil {
		return b, nil, fmt.Errorf("--catalog %s/%s=%s: cannot read the catalog snapshot: %s", b.Namespace, b.Name, b.Path, rootfs.Describe(err))
	}
	dir, err := ownRoot(real)
	if err != nil {
		return b, nil, err
	}
	own, err := rootfs.OpenDir(dir, limits)
	if err != nil {
		return b, nil, err
	}
	name, err := own.Rel(real)
	if err != nil {
		own.Close()
		return b, nil, fmt.Errorf("--catalog %s/%s=%s: %s", b.Namespace, b.Name, b.Path, rootfs.Describe(err))
	}
	b.Path, b.Root = name, own
	return b, own, nil
}

// readLock reads the lock at path; a missing lock is (nil, nil). A lock the person named
// (--lock) is read wherever it is; the default one, beside the inputs, through the root, as
// every file the inputs' directory holds.
func readLock(root *rootfs.Dir, path string, named bool, limits rootfs.Limits) (*lock.Lock, error) {
	if named {
		dir, err := rootfs.OpenDir(filepath.Dir(path), limits)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: cannot read the lock: %s", path, rootfs.Describe(err))
		}
		defer dir.Close()
		return readLockIn(dir, filepath.Base(path))
	}
	name, err := root.Rel(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the lock: %s (keep it beside the inputs, or pass --lock)", path, rootfs.Describe(err))
	}
	return readLockIn(root, name)
}

func readLockIn(fsys rootfs.FS, name string) (*lock.Lock, error) {
	l, err := lock.Read(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return l, err
}

// realPath returns p absolute with the symlinks of its longest existing prefix resolved.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if filepath.Dir(dir) == dir {
			return abs, nil
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}
