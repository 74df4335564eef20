package rootfs

import (
	"os"
	"path/filepath"
	"strings"
)

// Within reports whether the OS path p is dir or inside it; both absolute and clean.
func Within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// GitWorkTree returns the Git work tree holding the absolute directory dir (the nearest
// directory at or above it with a .git entry), and false when there is none.
func GitWorkTree(dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}
