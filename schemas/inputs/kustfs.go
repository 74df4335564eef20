package inputs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/olm-render/olm-render/schemas/rootfs"
)

// errReadOnly is returned by every write kustomize attempts.
var errReadOnly = errors.New("olm-render builds kustomizations read-only")

// kustFS is the file system kustomize builds with: a read-only view of the root. Kustomize
// speaks absolute OS paths; each is mapped to a name inside the root and read through it, so a
// kustomization can read nothing outside the root, whatever its load restrictor. Symbolic links
// are resolved inside the root (CleanedAbs), so kustomize's own LoadRestrictionsRootOnly check
// sees real paths, as on disk. Every kustomization file read is checked for remote references
// before kustomize sees it (checkRemote), and the top kustomization gets origin annotations.
type kustFS struct {
	root *rootfs.Dir
	// top is the name of the kustomization file being built.
	top string
	// refused is the first read refused (outside the root, or a kustomization with a remote
	// reference): kustomize reports some failed reads as a missing kustomization, so the build
	// reports this instead.
	refused error
}

// refuse records the first refusal and returns it.
func (k *kustFS) refuse(err error) error {
	if k.refused == nil {
		k.refused = err
	}
	return err
}

var _ filesys.FileSystem = (*kustFS)(nil)

// name maps an OS path to a name inside the root.
func (k *kustFS) name(p string) (string, error) {
	return k.root.Rel(p)
}

// abs maps a name inside the root to the OS path kustomize sees.
func (k *kustFS) abs(name string) string {
	return filepath.Join(k.root.Root(), filepath.FromSlash(name))
}

func (k *kustFS) Create(string) (filesys.File, error) { return nil, errReadOnly }
func (k *kustFS) Mkdir(string) error                  { return errReadOnly }
func (k *kustFS) MkdirAll(string) error               { return errReadOnly }
func (k *kustFS) RemoveAll(string) error              { return errReadOnly }
func (k *kustFS) WriteFile(string, []byte) error      { return errReadOnly }

// Open opens a file for reading.
func (k *kustFS) Open(p string) (filesys.File, error) {
	data, err := k.ReadFile(p)
	if err != nil {
		return nil, err
	}
	name, _ := k.name(p)
	info, err := k.root.Stat(name)
	if err != nil {
		return nil, err
	}
	return &kustFile{Reader: bytes.NewReader(data), info: info}, nil
}

// IsDir reports whether p is a directory inside the root.
func (k *kustFS) IsDir(p string) bool {
	name, err := k.name(p)
	if err != nil {
		return false
	}
	info, err := k.root.Stat(name)
	return err == nil && info.IsDir()
}

// Exists reports whether p exists inside the root.
func (k *kustFS) Exists(p string) bool {
	name, err := k.name(p)
	if err != nil {
		return false
	}
	_, err = k.root.Stat(name)
	return err == nil
}

// ReadDir lists a directory's entries.
func (k *kustFS) ReadDir(p string) ([]string, error) {
	name, err := k.name(p)
	if err != nil {
		return nil, err
	}
	entries, err := k.root.ReadDir(name)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name()
	}
	return out, nil
}

// CleanedAbs splits an absolute, symlink-free path inside the root into a directory and a file.
func (k *kustFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", "", err
	}
	name, err := k.name(abs)
	if err != nil {
		return "", "", err
	}
	real, err := k.resolve(name)
	if err != nil {
		return "", "", err
	}
	if info, err := k.root.Stat(real); err == nil && info.IsDir() {
		return filesys.ConfirmedDir(k.abs(real)), "", nil
	}
	return filesys.ConfirmedDir(k.abs(path.Dir(real))), path.Base(real), nil
}

// maxLinks bounds the symbolic links followed resolving one name.
const maxLinks = 40

// resolve follows the symbolic links of a name inside the root, component by component.
func (k *kustFS) resolve(name string) (string, error) {
	done, rest := ".", strings.Split(name, "/")
	for hops := 0; len(rest) > 0; {
		next := path.Join(done, rest[0])
		rest = rest[1:]
		if next == "." {
			continue
		}
		info, err := k.root.Lstat(next)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if hops++; hops > maxLinks {
			return "", fmt.Errorf("%s: too many symbolic links", k.root.Path(name))
		}
		target, err := k.root.Readlink(next)
		if err != nil {
			return "", err
		}
		joined, err := rootfs.Join(path.Dir(next), target)
		if err != nil {
			return "", &fs.PathError{Op: "open", Path: k.root.Path(next), Err: err}
		}
		done, rest = ".", append(strings.Split(joined, "/"), rest...)
	}
	return done, nil
}

// Glob matches a pattern in its directory (kustomize globs one level).
func (k *kustFS) Glob(pattern string) ([]string, error) {
	dir, base := filepath.Split(pattern)
	entries, err := k.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	var out []string
	for _, e := range entries {
		if ok, _ := filepath.Match(base, e); ok && (!strings.HasPrefix(e, ".") || strings.HasPrefix(base, ".")) {
			out = append(out, filepath.Join(dir, e))
		}
	}
	return out, nil
}

// ReadFile reads a file inside the root; a kustomization file is checked for remote references
// first, and the top one gets origin annotations.
func (k *kustFS) ReadFile(p string) ([]byte, error) {
	name, err := k.name(p)
	if err != nil {
		return nil, k.refuse(err)
	}
	data, err := k.root.ReadFile(name)
	if errors.Is(err, rootfs.ErrOutside) || errors.Is(err, rootfs.ErrNotRegular) || errors.Is(err, rootfs.ErrTooLarge) {
		return nil, k.refuse(err)
	}
	if err != nil || !isKustomizationFile(path.Base(name)) {
		return data, err
	}
	if err := checkRemote(k.root, name, data); err != nil {
		return nil, k.refuse(err)
	}
	if name == k.top {
		return withOriginAnnotations(data)
	}
	return data, nil
}

// Walk walks a directory tree inside the root.
func (k *kustFS) Walk(p string, walkFn filepath.WalkFunc) error {
	name, err := k.name(p)
	if err != nil {
		return walkFn(p, nil, err)
	}
	return fs.WalkDir(k.root, name, func(n string, d fs.DirEntry, err error) error {
		if err != nil {
			return walkFn(k.abs(n), nil, err)
		}
		info, err := d.Info()
		return walkFn(k.abs(n), info, err)
	})
}

// kustFile is a file kustomize opened.
type kustFile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (f *kustFile) Write([]byte) (int, error)  { return 0, errReadOnly }
func (f *kustFile) Close() error               { return nil }
func (f *kustFile) Stat() (os.FileInfo, error) { return f.info, nil }
