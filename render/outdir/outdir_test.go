//go:build linux

package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// snapshot describes every entry under root (root included): type, mode, and the contents of
// regular files or the text of links. It follows no symbolic link and opens no special file.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)], err = describe(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func describe(p string) (string, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	switch mode := info.Mode(); {
	case mode.IsRegular():
		data, err := os.ReadFile(p)
		return fmt.Sprintf("file %v %q", mode, data), err
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		return "link -> " + target, err
	default:
		return mode.String(), nil
	}
}

// unchanged fails the test unless root looks as before.
func unchanged(t *testing.T, root string, before map[string]string) {
	t.Helper()
	if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
		t.Errorf("%s changed (-before +after):\n%s", root, diff)
	}
}

// wantError fails the test unless err contains every one of want.
func wantError(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

func sample(tag string) map[string][]byte {
	return map[string][]byte{
		"kustomization.yaml":          []byte("resources: " + tag + "\n"),
		"ops/deployment-a.yaml":       []byte("kind: Deployment # " + tag + "\n"),
		"_cluster/namespace-ops.yaml": []byte("kind: Namespace # " + tag + "\n"),
	}
}

func write(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, data string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

// setup returns a parent directory holding the output directory "out", written once, with a
// user file in it.
func setup(t *testing.T) (parent, dir string) {
	t.Helper()
	parent = t.TempDir()
	dir = filepath.Join(parent, "out")
	write(t, dir, sample("old"))
	writeFile(t, filepath.Join(dir, "README.md"), "mine", 0o600)
	return parent, dir
}

func TestBadKeys(t *testing.T) {
	for _, tc := range []struct {
		name, key, want string
	}{
		{"absolute", "/etc/passwd", "absolute"},
		{"empty", "", "empty"},
		{"dot", ".", `segment "."`},
		{"dot dot", "..", `segment ".."`},
		{"inner dot dot", "ops/../x.yaml", `segment ".."`},
		{"empty segment", "ops//x.yaml", "empty segment"},
		{"trailing slash", "ops/", "empty segment"},
		{"backslash", `ops\x.yaml`, "backslash"},
		{"nul", "x\x00.yaml", "NUL or control"},
		{"newline", "x\n.yaml", "NUL or control"},
		{"delete", "x\x7f.yaml", "NUL or control"},
		{"long segment", strings.Repeat("a", 256), "longer than 255 bytes"},
		{"too deep", "a/b/c/d/e/f/g/h/i.yaml", "more than 8 segments"},
		{"upper case", "ops/X.yaml", "not lower-case"},
		{"hidden", ".hidden", "not lower-case"},
		{"dash first", "-x.yaml", "not lower-case"},
		{"space", "a b.yaml", "not lower-case"},
		{"non-ascii", "é.yaml", "not lower-case"},
		{"upper-case directory", "A/" + IndexFile, "not lower-case"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, dir := setup(t)
			before := snapshot(t, parent)
			files := sample("new")
			files[tc.key] = []byte("x")
			wantError(t, Write(dir, files), "invalid path "+strconv.Quote(tc.key), tc.want)
			unchanged(t, parent, before)
		})
	}
}

func TestKeysDifferingOnlyByCase(t *testing.T) {
	parent, dir := setup(t)
	before := snapshot(t, parent)
	files := sample("new")
	files["ops/cm.yaml"], files["ops/CM.yaml"] = []byte("a"), []byte("b")
	wantError(t, Write(dir, files), `"ops/CM.yaml"`, `"ops/cm.yaml"`, "differ only by case")
	unchanged(t, parent, before)
}

func TestLongestValidKey(t *testing.T) {
	_, dir := setup(t)
	key := "a/b/c/d/e/f/g/" + strings.Repeat("x", 255)
	write(t, dir, map[string][]byte{key: []byte("deep")})
	if data, err := os.ReadFile(filepath.Join(dir, key)); err != nil || string(data) != "deep" {
		t.Errorf("%q, %v", data, err)
	}
}

func TestEscapeViaDotDot(t *testing.T) {
	for _, key := range []string{"../escaped.yaml", "ops/../../escaped.yaml", "../out/escaped.yaml", "../../escaped.yaml"} {
		t.Run(key, func(t *testing.T) {
			parent, dir := setup(t)
			grand := filepath.Dir(parent)
			before := snapshot(t, parent)
			files := sample("new")
			files[key] = []byte("escaped")
			wantError(t, Write(dir, files), strconv.Quote(key), `segment ".."`)
			unchanged(t, parent, before)
			if _, err := os.Lstat(filepath.Join(grand, "escaped.yaml")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("escaped.yaml written outside: %v", err)
			}
		})
	}
}

func TestUserFileClash(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		make      func(t *testing.T, p string)
	}{
		{"file at a new file", "ops/configmap-new.yaml", func(t *testing.T, p string) { writeFile(t, p, "mine", 0o644) }},
		{"file at a new directory", "newns/x.yaml", func(t *testing.T, p string) { writeFile(t, filepath.Dir(p), "mine", 0o644) }},
		{"directory at a new file", "ops/configmap-new.yaml", func(t *testing.T, p string) { writeFile(t, filepath.Join(p, "f"), "mine", 0o644) }},
		{"symbolic link at a new file", "ops/configmap-new.yaml", func(t *testing.T, p string) { symlink(t, "/etc/passwd", p) }},
		{"no index: every file is the user's", "_cluster/namespace-ops.yaml", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, dir := setup(t)
			clash := filepath.Join(dir, filepath.FromSlash(tc.key))
			if tc.make != nil {
				tc.make(t, clash)
			} else if err := os.Remove(filepath.Join(dir, IndexFile)); err != nil {
				t.Fatal(err)
			}
			if tc.name == "file at a new directory" {
				clash = filepath.Dir(clash)
			}
			before := snapshot(t, parent)
			files := sample("new")
			files[tc.key] = []byte("ours")
			wantError(t, Write(dir, files), clash+" exists and was not written by olm-render; move it away")
			unchanged(t, parent, before)
		})
	}
}

func TestUserSymlinksKeptNotFollowed(t *testing.T) {
	_, dir := setup(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret"), "secret", 0o000)
	mkfifo(t, filepath.Join(outside, "fifo"))
	writeFile(t, filepath.Join(outside, "tree", "f.yaml"), "outside", 0o644)
	links := map[string]string{
		"secret":           filepath.Join(outside, "secret"),
		"ops/fifo":         filepath.Join(outside, "fifo"),
		"mem":              "/proc/self/mem",
		"relative-escape":  "../../../etc/passwd",
		"tree":             filepath.Join(outside, "tree"),
		"dangling":         "/nonexistent/x",
		"kustomization-ln": "kustomization.yaml",
	}
	for name, target := range links {
		symlink(t, target, filepath.Join(dir, name))
	}
	beforeOutside := snapshot(t, outside)
	done := make(chan error, 1)
	go func() { done <- Write(dir, sample("new")) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Write blocked: it opened the FIFO a user link points to")
	}
	after := snapshot(t, dir)
	for name, target := range links {
		if got := after[name]; got != "link -> "+target {
			t.Errorf("%s: %s, want a link to %s", name, got, target)
		}
	}
	if _, ok := after["tree/f.yaml"]; ok {
		t.Error("a link to a directory outside was followed")
	}
	unchanged(t, outside, beforeOutside)
	if len(after) != 8+len(links) {
		t.Errorf("unexpected entries: %v", after)
	}
}

func TestUserSpecialFiles(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(t *testing.T, p string)
	}{
		{"fifo", "named pipe (FIFO)", mkfifo},
		{"socket", "socket", func(t *testing.T, p string) {
			l, err := net.Listen("unix", p)
			if err != nil {
				t.Skip(err)
			}
			l.(*net.UnixListener).SetUnlinkOnClose(false)
			l.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, dir := setup(t)
			p := filepath.Join(dir, "ops", "special")
			tc.make(t, p)
			before := snapshot(t, parent)
			wantError(t, Write(dir, sample("new")), p+" is a "+tc.want)
			unchanged(t, parent, before)
		})
	}
}

func TestDirIsSymlink(t *testing.T) {
	parent := t.TempDir()
	real := filepath.Join(parent, "real")
	write(t, real, sample("old"))
	dir := filepath.Join(parent, "out")
	symlink(t, real, dir)
	before := snapshot(t, parent)
	wantError(t, Write(dir, sample("new")), dir, "symbolic link")
	unchanged(t, parent, before)
}

func TestDirIsFile(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	writeFile(t, dir, "a file", 0o644)
	before := snapshot(t, parent)
	wantError(t, Write(dir, sample("new")), dir, "not a directory")
	unchanged(t, parent, before)
}

func TestAlsoRenameFailsUndoesSwap(t *testing.T) {
	for _, exists := range []bool{true, false} {
		t.Run(fmt.Sprintf("dir exists %v", exists), func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if exists {
				write(t, dir, sample("old"))
				writeFile(t, filepath.Join(dir, "README.md"), "mine", 0o600)
			}
			target := filepath.Join(parent, "lock.yaml")
			writeFile(t, filepath.Join(target, "inside"), "a directory", 0o644)
			before := snapshot(t, parent)
			p, err := Prepare(dir, sample("new"))
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Also(target, []byte("lock")); err != nil {
				t.Fatal(err)
			}
			wantError(t, p.Commit(), "writing "+target)
			unchanged(t, parent, before)
		})
	}
}

func TestAlsoLandsWithDir(t *testing.T) {
	parent, dir := setup(t)
	target := filepath.Join(parent, "lock.yaml")
	writeFile(t, target, "old lock", 0o644)
	p, err := Prepare(dir, sample("new"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Also(target, []byte("new lock")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "old lock" {
		t.Errorf("lock changed before Commit: %q", got)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, parent)
	if after["lock.yaml"] != `file -rw-r--r-- "new lock"` || after["out/kustomization.yaml"] != `file -rw-r--r-- "resources: new\n"` {
		t.Errorf("not both landed: %v", after)
	}
	if len(after) != 10 {
		t.Errorf("leftovers: %v", after)
	}
}

func TestAlsoRefused(t *testing.T) {
	parent, dir := setup(t)
	symlink(t, dir, filepath.Join(parent, "via-link"))
	before := snapshot(t, parent)
	p, err := Prepare(dir, sample("new"))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{dir, filepath.Join(dir, "lock"), filepath.Join(parent, "via-link", "lock"), filepath.Join(p.tmp, "x")} {
		wantError(t, p.Also(target, nil), "writing "+target, "is inside "+dir)
	}
	for _, target := range []string{p.tmp, filepath.Join(parent, ".out.olm-render.lock"), filepath.Join(parent, ".out.olm-render-x")} {
		wantError(t, p.Also(target, nil), "writing "+target, "reserved")
	}
	if err := p.Also(filepath.Join(parent, "lock"), nil); err != nil {
		t.Fatal(err)
	}
	wantError(t, p.Also(filepath.Join(parent, "lock2"), nil), "only one file")
	if err := p.Discard(); err != nil {
		t.Fatal(err)
	}
	unchanged(t, parent, before)
	wantError(t, p.Also(filepath.Join(parent, "lock"), nil), "already committed or discarded")
}

func TestDiscardAndCommitOnce(t *testing.T) {
	parent, dir := setup(t)
	before, beforeDir := snapshot(t, parent), snapshot(t, dir)
	p, err := Prepare(dir, sample("new"))
	if err != nil {
		t.Fatal(err)
	}
	unchanged(t, dir, beforeDir)
	if err := p.Discard(); err != nil {
		t.Fatal(err)
	}
	unchanged(t, parent, before)
	if err := p.Discard(); err != nil {
		t.Errorf("second Discard: %v", err)
	}
	wantError(t, p.Commit(), "already committed or discarded")
	p, err = Prepare(dir, sample("new"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := p.Discard(); err != nil {
		t.Errorf("Discard after Commit: %v", err)
	}
	wantError(t, p.Commit(), "already committed or discarded")
}

func TestLeftoversRemoved(t *testing.T) {
	parent, dir := setup(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "keep"), "outside", 0o644)
	writeFile(t, filepath.Join(parent, ".out.olm-render-123", "ops", "x.yaml"), "half written", 0o644)
	writeFile(t, filepath.Join(parent, ".out.olm-render-456.old", "x.yaml"), "old", 0o644)
	writeFile(t, filepath.Join(parent, ".out.olm-render-789"), "a file", 0o644)
	symlink(t, outside, filepath.Join(parent, ".out.olm-render-link"))
	writeFile(t, filepath.Join(parent, ".other.olm-render-1", "x"), "not ours", 0o644)
	beforeOutside := snapshot(t, outside)
	write(t, dir, sample("new"))
	var names []string
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{".other.olm-render-1", "out"}, names); diff != "" {
		t.Errorf("parent (-want +got):\n%s", diff)
	}
	unchanged(t, outside, beforeOutside)
}

func TestBackupRestoredAfterInterruptedFallback(t *testing.T) {
	parent, dir := setup(t)
	backup := filepath.Join(parent, ".out.olm-render-123.old")
	if err := os.Rename(dir, backup); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(parent, ".out.olm-render-123", "kustomization.yaml"), "half", 0o644)
	write(t, dir, sample("new"))
	after := snapshot(t, parent)
	if after["out/README.md"] != `file -rw------- "mine"` {
		t.Errorf("user file in the backup lost: %v", after)
	}
	if _, ok := after[".out.olm-render-123.old"]; ok {
		t.Error("backup left")
	}
}

func TestRenameAside(t *testing.T) {
	parent := t.TempDir()
	tmp, dir, backup := filepath.Join(parent, "tmp"), filepath.Join(parent, "dir"), filepath.Join(parent, "backup")
	writeFile(t, filepath.Join(tmp, "f"), "new", 0o644)
	writeFile(t, filepath.Join(dir, "f"), "old", 0o644)
	undo, err := renameAside(tmp, dir, backup)
	if err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, parent); got["dir/f"] != `file -rw-r--r-- "new"` || got["backup/f"] != `file -rw-r--r-- "old"` {
		t.Errorf("after the swap: %v", got)
	}
	if err := undo(); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, parent); got["dir/f"] != `file -rw-r--r-- "old"` || got["tmp/f"] != `file -rw-r--r-- "new"` {
		t.Errorf("after undo: %v", got)
	}
	// The second rename fails (no tmp): the old directory is put back.
	before := snapshot(t, parent)
	if _, err := renameAside(filepath.Join(parent, "missing"), dir, backup); err == nil {
		t.Fatal("no error")
	}
	unchanged(t, parent, before)
}

func TestConcurrentWrites(t *testing.T) {
	a, b := sample("a"), map[string][]byte{"kustomization.yaml": []byte("b"), "other/b.yaml": []byte("b")}
	want := map[string]map[string]string{}
	for name, files := range map[string]map[string][]byte{"a": a, "b": b} {
		d := filepath.Join(t.TempDir(), "out")
		write(t, d, files)
		want[name] = snapshot(t, d)
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	for range 10 {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, files := range []map[string][]byte{a, b} {
			wg.Go(func() { errs[i] = Write(dir, files) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		got := snapshot(t, dir)
		if !cmp.Equal(got, want["a"]) && !cmp.Equal(got, want["b"]) {
			t.Fatalf("neither output: %v", got)
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("leftovers: %v", entries)
	}
}

func TestPrepareWaitsForLock(t *testing.T) {
	_, dir := setup(t)
	first, err := Prepare(dir, sample("first"))
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan *Pending, 1)
	go func() {
		p, err := Prepare(dir, sample("second"))
		if err != nil {
			t.Error(err)
		}
		second <- p
	}()
	select {
	case <-second:
		t.Fatal("second Prepare did not wait for the first to finish")
	case <-time.After(200 * time.Millisecond):
	}
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	p := <-second
	if p == nil {
		t.FailNow()
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "kustomization.yaml")); string(got) != "resources: second\n" {
		t.Errorf("kustomization.yaml %q", got)
	}
}

func TestDeterministic(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	a, b := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "out")
	write(t, a, sample("x"))
	write(t, b, sample("x"))
	want := snapshot(t, a)
	unchanged(t, b, want)
	write(t, a, sample("x"))
	unchanged(t, a, want)
	if want["."] != "drwxr-xr-x" || want["ops"] != "drwxr-xr-x" || !strings.HasPrefix(want["ops/deployment-a.yaml"], "file -rw-r--r-- ") {
		t.Errorf("modes depend on the umask: %v", want)
	}
}

func TestFirstWrite(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "new", "out")
	write(t, dir, sample("x"))
	want := map[string]string{
		".":                           "drwxr-xr-x",
		"_cluster":                    "drwxr-xr-x",
		"_cluster/namespace-ops.yaml": `file -rw-r--r-- "kind: Namespace # x\n"`,
		"kustomization.yaml":          `file -rw-r--r-- "resources: x\n"`,
		"ops":                         "drwxr-xr-x",
		"ops/deployment-a.yaml":       `file -rw-r--r-- "kind: Deployment # x\n"`,
		IndexFile:                     `file -rw-r--r-- "_cluster/namespace-ops.yaml\nkustomization.yaml\nops/deployment-a.yaml\n"`,
	}
	unchanged(t, dir, want)
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("leftovers: %v", entries)
	}
}

func TestRewriteRemovesStaleFiles(t *testing.T) {
	_, dir := setup(t)
	writeFile(t, filepath.Join(dir, "ops", "extra.yaml"), "mine too", 0o640)
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string][]byte{"kustomization.yaml": []byte("k")})
	want := map[string]string{
		".":                  "drwxr-xr-x",
		"README.md":          `file -rw------- "mine"`,
		"empty":              "drwx------",
		"kustomization.yaml": `file -rw-r--r-- "k"`,
		"ops":                "drwxr-xr-x",
		"ops/extra.yaml":     `file -rw-r----- "mine too"`,
		IndexFile:            `file -rw-r--r-- "kustomization.yaml\n"`,
	}
	// _cluster, which the previous run made and which holds no user file, is gone; ops, which
	// does, is kept.
	unchanged(t, dir, want)
}

func TestIndexFile(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(t *testing.T, p string)
	}{
		{"symbolic link", "is a symbolic link, not a regular file", func(t *testing.T, p string) {
			symlink(t, "kustomization.yaml", p)
		}},
		{"directory", "is a directory, not a regular file", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"fifo", "is a named pipe (FIFO), not a regular file", mkfifo},
		{"too large", "larger than", func(t *testing.T, p string) {
			writeFile(t, p, strings.Repeat("x\n", 1<<19), 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, dir := setup(t)
			p := filepath.Join(dir, IndexFile)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			tc.make(t, p)
			before := snapshot(t, parent)
			wantError(t, Write(dir, sample("new")), "reading "+p, tc.want)
			unchanged(t, parent, before)
		})
	}
}

func TestIndexFileInvalidLinesIgnored(t *testing.T) {
	_, dir := setup(t)
	writeFile(t, filepath.Join(dir, "Mine.yaml"), "mine", 0o644)
	writeFile(t, filepath.Join(dir, "listed.yaml"), "listed", 0o644)
	index := "Mine.yaml\n../../etc/passwd\n/etc/passwd\n\nlisted.yaml\n" + IndexFile + "\nkustomization.yaml"
	writeFile(t, filepath.Join(dir, IndexFile), index, 0o644)
	write(t, dir, map[string][]byte{"kustomization.yaml": []byte("k")})
	got := snapshot(t, dir)
	if got["Mine.yaml"] != `file -rw-r--r-- "mine"` {
		t.Error("a user file named by an invalid index line was removed")
	}
	if _, ok := got["listed.yaml"]; ok {
		t.Error("a file the index lists was kept")
	}
}

func TestExchangeKeepsDirPresent(t *testing.T) {
	parent := t.TempDir()
	x, y := filepath.Join(parent, "x"), filepath.Join(parent, "y")
	writeFile(t, filepath.Join(x, "f"), "x", 0o644)
	writeFile(t, filepath.Join(y, "f"), "y", 0o644)
	if err := exchange(x, y); errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(x, "f")); string(got) != "y" {
		t.Fatalf("not exchanged: %q", got)
	}
	dir := filepath.Join(parent, "out")
	write(t, dir, sample("0"))
	stop, missing := make(chan struct{}), make(chan error, 1)
	go func() {
		defer close(missing)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := os.Stat(filepath.Join(dir, "kustomization.yaml")); err != nil {
				missing <- err
				return
			}
		}
	}()
	for i := range 20 {
		write(t, dir, sample(strconv.Itoa(i)))
	}
	close(stop)
	if err := <-missing; err != nil {
		t.Errorf("the directory went missing during a write: %v", err)
	}
}
