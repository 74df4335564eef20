package catalog

import (
	"io/fs"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// readDir lists a directory of a catalog snapshot with every symbolic link resolved through the
// root: a link inside the root counts as what it points to (as opm, reading through os.DirFS,
// follows it); a link the root refuses, leaving it or dangling, is a problem naming it and is
// left out of the listing, never quietly skipped.
func readDir(fsys rootfs.FS, dir string, problems *diag.Problems) ([]fs.DirEntry, error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := entries[:0:0]
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink == 0 {
			out = append(out, e)
			continue
		}
		name := dir + "/" + e.Name()
		if dir == "." {
			name = e.Name()
		}
		st, err := fsys.Stat(name)
		if err != nil {
			problems.Errorf(diag.Origin{File: fsys.Path(name)}, "", "", "cannot follow symbolic link: %s: keep the catalog's files inside the root, not linked from outside it", rootfs.Describe(err))
			continue
		}
		out = append(out, fs.FileInfoToDirEntry(st))
	}
	return out, nil
}
