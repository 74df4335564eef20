//go:build linux

package outdir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// stamps returns the inode number and modification time of every entry under root.
func stamps(t *testing.T, root string) map[string][2]int64 {
	t.Helper()
	out := map[string][2]int64{}
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = [2]int64{int64(info.Sys().(*syscall.Stat_t).Ino), info.ModTime().UnixNano()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUnchangedLeftAlone: writing what the directory already holds rewrites nothing (the same
// inodes and modification times, the user's file kept), and the Also file still lands.
func TestUnchangedLeftAlone(t *testing.T) {
	parent, dir := setup(t)
	before := stamps(t, dir)
	target := filepath.Join(parent, "lock.yaml")
	p, err := Prepare(dir, sample("old"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Also(target, []byte("lock")); err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Errorf("the directory was rewritten:\nbefore %v\nafter  %v", before, after)
	}
	after := snapshot(t, parent)
	if after["lock.yaml"] != `file -rw-r--r-- "lock"` || after["out/README.md"] != `file -rw------- "mine"` {
		t.Errorf("the lock did not land or the user file changed: %v", after)
	}
	if len(after) != 10 {
		t.Errorf("leftovers: %v", after)
	}
}

// TestUnchangedDetectsEveryDifference: a directory that differs from what would be written in
// any way build would change is written anew, and ends as build writes it.
func TestUnchangedDetectsEveryDifference(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"a byte", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "ops", "deployment-a.yaml"), "kind: Deployment # olD\n", 0o644)
		}},
		{"a file's mode", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "kustomization.yaml"), 0o600) }},
		{"a directory's mode", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "ops"), 0o700) }},
		{"a file made a link", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "ops", "deployment-a.yaml")
			data, _ := os.ReadFile(p)
			writeFile(t, filepath.Join(dir, "copy"), string(data), 0o644)
			os.Remove(p)
			symlink(t, "../copy", p)
		}},
		{"a file missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "_cluster", "namespace-ops.yaml")) }},
		{"the index edited", func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, IndexFile), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("ops/stale.yaml\n"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, dir := setup(t)
			tc.change(t, dir)
			write(t, dir, sample("old"))
			fresh := filepath.Join(t.TempDir(), "out")
			write(t, fresh, sample("old"))
			writeFile(t, filepath.Join(fresh, "README.md"), "mine", 0o600)
			got, want := snapshot(t, dir), snapshot(t, fresh)
			delete(got, "copy")
			if len(got) != len(want) {
				t.Errorf("%s: %v, want %v", dir, got, want)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %s = %s, want %s", parent, k, got[k], v)
				}
			}
		})
	}
}

// TestUnchangedSpecialFileStillRefused: a special file among the user's files is refused even
// when everything else is unchanged.
func TestUnchangedSpecialFileStillRefused(t *testing.T) {
	parent, dir := setup(t)
	p := filepath.Join(dir, "ops", "special")
	mkfifo(t, p)
	before := snapshot(t, parent)
	wantError(t, Write(dir, sample("old")), p+" is a named pipe (FIFO)")
	unchanged(t, parent, before)
}

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func equalStamps(a, b map[string][2]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
