package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// olmModule is OLM's module; its version is the one this module requires (go.mod), which is
// also the version of the code test/oracle imports.
const olmModule = "github.com/operator-framework/operator-lifecycle-manager"

// The commands of OLM's two controllers, built from the module (go.mod's tool directives keep
// their packages in the module graph).
var olmCommands = map[string]string{
	"olm":     olmModule + "/cmd/olm",
	"catalog": olmModule + "/cmd/catalog",
}

// OLMVersion returns the version of OLM's module this module requires, as the Go toolchain
// resolves it in the current directory's module.
func OLMVersion(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Version}} {{with .Replace}}{{.Path}}{{end}}", olmModule).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, exit.Stderr)
		}
		return "", fmt.Errorf("finding OLM's version: %w", err)
	}
	version, replace, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if replace != "" {
		return "", fmt.Errorf("%s is replaced by %s: the harness runs released OLM only", olmModule, replace)
	}
	return version, nil
}

// Binaries returns a directory holding OLM's olm and catalog binaries, of the version this
// module requires. $OLM_BINARIES names one built beforehand; otherwise they are built with the
// Go toolchain into a cache outside the work tree ($XDG_CACHE_HOME/olm-render-test, else
// ~/.cache/olm-render-test), once per OLM and Go version, so that fresh clones on the same
// machine (CI) reuse them.
func Binaries(ctx context.Context) (string, error) {
	if dir := os.Getenv("OLM_BINARIES"); dir != "" {
		return dir, haveBinaries(dir)
	}
	version, err := OLMVersion(ctx)
	if err != nil {
		return "", err
	}
	cache, err := cacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, fmt.Sprintf("olm-%s_%s_%s-%s", version, runtime.Version(), runtime.GOOS, runtime.GOARCH))
	if haveBinaries(dir) == nil {
		return dir, nil
	}
	if err := build(ctx, dir, version); err != nil {
		return "", err
	}
	return dir, haveBinaries(dir)
}

// cacheDir returns the directory the binaries are cached under.
func cacheDir() (string, error) {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("finding a cache directory: %w", err)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "olm-render-test"), nil
}

// haveBinaries reports whether dir holds both binaries.
func haveBinaries(dir string) error {
	for name := range olmCommands {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("OLM's %s binary: %w", name, err)
		}
		if st.Mode()&0o111 == 0 {
			return fmt.Errorf("OLM's %s binary %s is not executable", name, filepath.Join(dir, name))
		}
	}
	return nil
}

// build builds both binaries into a temporary directory beside dir, then renames it into
// place, so that a build cut short never leaves half a cache.
func build(ctx context.Context, dir, version string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("creating the binary cache: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("creating the binary cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	// The version OLM's own build stamps (Makefile: -X pkg/version.OLMVersion), which its
	// controllers print at start.
	ldflags := fmt.Sprintf("-X %s/pkg/version.OLMVersion=%s", olmModule, strings.TrimPrefix(version, "v"))
	args := []string{"build", "-trimpath", "-ldflags", ldflags, "-o", tmp + string(filepath.Separator)}
	for _, name := range []string{"catalog", "olm"} {
		args = append(args, olmCommands[name])
	}
	// The module's own build settings (cgo as the toolchain decides), so that the packages
	// the oracle's tests compiled are reused from the build cache.
	cmd := exec.CommandContext(ctx, "go", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && haveBinaries(dir) != nil {
		return fmt.Errorf("caching OLM's binaries: %w", err)
	}
	return nil
}
