package outdir

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// tree writes files into a new directory through an os.Root, never following a symbolic link
// and never replacing anything. Directories are created private and get their final mode, and
// are synced, in finish.
type tree struct {
	root *os.Root
	dirs map[string]fs.FileMode // every directory created (and "."), with its final mode
	// subs are the directories files were created in, each opened once as a root of its own:
	// a file is then created in one step, not by walking its path again from the top.
	subs map[string]*os.Root
}

func newTree(root *os.Root) *tree {
	return &tree{root: root, dirs: map[string]fs.FileMode{".": 0o755}, subs: map[string]*os.Root{".": root}}
}

// close closes the directories opened as roots (not the tree's own).
func (t *tree) close() {
	for dir, sub := range t.subs {
		if dir != "." {
			sub.Close()
		}
	}
	t.subs = map[string]*os.Root{".": t.root}
}

// sub returns the directory rel, created by this tree, opened as a root.
func (t *tree) sub(rel string) (*os.Root, error) {
	if r, ok := t.subs[rel]; ok {
		return r, nil
	}
	r, err := t.root.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	t.subs[rel] = r
	return r, nil
}

// mkdir creates the directory rel, which is to get mode in the end.
func (t *tree) mkdir(rel string, mode fs.FileMode) error {
	if err := t.root.Mkdir(rel, 0o700); err != nil {
		return err
	}
	t.dirs[rel] = mode
	return nil
}

// mkdirs creates the missing parent directories of rel with mode 0755.
func (t *tree) mkdirs(rel string) error {
	for _, dir := range parents(rel) {
		if _, ok := t.dirs[dir]; ok {
			continue
		}
		if err := t.mkdir(dir, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// create creates the new file rel, which must not exist, with its parent directories.
func (t *tree) create(rel string) (*os.File, error) {
	if err := t.mkdirs(rel); err != nil {
		return nil, err
	}
	sub, err := t.sub(path.Dir(rel))
	if err != nil {
		return nil, err
	}
	return sub.OpenFile(path.Base(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
}

// writeFile writes a new file rel with mode, copied from src, and syncs it unless the whole
// tree is synced at once (syncWhole).
func (t *tree) writeFile(rel string, src io.Reader, mode fs.FileMode) error {
	f, err := t.create(rel)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, src)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil && !syncWhole {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// symlink creates the symbolic link rel with the link text target.
func (t *tree) symlink(rel, target string) error {
	if err := t.mkdirs(rel); err != nil {
		return err
	}
	return t.root.Symlink(target, rel)
}

// has reports whether the directory rel has been created.
func (t *tree) has(rel string) bool {
	_, ok := t.dirs[rel]
	return ok
}

// finish gives every directory its final mode and syncs it, the deepest first, or syncs the
// whole tree in one call where it can (syncWhole).
func (t *tree) finish() error {
	t.close()
	dirs := sortedKeys(t.dirs)
	slices.SortStableFunc(dirs, func(a, b string) int {
		return cmp.Compare(depth(b), depth(a))
	})
	for _, dir := range dirs {
		if err := t.finishDir(dir); err != nil {
			return err
		}
	}
	return syncTree(t.root)
}

func (t *tree) finishDir(rel string) error {
	f, err := t.root.OpenFile(rel, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return err
	}
	err = f.Chmod(t.dirs[rel])
	if err == nil && !syncWhole {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("finishing %s: %w", filepath.Join(t.root.Name(), rel), err)
	}
	return nil
}

func depth(rel string) int {
	if rel == "." {
		return 0
	}
	return strings.Count(rel, "/") + 1
}
