package rootfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Dir is a directory tree on disk, opened with os.Root.
type Dir struct {
	root    *os.Root
	fsys    fs.FS
	abs     string // the root as an absolute path
	real    string // the root with symbolic links evaluated
	display string // the root as messages show it
	budget  *budget
}

var _ FS = (*Dir)(nil)

// OpenDir opens the directory tree at dir (absolute, or relative to the working directory).
func OpenDir(dir string, limits Limits) (*Dir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("opening root %s: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("opening root %s: %s", dir, Describe(err))
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	return &Dir{root: root, fsys: root.FS(), abs: abs, real: real, display: displayPath(abs),
		budget: &budget{limits: limits.orDefault()}}, nil
}

// displayPath shows an absolute path relative to the working directory, as users type paths (and
// so that messages do not depend on where a checkout lives).
func displayPath(abs string) string {
	wd, err := os.Getwd()
	if err != nil {
		return abs
	}
	if rel, err := filepath.Rel(wd, abs); err == nil {
		return rel
	}
	return abs
}

// rootName names the root in messages: as users see it, or absolute when that is ".".
func (d *Dir) rootName() string {
	if d.display == "." {
		return d.abs
	}
	return d.display
}

// Close releases the root.
func (d *Dir) Close() error { return d.root.Close() }

// Reopen opens the same root anew, with the same limits: a handle that outlives d (the
// snapshots one run shares between requests read through it after each request closed its own).
func (d *Dir) Reopen() (*Dir, error) { return OpenDir(d.abs, d.budget.limits) }

// Root returns the root's absolute path.
func (d *Dir) Root() string { return d.abs }

// Path returns name as users see it: relative to the working directory.
func (d *Dir) Path(name string) string {
	return filepath.Join(d.display, filepath.FromSlash(name))
}

// Rel converts an OS path (absolute, or relative to the working directory) into a name inside
// the root, failing with ErrOutside when it is not inside. Symbolic links are not resolved here;
// the root resolves them, confined, when the name is opened.
func (d *Dir) Rel(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", &fs.PathError{Op: "open", Path: p, Err: err}
	}
	for _, base := range []string{d.abs, d.real} {
		rel, err := filepath.Rel(base, abs)
		if err == nil && (rel == "." || filepath.IsLocal(rel)) {
			return filepath.ToSlash(rel), nil
		}
	}
	return "", &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("%w %s", ErrOutside, d.rootName())}
}

// Stat returns the file's information, following symbolic links inside the root.
func (d *Dir) Stat(name string) (fs.FileInfo, error) {
	info, err := fs.Stat(d.fsys, name)
	return info, d.wrap("stat", name, err)
}

// Lstat returns the file's information without following a final symbolic link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	info, err := d.root.Lstat(name)
	return info, d.wrap("lstat", name, err)
}

// Readlink returns a symbolic link's target.
func (d *Dir) Readlink(name string) (string, error) {
	target, err := d.root.Readlink(name)
	return target, d.wrap("readlink", name, err)
}

// ReadDir lists a directory, sorted by name.
func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(d.fsys, name)
	return entries, d.wrap("read", name, err)
}

// Open opens a directory, or a regular file for bounded reading.
func (d *Dir) Open(name string) (fs.File, error) {
	info, err := d.Stat(name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		f, err := d.fsys.Open(name)
		return f, d.wrap("open", name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: d.Path(name), Err: notRegular(info.Mode())}
	}
	f, err := d.root.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, d.wrap("open", name, err)
	}
	// Checked again on the open file: it may have been swapped since the Stat.
	if info, err = f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(info.Mode())
		}
		return nil, &fs.PathError{Op: "open", Path: d.Path(name), Err: err}
	}
	return &limitedFile{File: f, r: io.LimitReader(f, d.budget.limits.MaxFileSize)}, nil
}

// ReadFile reads a regular file, bounded by the limits.
func (d *Dir) ReadFile(name string) ([]byte, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lf, ok := f.(*limitedFile)
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: d.Path(name), Err: errors.New("is a directory")}
	}
	info, err := lf.Stat()
	if err != nil {
		return nil, d.wrap("read", name, err)
	}
	data, err := d.budget.readLimited(lf.File, info.Size())
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: d.Path(name), Err: err}
	}
	return data, nil
}

// wrap turns an error of the root into a PathError naming the file as users see it, with
// ErrOutside for names that leave the root.
func (d *Dir) wrap(op, name string, err error) error {
	if err == nil {
		return nil
	}
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err
	}
	if isEscape(cause) || errors.Is(cause, fs.ErrInvalid) && !fs.ValidPath(name) {
		cause = fmt.Errorf("%w %s", ErrOutside, d.rootName())
	}
	return &fs.PathError{Op: op, Path: d.Path(name), Err: cause}
}

// isEscape recognises os.Root's refusal of a path or symbolic link that leaves the root (the
// os package does not export its sentinel).
func isEscape(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if strings.Contains(err.Error(), "path escapes from parent") {
			return true
		}
	}
	return false
}

func notRegular(mode fs.FileMode) error {
	kind := "a special file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		kind = "a FIFO"
	case mode&fs.ModeSocket != 0:
		kind = "a socket"
	case mode&fs.ModeDevice != 0:
		kind = "a device"
	case mode&fs.ModeSymlink != 0:
		kind = "a symbolic link"
	}
	return fmt.Errorf("%w: it is %s; only regular files are read", ErrNotRegular, kind)
}

// limitedFile is an open regular file whose reads stop at the file size limit.
type limitedFile struct {
	*os.File
	r io.Reader
}

func (f *limitedFile) Read(p []byte) (int, error) { return f.r.Read(p) }
