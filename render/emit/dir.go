package emit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// IndexFile lists, one a line, the files WriteDir wrote, so the next run can remove the ones it
// no longer writes.
const IndexFile = ".olm-render-files"

// kustomization is the kustomization.yaml WriteDir writes.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
}

// FileNames returns the relative file name of every object, in the order given:
// <namespace>/<kind>-<name>.yaml, or _cluster/<kind>-<name>.yaml for cluster-scoped objects,
// lower-case, with the kind's group added where two objects would share a name.
func FileNames(objs []*unstructured.Unstructured) ([]string, error) {
	names := make([]string, len(objs))
	count := map[string]int{}
	for i, u := range objs {
		names[i] = fileName(u, false)
		count[names[i]]++
	}
	seen := map[string]int{}
	for i, u := range objs {
		if count[names[i]] > 1 {
			names[i] = fileName(u, true)
		}
		if j, dup := seen[names[i]]; dup {
			return nil, fmt.Errorf("two objects would be written to %s: %s and %s", names[i], describe(objs[j]), describe(u))
		}
		seen[names[i]] = i
	}
	return names, nil
}

func fileName(u *unstructured.Unstructured, withGroup bool) string {
	dir := u.GetNamespace()
	if dir == "" {
		dir = "_cluster"
	}
	gvk := u.GroupVersionKind()
	kind := gvk.Kind
	if withGroup && gvk.Group != "" {
		kind += "." + gvk.Group
	}
	return path.Join(safe(dir), safe(kind+"-"+u.GetName())+".yaml")
}

// safe lower-cases s and replaces every character but letters, digits, '.', '-' and '_'.
func safe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '_'
	}, s)
}

func describe(u *unstructured.Unstructured) string {
	return fmt.Sprintf("%s %s/%s", u.GetObjectKind().GroupVersionKind().String(), u.GetNamespace(), u.GetName())
}

// WriteDir writes one file per object and a kustomization.yaml into dir, atomically (see the
// package documentation). Files in dir that an earlier WriteDir did not write are kept.
func WriteDir(dir string, objs []*unstructured.Unstructured) error {
	names, err := FileNames(objs)
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	for i, u := range objs {
		if files[names[i]], err = Marshal(u); err != nil {
			return err
		}
	}
	resources := slices.Clone(names)
	slices.Sort(resources)
	k, err := yaml.Marshal(kustomization{APIVersion: "kustomize.config.k8s.io/v1beta1", Kind: "Kustomization", Resources: resources})
	if err != nil {
		return fmt.Errorf("encoding kustomization.yaml: %w", err)
	}
	files["kustomization.yaml"] = k
	written := append(resources, "kustomization.yaml")
	slices.Sort(written)
	files[IndexFile] = []byte(strings.Join(written, "\n") + "\n")
	return replaceDir(dir, files)
}

// replaceDir makes dir hold files, plus the files it held that an earlier run did not write.
func replaceDir(dir string, files map[string][]byte) error {
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("writing %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp)
	for name, data := range files {
		if err := writeFile(filepath.Join(tmp, filepath.FromSlash(name)), data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", dir, err)
		}
	}
	exists, err := isDir(dir)
	if err != nil {
		return err
	}
	if !exists {
		if err := os.Chmod(tmp, 0o755); err != nil {
			return fmt.Errorf("writing %s: %w", dir, err)
		}
		return rename(tmp, dir)
	}
	if err := keepUserFiles(dir, tmp, files); err != nil {
		return err
	}
	old := tmp + ".old"
	if err := rename(dir, old); err != nil {
		return err
	}
	if err := rename(tmp, dir); err != nil {
		_ = os.Rename(old, dir)
		return err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", dir, err)
	}
	return os.RemoveAll(old)
}

// keepUserFiles copies into tmp every file of dir that the previous run did not write.
func keepUserFiles(dir, tmp string, files map[string][]byte) error {
	previous := map[string]bool{IndexFile: true}
	if data, err := os.ReadFile(filepath.Join(dir, IndexFile)); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if line != "" {
				previous[line] = true
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", filepath.Join(dir, IndexFile), err)
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if previous[rel] {
			return nil
		}
		if _, clash := files[rel]; clash {
			return fmt.Errorf("writing %s: %s exists and was not written by olm-render; move it away", dir, p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(tmp, filepath.FromSlash(rel)), data, info.Mode().Perm())
	})
}

func writeFile(p string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, mode)
}

func isDir(p string) (bool, error) {
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("writing %s: %w", p, err)
	case !st.IsDir():
		return false, fmt.Errorf("writing %s: it exists and is not a directory", p)
	}
	return true, nil
}

func rename(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("writing %s: %w", to, err)
	}
	return nil
}
