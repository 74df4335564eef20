package outdir

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
)

// holds reports whether dir already holds exactly files, as build would write them: the same
// IndexFile, every file a regular file of mode 0644 with the same bytes, every directory of
// theirs a directory of mode 0755, and nothing else but user files build would carry over
// unchanged (regular files, symbolic links and directories). Any doubt (an error, a special
// file, a file that changed while read) is false: the directory is then written anew, which
// reports what is wrong.
func (p *Pending) holds(files map[string][]byte) bool {
	if p.old == nil {
		return false
	}
	root, err := os.OpenRoot(p.dir)
	if err != nil {
		return false
	}
	defer root.Close()
	if p.checkSame(root) != nil {
		return false
	}
	dirs := parentSet(sortedKeys(files))
	seen := 0
	ok := walkHeld(root, ".", func(rel string, info fs.FileInfo) bool {
		want, ours := files[rel]
		switch {
		case info.IsDir():
			return !dirs[rel] || info.Mode().Perm() == 0o755
		case !ours:
			return info.Mode().IsRegular() || info.Mode()&fs.ModeSymlink != 0
		}
		seen++
		return info.Mode().IsRegular() && info.Mode().Perm() == 0o644 && info.Size() == int64(len(want)) &&
			sameContent(root, rel, want)
	})
	return ok && seen == len(files)
}

// walkHeld calls visit for every entry below the directory rel of root, depth first in name
// order, descending into directories visit accepts; false as soon as visit or a read fails.
func walkHeld(root *os.Root, rel string, visit func(string, fs.FileInfo) bool) bool {
	f, err := openChecked(root, rel, fs.FileMode.IsDir, "directory")
	if err != nil {
		return false
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return false
	}
	slices.Sort(names)
	for _, name := range names {
		child := name
		if rel != "." {
			child = rel + "/" + name
		}
		info, err := root.Lstat(child)
		if err != nil || !visit(child, info) {
			return false
		}
		if info.IsDir() && !walkHeld(root, child, visit) {
			return false
		}
	}
	return true
}

// sameContent reports whether the regular file rel of root holds exactly want.
func sameContent(root *os.Root, rel string, want []byte) bool {
	f, err := openChecked(root, rel, fs.FileMode.IsRegular, "regular file")
	if err != nil {
		return false
	}
	defer f.Close()
	got := make([]byte, len(want)+1)
	n, err := io.ReadFull(f, got)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false
	}
	return bytes.Equal(got[:n], want)
}
