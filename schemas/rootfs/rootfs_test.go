package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// tree builds a root with files, symbolic links and a FIFO, and a secret beside it.
func tree(t *testing.T) (root, secret string) {
	t.Helper()
	top := t.TempDir()
	root = filepath.Join(top, "repo")
	secret = filepath.Join(top, "secret.yaml")
	must(t, os.WriteFile(secret, []byte("token: s3cr3t\n"), 0o600))
	must(t, os.MkdirAll(filepath.Join(root, "dir", "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "dir", "a.yaml"), []byte("kind: A\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "big.yaml"), make([]byte, 2048), 0o644))
	must(t, os.Symlink("../secret.yaml", filepath.Join(root, "up.yaml")))
	must(t, os.Symlink(secret, filepath.Join(root, "abs.yaml")))
	must(t, os.Symlink("dir/a.yaml", filepath.Join(root, "inside.yaml")))
	must(t, os.Symlink("..", filepath.Join(root, "dir", "parent")))
	must(t, os.Symlink("/dev/zero", filepath.Join(root, "zero.yaml")))
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo.yaml"), 0o644))
	return root, secret
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestDirReadFile(t *testing.T) {
	root, _ := tree(t)
	d, err := OpenDir(root, Limits{MaxFileSize: 1024})
	must(t, err)
	defer d.Close()
	tests := []struct {
		name    string
		want    string
		wantErr error
	}{
		{name: "dir/a.yaml", want: "kind: A\n"},
		{name: "inside.yaml", want: "kind: A\n"},
		{name: "up.yaml", wantErr: ErrOutside},
		{name: "abs.yaml", wantErr: ErrOutside},
		{name: "dir/parent/up.yaml", wantErr: ErrOutside},
		{name: "../secret.yaml", wantErr: ErrOutside},
		{name: "/etc/passwd", wantErr: ErrOutside},
		{name: "zero.yaml", wantErr: ErrOutside},
		{name: "fifo.yaml", wantErr: ErrNotRegular},
		{name: "big.yaml", wantErr: ErrTooLarge},
		{name: "missing.yaml", wantErr: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var (
				got []byte
				err error
			)
			go func() { got, err = d.ReadFile(tt.name); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadFile blocked")
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ReadFile(%q) error = %v, want %v", tt.name, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "s3cr3t") {
					t.Fatalf("error quotes file content: %v", err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ReadFile(%q) = %q, %v, want %q", tt.name, got, err, tt.want)
			}
		})
	}
}

func TestDirTotalBudget(t *testing.T) {
	root, _ := tree(t)
	d, err := OpenDir(root, Limits{MaxFileSize: 1024, MaxTotalSize: 12})
	must(t, err)
	defer d.Close()
	if _, err := d.ReadFile("dir/a.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadFile("dir/a.yaml"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("second read: error = %v, want ErrTooLarge", err)
	}
}

func TestDirRel(t *testing.T) {
	root, secret := tree(t)
	d, err := OpenDir(root, Limits{})
	must(t, err)
	defer d.Close()
	if got, err := d.Rel(filepath.Join(root, "dir", "a.yaml")); err != nil || got != "dir/a.yaml" {
		t.Fatalf("Rel = %q, %v", got, err)
	}
	if got, err := d.Rel(root); err != nil || got != "." {
		t.Fatalf("Rel(root) = %q, %v", got, err)
	}
	for _, p := range []string{secret, filepath.Join(root, ".."), "/etc/passwd"} {
		if _, err := d.Rel(p); !errors.Is(err, ErrOutside) {
			t.Errorf("Rel(%q) error = %v, want ErrOutside", p, err)
		}
	}
}

func TestDirWalkStaysInside(t *testing.T) {
	root, _ := tree(t)
	d, err := OpenDir(root, Limits{})
	must(t, err)
	defer d.Close()
	var seen []string
	err = fs.WalkDir(d, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		seen = append(seen, p)
		return nil
	})
	must(t, err)
	for _, p := range seen {
		if strings.Contains(p, "secret") {
			t.Fatalf("walk reached %s", p)
		}
	}
}

func TestJoin(t *testing.T) {
	tests := []struct{ dir, rel, want string }{
		{"a/b", "../c", "a/c"},
		{"a", "c/d", "a/c/d"},
		{".", "x", "x"},
		{"a", "../../x", ""},
		{"a", "/etc", ""},
	}
	for _, tt := range tests {
		got, err := Join(tt.dir, tt.rel)
		if tt.want == "" {
			if !errors.Is(err, ErrOutside) {
				t.Errorf("Join(%q, %q) error = %v, want ErrOutside", tt.dir, tt.rel, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Join(%q, %q) = %q, %v, want %q", tt.dir, tt.rel, got, err, tt.want)
		}
	}
}

func TestMap(t *testing.T) {
	m, err := NewMap("quay.io/x/bundle@sha256:00", map[string][]byte{
		"manifests/csv.yaml":        []byte("kind: ClusterServiceVersion\n"),
		"metadata/annotations.yaml": []byte("annotations: {}\n"),
	})
	must(t, err)
	if err := fstest.TestFS(m, "manifests/csv.yaml", "metadata/annotations.yaml"); err != nil {
		t.Fatal(err)
	}
	if got := m.Path("manifests/csv.yaml"); got != "quay.io/x/bundle@sha256:00/manifests/csv.yaml" {
		t.Fatalf("Path = %q", got)
	}
	if _, err := NewMap("x", map[string][]byte{"../a": nil}); err == nil {
		t.Fatal("NewMap accepted ../a")
	}
	if _, err := NewMap("x", map[string][]byte{"a": nil, "a/b": nil}); err == nil {
		t.Fatal("NewMap accepted a file that is also a directory")
	}
}

func TestWithinAndGitWorkTree(t *testing.T) {
	for _, tt := range []struct {
		p, dir string
		want   bool
	}{{"/a/b", "/a", true}, {"/a", "/a", true}, {"/ab", "/a", false}, {"/a", "/", true}, {"/", "/a", false}} {
		if got := Within(tt.p, tt.dir); got != tt.want {
			t.Errorf("Within(%q, %q) = %v", tt.p, tt.dir, got)
		}
	}
	top := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(top, "repo", ".git"), 0o755))
	must(t, os.MkdirAll(filepath.Join(top, "repo", "a", "b"), 0o755))
	if got, ok := GitWorkTree(filepath.Join(top, "repo", "a", "b")); !ok || got != filepath.Join(top, "repo") {
		t.Errorf("GitWorkTree = %q, %v", got, ok)
	}
	if _, ok := GitWorkTree(top); ok {
		t.Error("a work tree found above a directory outside any")
	}
}
