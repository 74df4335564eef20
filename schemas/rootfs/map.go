package rootfs

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// Map is an in-memory tree of regular files (an unpacked image's files, standard input).
type Map struct {
	prefix string
	files  map[string][]byte
	dirs   map[string][]string // directory → sorted child names
}

var _ FS = (*Map)(nil)

// NewMap builds a tree of files; every name must be a valid io/fs name. prefix is how messages
// show the tree's root (an image reference, "<stdin>").
func NewMap(prefix string, files map[string][]byte) (*Map, error) {
	m := &Map{prefix: prefix, files: map[string][]byte{}, dirs: map[string][]string{".": nil}}
	for name, data := range files {
		if !fs.ValidPath(name) || name == "." {
			return nil, fmt.Errorf("%s: invalid file name %q", prefix, name)
		}
		m.files[name] = data
		m.addParents(name)
	}
	for dir, children := range m.dirs {
		if _, clash := m.files[dir]; clash {
			return nil, fmt.Errorf("%s: %s is both a file and a directory", prefix, dir)
		}
		slices.Sort(children)
		m.dirs[dir] = slices.Compact(children)
	}
	return m, nil
}

func (m *Map) addParents(name string) {
	for child := name; child != "."; child = path.Dir(child) {
		parent := path.Dir(child)
		m.dirs[parent] = append(m.dirs[parent], path.Base(child))
	}
}

// Path returns prefix/name.
func (m *Map) Path(name string) string {
	if name == "." {
		return m.prefix
	}
	return strings.TrimSuffix(m.prefix, "/") + "/" + name
}

// Names returns every file name, sorted.
func (m *Map) Names() []string {
	names := make([]string, 0, len(m.files))
	for name := range m.files {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// ReadFile returns a file's content.
func (m *Map) ReadFile(name string) ([]byte, error) {
	data, ok := m.files[name]
	if !ok {
		return nil, m.missing("read", name)
	}
	return bytes.Clone(data), nil
}

// Stat describes a file or directory.
func (m *Map) Stat(name string) (fs.FileInfo, error) {
	if data, ok := m.files[name]; ok {
		return memInfo{name: path.Base(name), size: int64(len(data))}, nil
	}
	if _, ok := m.dirs[name]; ok {
		return memInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, m.missing("stat", name)
}

// ReadDir lists a directory, sorted by name.
func (m *Map) ReadDir(name string) ([]fs.DirEntry, error) {
	children, ok := m.dirs[name]
	if !ok {
		return nil, m.missing("read", name)
	}
	out := make([]fs.DirEntry, 0, len(children))
	for _, c := range children {
		info, err := m.Stat(path.Join(name, c))
		if err != nil {
			return nil, err
		}
		out = append(out, fs.FileInfoToDirEntry(info))
	}
	return out, nil
}

// Open opens a file or directory.
func (m *Map) Open(name string) (fs.File, error) {
	info, err := m.Stat(name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		entries, err := m.ReadDir(name)
		return &memDir{info: info, entries: entries}, err
	}
	return &memFile{info: info, Reader: bytes.NewReader(m.files[name])}, nil
}

func (m *Map) missing(op, name string) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: m.Path(name), Err: ErrOutside}
	}
	return &fs.PathError{Op: op, Path: m.Path(name), Err: fs.ErrNotExist}
}

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }

type memFile struct {
	info fs.FileInfo
	*bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	info    fs.FileInfo
	entries []fs.DirEntry
	offset  int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *memDir) Close() error               { return nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.Name(), Err: fs.ErrInvalid}
}

// ReadDir implements fs.ReadDirFile.
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.offset:]
	if n <= 0 {
		d.offset = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.offset += len(rest)
	return rest, nil
}
