package outdir

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// IndexFile lists, one a line, the files written, so the next run can tell its own files from the
// user's.
const IndexFile = ".olm-render-files"

const (
	maxDepth   = 8   // most segments in a path
	maxSegment = 255 // most bytes in a segment
)

// validateKeys checks every key of files against checkKey, and that no two differ only by case.
func validateKeys(dir string, files map[string][]byte) error {
	keys := sortedKeys(files)
	folded := map[string]string{}
	for _, key := range keys {
		if other, ok := folded[strings.ToLower(key)]; ok {
			return fmt.Errorf("writing %s: paths %q and %q differ only by case", dir, other, key)
		}
		folded[strings.ToLower(key)] = key
	}
	for _, key := range keys {
		if err := checkKey(dir, key); err != nil {
			return fmt.Errorf("writing %s: invalid path %q: %w", dir, key, err)
		}
	}
	return nil
}

// checkKey reports why key is not a relative, slash-separated path that stays inside dir.
func checkKey(dir, key string) error {
	switch {
	case key == "":
		return fmt.Errorf("empty")
	case strings.ContainsFunc(key, isControl):
		return fmt.Errorf("contains a NUL or control character")
	case strings.Contains(key, `\`):
		return fmt.Errorf("contains a backslash")
	case path.IsAbs(key) || filepath.IsAbs(key) || filepath.VolumeName(key) != "":
		return fmt.Errorf("absolute")
	}
	segments := strings.Split(key, "/")
	if len(segments) > maxDepth {
		return fmt.Errorf("more than %d segments deep", maxDepth)
	}
	for _, s := range segments {
		if err := checkSegment(s); err != nil {
			return err
		}
	}
	return checkInside(dir, key)
}

// checkSegment reports why s is not a valid path segment.
func checkSegment(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty segment")
	case s == "." || s == "..":
		return fmt.Errorf("segment %q", s)
	case len(s) > maxSegment:
		return fmt.Errorf("segment longer than %d bytes", maxSegment)
	case s == "kustomization.yaml" || s == IndexFile || s == ".indexignore":
		return nil
	case !isSegment(s):
		return fmt.Errorf("segment %q is not lower-case letters, digits, '.', '-' and '_' (starting with no '.' or '-')", s)
	}
	return nil
}

// isSegment reports whether s matches ^[a-z0-9_][a-z0-9._-]*$.
func isSegment(s string) bool {
	for i := range len(s) {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || i > 0 && (c == '.' || c == '-')
		if !ok {
			return false
		}
	}
	return s != ""
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f
}

// checkInside reports an error unless filepath.Join(dir, key) is strictly inside dir.
func checkInside(dir, key string) error {
	rel, err := filepath.Rel(dir, filepath.Join(dir, filepath.FromSlash(key)))
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return fmt.Errorf("not inside %s", dir)
	}
	return nil
}

// validKey reports whether key passes checkKey (used for the lines of an earlier IndexFile).
func validKey(dir, key string) bool {
	return checkKey(dir, key) == nil
}

// parents returns every proper ancestor of the slash-separated key, shortest first.
func parents(key string) []string {
	var out []string
	for i := range len(key) {
		if key[i] == '/' {
			out = append(out, key[:i])
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
