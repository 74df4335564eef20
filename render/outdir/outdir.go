package outdir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Pending is a prepared output directory, not yet visible at its final path.
//
// It holds a lock until Commit or Discard; it is not safe for concurrent use.
type Pending struct {
	dir    string      // the output directory, absolute
	tmp    string      // the temporary directory with the new content, beside dir
	old    fs.FileInfo // dir when prepared; nil if it did not exist
	oldAt  string      // where Commit moved the old content
	lock   *lock
	also   *alsoFile
	closed bool
	// unchanged: dir already holds the new content (holds), so nothing was prepared and
	// Commit only lands the Also file.
	unchanged bool
}

// alsoFile is a file that Commit renames from tmp to target.
type alsoFile struct {
	target, tmp string
}

// Prepare validates every path of files, writes them into a fresh temporary directory beside dir
// (in dir's parent), carries over the files of dir that an earlier run did not write (user
// files), and returns the pending change. Nothing at dir changes. When dir already holds
// exactly that content, nothing is written and Commit leaves dir alone.
//
// Every key of files must be a relative, slash-separated path of at most 8 segments, each of
// at most 255 bytes matching ^[a-z0-9_][a-z0-9._-]*$ (or "kustomization.yaml" or IndexFile),
// and no two keys may differ only by case. If files has no IndexFile, Prepare adds one listing
// the keys. Files get mode 0644, directories 0755.
//
// Prepare waits for, and holds until Commit or Discard, a lock that other processes writing dir
// take too; it creates dir's parent if need be, and removes the leftovers of interrupted runs.
// The caller must call Commit or Discard.
func Prepare(dir string, files map[string][]byte) (*Pending, error) {
	dir, err := absDir(dir)
	if err != nil {
		return nil, err
	}
	files = withIndex(files)
	if err := validateKeys(dir, files); err != nil {
		return nil, err
	}
	if _, err := statDir(dir); err != nil {
		return nil, err
	}
	p := &Pending{dir: dir}
	if err := p.start(); err != nil {
		return nil, errors.Join(err, p.Discard())
	}
	if p.unchanged = p.holds(files); p.unchanged {
		return p, nil
	}
	if err := p.makeTemp(); err != nil {
		return nil, errors.Join(err, p.Discard())
	}
	if err := p.build(files); err != nil {
		return nil, errors.Join(err, p.Discard())
	}
	return p, nil
}

// Write is Prepare + Commit.
func Write(dir string, files map[string][]byte) error {
	p, err := Prepare(dir, files)
	if err != nil {
		return err
	}
	return p.Commit()
}

// absDir returns dir made absolute, refusing a file system root.
func absDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", dir, err)
	}
	if filepath.Dir(abs) == abs {
		return "", fmt.Errorf("writing %s: cannot replace a root directory", dir)
	}
	return abs, nil
}

// withIndex returns files with an IndexFile listing its keys added, unless it has one.
func withIndex(files map[string][]byte) map[string][]byte {
	if _, ok := files[IndexFile]; ok {
		return files
	}
	out := make(map[string][]byte, len(files)+1)
	var index bytes.Buffer
	for _, key := range sortedKeys(files) {
		out[key] = files[key]
		index.WriteString(key + "\n")
	}
	out[IndexFile] = index.Bytes()
	return out
}

// statDir returns dir's information, nil if it does not exist, and an error unless it is a
// directory.
func statDir(dir string) (fs.FileInfo, error) {
	info, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("writing %s: %w", dir, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("writing %s: it is a symbolic link", dir)
	case !info.IsDir():
		return nil, fmt.Errorf("writing %s: it exists and is not a directory", dir)
	}
	return info, nil
}

// base returns the name prefix of the files beside dir: ".<base>.olm-render".
func (p *Pending) base() string {
	return "." + filepath.Base(p.dir) + ".olm-render"
}

func (p *Pending) parent() string {
	return filepath.Dir(p.dir)
}

// start takes the lock, cleans up after interrupted runs and looks at dir.
func (p *Pending) start() error {
	if err := os.MkdirAll(p.parent(), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", p.dir, err)
	}
	l, err := acquire(filepath.Join(p.parent(), p.base()+".lock"))
	if err != nil {
		return fmt.Errorf("writing %s: %w", p.dir, err)
	}
	p.lock = l
	if err := removeLeftovers(p.dir, p.base()+"-"); err != nil {
		return err
	}
	if p.old, err = statDir(p.dir); err != nil {
		return err
	}
	return nil
}

// makeTemp creates the temporary directory the new content is built in.
func (p *Pending) makeTemp() error {
	var err error
	if p.tmp, err = os.MkdirTemp(p.parent(), p.base()+"-"); err != nil {
		return fmt.Errorf("writing %s: %w", p.dir, err)
	}
	return nil
}

// build fills the temporary directory: files, then the user files of dir.
func (p *Pending) build(files map[string][]byte) error {
	root, err := os.OpenRoot(p.tmp)
	if err != nil {
		return fmt.Errorf("writing %s: %w", p.dir, err)
	}
	defer root.Close()
	t := newTree(root)
	defer t.close()
	for _, key := range sortedKeys(files) {
		if err := t.writeFile(key, bytes.NewReader(files[key]), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", p.dir, err)
		}
	}
	if err := p.carryUserFiles(t, files); err != nil {
		return err
	}
	if err := t.finish(); err != nil {
		return fmt.Errorf("writing %s: %w", p.dir, err)
	}
	return syncDir(p.parent())
}

// carryUserFiles copies the user files of dir, if it exists, into t.
func (p *Pending) carryUserFiles(t *tree, files map[string][]byte) error {
	if p.old == nil {
		return nil
	}
	src, err := os.OpenRoot(p.dir)
	if err != nil {
		return fmt.Errorf("writing %s: %w", p.dir, err)
	}
	defer src.Close()
	if err := p.checkSame(src); err != nil {
		return err
	}
	c, err := newCarry(p.dir, src, t, files)
	if err != nil {
		return err
	}
	return c.walk(".")
}

// checkSame reports an error unless root is the directory statDir saw at dir.
func (p *Pending) checkSame(root *os.Root) error {
	info, err := root.Stat(".")
	if err != nil {
		return fmt.Errorf("writing %s: %w", p.dir, err)
	}
	if !os.SameFile(info, p.old) {
		return fmt.Errorf("writing %s: it changed while being written", p.dir)
	}
	return nil
}

// Also adds a file outside the directory (e.g. a lock file elsewhere) that Commit writes
// together with the directory: both land, or neither. path must not be inside dir.
//
// The file is written now, with mode 0644, to a temporary file beside path, and renamed over
// path by Commit. Only one file can be added.
func (p *Pending) Also(path string, data []byte) error {
	target, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	switch {
	case p.closed:
		return fmt.Errorf("writing %s: %s was already committed or discarded", path, p.dir)
	case p.also != nil:
		return fmt.Errorf("writing %s: %s is already added, and only one file can be", path, p.also.target)
	}
	if err := p.checkOutside(target); err != nil {
		return err
	}
	tmp, err := writeTemp(target, data)
	if err != nil {
		return err
	}
	p.also = &alsoFile{target: target, tmp: tmp}
	return nil
}

// checkOutside reports an error if target is inside dir or the temporary directory, also after
// resolving the symbolic links in the parents of both, or if it has the name of a lock file or
// leftover beside dir.
func (p *Pending) checkOutside(target string) error {
	if filepath.Dir(target) == p.parent() && strings.HasPrefix(filepath.Base(target), p.base()) {
		return fmt.Errorf("writing %s: the name is reserved for the temporary files of %s", target, p.dir)
	}
	for _, t := range resolved(target) {
		dirs := resolved(p.dir)
		if p.tmp != "" {
			dirs = append(dirs, resolved(p.tmp)...)
		}
		for _, d := range dirs {
			if rel, err := filepath.Rel(d, t); err == nil && filepath.IsLocal(rel) {
				return fmt.Errorf("writing %s: it is inside %s", target, p.dir)
			}
		}
	}
	return nil
}

// resolved returns path, and path with the symbolic links in its parent resolved if that differs.
func resolved(path string) []string {
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil || dir == filepath.Dir(path) {
		return []string{path}
	}
	return []string{path, filepath.Join(dir, filepath.Base(path))}
}

// writeTemp writes data to a new temporary file beside target, syncs it and returns its name.
func writeTemp(target string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".olm-render-*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", target, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing %s: %w", target, err)
	}
	return f.Name(), nil
}

// Commit makes the prepared directory (and the Also files) visible atomically, then removes the
// old content.
//
// If it fails, dir and the Also file are as they were, unless the Also file cannot be renamed
// into place and putting the old directory back fails too (the error then says so). An error
// syncing or removing the old content after both landed is returned too. Commit releases the
// lock in every case.
func (p *Pending) Commit() error {
	if p.closed {
		return fmt.Errorf("writing %s: already committed or discarded", p.dir)
	}
	defer p.close()
	if p.unchanged {
		if err := p.landAlso(); err != nil {
			return err
		}
		return p.syncAfter()
	}
	undo, err := p.swap()
	if err != nil {
		return errors.Join(err, removeAll(p.tmp))
	}
	if err := p.landAlso(); err != nil {
		if uerr := undo(); uerr != nil {
			return errors.Join(err, uerr)
		}
		return errors.Join(err, removeAll(p.tmp))
	}
	return errors.Join(p.syncAfter(), removeAll(p.oldAt))
}

// syncAfter syncs the directories whose entries Commit renamed.
func (p *Pending) syncAfter() error {
	err := syncDir(p.parent())
	if p.also != nil {
		err = errors.Join(err, syncDir(filepath.Dir(p.also.target)))
	}
	return err
}

// landAlso renames the Also file into place.
func (p *Pending) landAlso() error {
	if p.also == nil {
		return nil
	}
	if err := os.Rename(p.also.tmp, p.also.target); err != nil {
		return fmt.Errorf("writing %s: %w", p.also.target, err)
	}
	return nil
}

// Discard removes the temporary state; dir is untouched. Safe after Commit (no-op).
func (p *Pending) Discard() error {
	if p.closed {
		return nil
	}
	err := removeAll(p.tmp)
	return errors.Join(err, p.close())
}

// close removes the temporary Also file, if still there, and releases the lock.
func (p *Pending) close() error {
	p.closed = true
	var err error
	if p.also != nil {
		if rerr := os.Remove(p.also.tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = fmt.Errorf("removing %s: %w", p.also.tmp, rerr)
		}
	}
	return errors.Join(err, p.lock.release())
}

// removeAll removes path and everything below it, following no symbolic link; "" is nothing.
func removeAll(path string) error {
	if path == "" {
		return nil
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return nil
}

// removeLeftovers removes the files beside dir whose names start with prefix, left by
// interrupted runs. If dir is missing and one of them is a directory moved aside by the rename
// fallback (named *.old), it is first put back.
func removeLeftovers(dir, prefix string) error {
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		return fmt.Errorf("writing %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			names = append(names, filepath.Join(filepath.Dir(dir), e.Name()))
		}
	}
	if err := restoreBackup(dir, names); err != nil {
		return err
	}
	for _, name := range names {
		if err := removeAll(name); err != nil {
			return fmt.Errorf("writing %s: %w", dir, err)
		}
	}
	return nil
}

// restoreBackup renames the first directory among names ending in ".old" to dir, if dir is
// missing.
func restoreBackup(dir string, names []string) error {
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for _, name := range names {
		info, err := os.Lstat(name)
		if err != nil || !info.IsDir() || !strings.HasSuffix(name, ".old") {
			continue
		}
		if err := os.Rename(name, dir); err != nil {
			return fmt.Errorf("writing %s: restoring %s: %w", dir, name, err)
		}
		return nil
	}
	return nil
}
