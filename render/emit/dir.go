package emit

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/render/outdir"
)

// IndexFile lists, one a line, the files WriteDir wrote, so the next run can remove the ones it
// no longer writes.
const IndexFile = outdir.IndexFile

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
	files, err := dirFiles(objs, nil)
	if err != nil {
		return err
	}
	return outdir.Write(dir, files)
}

// PrepareDir is WriteDir up to the point where the new content is ready but not yet in place, so
// that the caller can add a file to be committed with it (see outdir.Pending.Also). The caller
// must call Commit or Discard on the result.
func PrepareDir(dir string, objs []*unstructured.Unstructured) (*outdir.Pending, error) {
	files, err := dirFiles(objs, nil)
	if err != nil {
		return nil, err
	}
	return outdir.Prepare(dir, files)
}

// PredictionDir is the directory of an output directory that holds the prediction: the objects
// OLM will create where it keeps running, for review, which no kustomization.yaml lists.
const PredictionDir = "prediction"

// Annotations of the prediction, whichever OLM makes it (v0 where it keeps running, v1's
// operator-controller).
const (
	// LocalConfigAnnotation marks an object kustomize leaves out of a build (and kpt does not
	// apply).
	LocalConfigAnnotation = "config.kubernetes.io/local-config"
	// PredictionAnnotation marks an object of the prediction: what OLM will create, for review.
	PredictionAnnotation = "olm-render.dev/prediction"
)

// MarkPrediction returns a copy of an object marked as part of the prediction, so that nothing
// applies it (LocalConfigAnnotation, PredictionAnnotation).
func MarkPrediction(u *unstructured.Unstructured) *unstructured.Unstructured {
	p := u.DeepCopy()
	annotations := p.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[LocalConfigAnnotation] = "true"
	annotations[PredictionAnnotation] = "true"
	p.SetAnnotations(annotations)
	return p
}

// PrepareDirWithPrediction is PrepareDir with the prediction written beside the objects, one
// file per object under PredictionDir, listed in no kustomization.yaml (each object is also
// marked local-config, which kustomize leaves out of a build).
//
// The memo, when not nil, serves the YAML of objects encoded before (Memo).
func PrepareDirWithPrediction(dir string, objs, prediction []*unstructured.Unstructured, memo *Memo) (*outdir.Pending, error) {
	files, err := dirFiles(objs, memo)
	if err != nil {
		return nil, err
	}
	if len(prediction) == 0 {
		return outdir.Prepare(dir, files)
	}
	names, err := FileNames(prediction)
	if err != nil {
		return nil, err
	}
	written := strings.Split(strings.TrimSpace(string(files[IndexFile])), "\n")
	for i, u := range prediction {
		name := path.Join(PredictionDir, names[i])
		if _, dup := files[name]; dup {
			return nil, fmt.Errorf("%s would be written twice (an object of namespace %s and the prediction's %s)", name, PredictionDir, describe(u))
		}
		if files[name], err = memo.Marshal(u); err != nil {
			return nil, err
		}
		written = append(written, name)
	}
	slices.Sort(written)
	files[IndexFile] = []byte(strings.Join(written, "\n") + "\n")
	return outdir.Prepare(dir, files)
}

// PrepareStagedDir is PrepareDir for a layout in stages: every object in the directory of its
// stage (<stage>/<namespace>/<kind>-<name>.yaml), a kustomization.yaml in each stage directory
// (also one without objects), one at the top listing the stages in the order given, and the
// extra files given by relative path (not listed in any kustomization.yaml).
func PrepareStagedDir(dir string, objs []*unstructured.Unstructured, stages []string, stageOf func(*unstructured.Unstructured) string,
	extra map[string][]byte, memo *Memo) (*outdir.Pending, error) {
	byStage := map[string][]*unstructured.Unstructured{}
	for _, st := range stages {
		byStage[st] = nil
	}
	for _, u := range objs {
		st := stageOf(u)
		if _, ok := byStage[st]; !ok {
			return nil, fmt.Errorf("%s: stage %q is not one of %v", describe(u), st, stages)
		}
		byStage[st] = append(byStage[st], u)
	}
	files := map[string][]byte{}
	for _, st := range stages {
		if st == "" || safe(st) != st || st == "_cluster" {
			return nil, fmt.Errorf("stage %q: want a lower-case directory name", st)
		}
		sub, err := dirFiles(byStage[st], memo)
		if err != nil {
			return nil, err
		}
		delete(sub, IndexFile)
		for name, data := range sub {
			files[path.Join(st, name)] = data
		}
	}
	for name, data := range extra {
		if _, dup := files[name]; dup || name == "kustomization.yaml" || name == IndexFile {
			return nil, fmt.Errorf("%s would be written twice", name)
		}
		files[name] = data
	}
	k, err := yaml.Marshal(kustomization{APIVersion: "kustomize.config.k8s.io/v1beta1", Kind: "Kustomization", Resources: stages})
	if err != nil {
		return nil, fmt.Errorf("encoding kustomization.yaml: %w", err)
	}
	files["kustomization.yaml"] = k
	written := make([]string, 0, len(files))
	for name := range files {
		written = append(written, name)
	}
	slices.Sort(written)
	files[IndexFile] = []byte(strings.Join(written, "\n") + "\n")
	return outdir.Prepare(dir, files)
}

// DirFiles returns the files WriteDir writes for objs, by relative path: one per object, the
// kustomization.yaml listing them and the IndexFile.
func DirFiles(objs []*unstructured.Unstructured) (map[string][]byte, error) {
	return dirFiles(objs, nil)
}

// dirFiles returns the files WriteDir writes, by relative path: one per object (its YAML served
// by the memo when it has it), the kustomization.yaml listing them, and the IndexFile listing
// all of them.
func dirFiles(objs []*unstructured.Unstructured, memo *Memo) (map[string][]byte, error) {
	names, err := FileNames(objs)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for i, u := range objs {
		if files[names[i]], err = memo.Marshal(u); err != nil {
			return nil, err
		}
	}
	resources := append([]string{}, names...)
	slices.Sort(resources)
	k, err := yaml.Marshal(kustomization{APIVersion: "kustomize.config.k8s.io/v1beta1", Kind: "Kustomization", Resources: resources})
	if err != nil {
		return nil, fmt.Errorf("encoding kustomization.yaml: %w", err)
	}
	files["kustomization.yaml"] = k
	written := append(resources, "kustomization.yaml")
	slices.Sort(written)
	files[IndexFile] = []byte(strings.Join(written, "\n") + "\n")
	return files, nil
}
