package diff

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// isManifest reports whether a file name holds manifests: *.yaml, *.yml or *.json, except a
// kustomization file (which describes a directory rather than an object).
func isManifest(name string) bool {
	base := path.Base(name)
	switch base {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return false
	}
	switch path.Ext(base) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// ReadDir reads every manifest under dir (recursively, in lexical order), confined to dir: a
// symlink leading out of it, a device or a FIFO is an error. A path that is a file is read on
// its own.
func ReadDir(dir string) ([]*unstructured.Unstructured, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	top, name := dir, "."
	if !info.IsDir() {
		top, name = filepath.Dir(dir), filepath.Base(dir)
	}
	root, err := rootfs.OpenDir(top, rootfs.Limits{})
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return ReadFS(root, name)
}

// ReadFS reads every manifest under name in fsys (recursively, in lexical order); a file is read
// on its own. Every read goes through fsys, so it stays inside its root, reads regular files
// only and within its limits.
func ReadFS(fsys rootfs.FS, name string) ([]*unstructured.Unstructured, error) {
	info, err := fsys.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return readFile(fsys, name)
	}
	var out []*unstructured.Unstructured
	err = fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isManifest(p) {
			return err
		}
		objs, err := readFile(fsys, p)
		out = append(out, objs...)
		return err
	})
	return out, err
}

func readFile(fsys rootfs.FS, name string) ([]*unstructured.Unstructured, error) {
	data, err := fsys.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", fsys.Path(name), rootfs.Describe(err))
	}
	return readBytes(fsys.Path(name), data)
}

func readBytes(name string, data []byte) ([]*unstructured.Unstructured, error) {
	objs, err := utils.ReadObjects(bytes.NewReader(data))
	if err != nil {
		// Decoders quote what they read; a path given may be any file, so say only where.
		return nil, fmt.Errorf("%s: not Kubernetes manifests: %s", name, diag.Decoding(err))
	}
	return objs, nil
}

// ReadGit reads every manifest under pathspec (a file or directory relative to the repository
// root) as it is at revision rev of the git repository in repo.
func ReadGit(repo, rev, pathspec string) ([]*unstructured.Unstructured, error) {
	names, err := gitFiles(repo, rev, pathspec)
	if err != nil {
		return nil, err
	}
	blobs, err := gitBlobs(repo, rev, names)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for i, name := range names {
		objs, err := readBytes(rev+":"+name, blobs[i])
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func gitFiles(repo, rev, pathspec string) ([]string, error) {
	cmd := exec.Command("git", "-C", repo, "ls-tree", "-r", "-z", "--full-name", "--name-only", rev, "--", pathspec)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing %s at %s: %w", pathspec, rev, gitError(err))
	}
	var names []string
	for _, n := range strings.Split(string(out), "\x00") {
		if n != "" && isManifest(n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// gitBlobs reads the files' contents at rev with one git cat-file --batch process.
func gitBlobs(repo, rev string, names []string) ([][]byte, error) {
	var in bytes.Buffer
	for _, n := range names {
		in.WriteString(rev + ":" + n + "\n")
	}
	cmd := exec.Command("git", "-C", repo, "cat-file", "--batch")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("reading files at %s: %w", rev, gitError(err))
	}
	r := bufio.NewReader(bytes.NewReader(out))
	blobs := make([][]byte, 0, len(names))
	for _, n := range names {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("reading %s at %s: %w", n, rev, err)
		}
		fields := strings.Fields(header)
		if len(fields) != 3 {
			return nil, fmt.Errorf("reading %s at %s: git says %q", n, rev, strings.TrimSpace(header))
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, fmt.Errorf("reading %s at %s: %w", n, rev, err)
		}
		blob := make([]byte, size+1) // content and its trailing newline
		if _, err := io.ReadFull(r, blob); err != nil {
			return nil, fmt.Errorf("reading %s at %s: %w", n, rev, err)
		}
		blobs = append(blobs, blob[:size])
	}
	return blobs, nil
}

func gitError(err error) error {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}
