package outdir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxIndex is the size an IndexFile must stay under.
const maxIndex = 1 << 20

// carry copies the user files of an existing output directory into a new one.
type carry struct {
	dir      string            // the output directory, for messages
	src      *os.Root          // on dir
	dst      *tree             // the new directory
	files    map[string][]byte // what the new directory gets
	fileDirs map[string]bool   // the parent directories of files
	ours     map[string]bool   // the files the previous run wrote (its IndexFile)
	oursDirs map[string]bool   // their parent directories
}

func newCarry(dir string, src *os.Root, dst *tree, files map[string][]byte) (*carry, error) {
	ours, err := readIndex(dir, src)
	if err != nil {
		return nil, err
	}
	return &carry{dir: dir, src: src, dst: dst, files: files,
		fileDirs: parentSet(sortedKeys(files)), ours: ours,
		oursDirs: parentSet(sortedKeys(ours))}, nil
}

// walk carries over the user files in the directory rel, in name order.
func (c *carry) walk(rel string) error {
	names, err := c.list(rel)
	if err != nil {
		return err
	}
	for _, name := range names {
		child := name
		if rel != "." {
			child = rel + "/" + name
		}
		if err := c.entry(child); err != nil {
			return err
		}
	}
	return nil
}

// list returns the sorted names in the directory rel.
func (c *carry) list(rel string) ([]string, error) {
	f, err := openChecked(c.src, rel, fs.FileMode.IsDir, "directory")
	if err != nil {
		return nil, c.errorf(rel, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, c.errorf(rel, err)
	}
	slices.Sort(names)
	return names, nil
}

// entry carries over rel unless the previous run wrote it.
func (c *carry) entry(rel string) error {
	if rel == IndexFile {
		return nil
	}
	info, err := c.src.Lstat(rel)
	switch {
	case err != nil:
		return c.errorf(rel, err)
	case info.IsDir():
		return c.directory(rel, info)
	case c.ours[rel]:
		return nil
	case c.clashes(rel):
		return c.clash(rel)
	case info.Mode().IsRegular():
		return c.copy(rel, info)
	case info.Mode()&fs.ModeSymlink != 0:
		return c.link(rel)
	}
	return fmt.Errorf("writing %s: %s is a %s, not a regular file, directory or symbolic link; move it away",
		c.dir, c.path(rel), kind(info.Mode()))
}

// directory recreates the user directory rel (if the previous run did not make it) and walks it.
func (c *carry) directory(rel string, info fs.FileInfo) error {
	if _, ok := c.files[rel]; ok {
		return c.clash(rel)
	}
	if !c.dst.has(rel) && !c.oursDirs[rel] {
		if err := c.dst.mkdirs(rel); err != nil {
			return c.errorf(rel, err)
		}
		if err := c.dst.mkdir(rel, info.Mode().Perm()); err != nil {
			return c.errorf(rel, err)
		}
	}
	return c.walk(rel)
}

// clashes reports whether the user file rel is where a new file or directory goes.
func (c *carry) clashes(rel string) bool {
	_, ok := c.files[rel]
	return ok || c.fileDirs[rel]
}

func (c *carry) clash(rel string) error {
	return fmt.Errorf("writing %s: %s exists and was not written by olm-render; move it away", c.dir, c.path(rel))
}

// copy copies the user's regular file rel, keeping its mode.
func (c *carry) copy(rel string, info fs.FileInfo) error {
	f, err := openChecked(c.src, rel, fs.FileMode.IsRegular, "regular file")
	if err != nil {
		return c.errorf(rel, err)
	}
	defer f.Close()
	if err := c.dst.writeFile(rel, f, info.Mode().Perm()); err != nil {
		return c.errorf(rel, err)
	}
	return nil
}

// link recreates the user's symbolic link rel with the same link text; the target is not touched.
func (c *carry) link(rel string) error {
	target, err := c.src.Readlink(rel)
	if err == nil {
		err = c.dst.symlink(rel, target)
	}
	if err != nil {
		return c.errorf(rel, err)
	}
	return nil
}

func (c *carry) path(rel string) string {
	return filepath.Join(c.dir, filepath.FromSlash(rel))
}

func (c *carry) errorf(rel string, err error) error {
	return fmt.Errorf("writing %s: keeping %s: %w", c.dir, c.path(rel), err)
}

// readIndex returns the valid paths listed in dir's IndexFile (none if there is none).
func readIndex(dir string, src *os.Root) (map[string]bool, error) {
	name := filepath.Join(dir, IndexFile)
	f, err := openChecked(src, IndexFile, fs.FileMode.IsRegular, "regular file")
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIndex))
	if err == nil && len(data) >= maxIndex {
		err = fmt.Errorf("larger than %d bytes", maxIndex-1)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return parseIndex(dir, string(data)), nil
}

// parseIndex returns the lines of an IndexFile that are valid paths.
func parseIndex(dir, data string) map[string]bool {
	out := map[string]bool{}
	for line := range strings.SplitSeq(data, "\n") {
		if validKey(dir, line) {
			out[line] = true
		}
	}
	return out
}

// openChecked opens rel in root for reading, without following a symbolic link, if it is of the
// type what (that is, if want(mode) holds).
func openChecked(root *os.Root, rel string, want func(fs.FileMode) bool, what string) (*os.File, error) {
	before, err := root.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if !want(before.Mode()) {
		return nil, fmt.Errorf("is a %s, not a %s", kind(before.Mode()), what)
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|noFollow|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	after, err := f.Stat()
	if err == nil && !os.SameFile(before, after) {
		err = fmt.Errorf("changed while being read")
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// kind names the type of a file mode.
func kind(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return "regular file"
	case mode.IsDir():
		return "directory"
	case mode&fs.ModeSymlink != 0:
		return "symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "socket"
	case mode&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// parentSet returns every proper ancestor of the given paths.
func parentSet(paths []string) map[string]bool {
	out := map[string]bool{}
	for _, p := range paths {
		for _, dir := range parents(p) {
			out[dir] = true
		}
	}
	return out
}
