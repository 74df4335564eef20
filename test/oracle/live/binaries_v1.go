package live

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// OperatorControllerVersion is the release of OLM v1 the harness runs: operator-controller and
// catalogd, both commands of one module.
const OperatorControllerVersion = "v1.11.0"

// The module of operator-controller and catalogd, and the module whose place the stand-in takes.
const (
	v1Module        = "github.com/operator-framework/operator-controller"
	boxcutterModule = "pkg.package-operator.run/boxcutter"
	certManager     = "github.com/cert-manager/cert-manager"
)

// v1Commands are OLM v1's two commands, by binary name.
var v1Commands = map[string]string{
	"operator-controller": v1Module + "/cmd/operator-controller",
	"catalogd":            v1Module + "/cmd/catalogd",
}

// standInDir is where the boxcutter stand-in lives, relative to this module's root.
const standInDir = "live/boxcutter-standin"

// The CRDs V1Binaries copies out of the modules beside the binaries, by the directory they go to
// under crds/: OLM v1's own (helm/olmv1/base/*/crd/{standard,experimental}), and cert-manager's
// (deploy/crds) at the version operator-controller requires, for the Issuers and Certificates
// its cert-manager webhook provider writes.
var v1CRDSources = map[string][]string{
	"standard":     {"helm/olmv1/base/operator-controller/crd/standard", "helm/olmv1/base/catalogd/crd/standard"},
	"experimental": {"helm/olmv1/base/operator-controller/crd/experimental", "helm/olmv1/base/catalogd/crd/experimental"},
}

// V1Binaries returns a directory holding operator-controller and catalogd of
// OperatorControllerVersion, with the CRDs they need in crds/{standard,experimental,cert-manager}.
// $OLM_V1_BINARIES names one built beforehand. Otherwise they are built with the Go toolchain
// from the module proxy into the cache Binaries uses, once per version, Go version and content
// of the boxcutter stand-in (see the stand-in's README.md), in a scratch module the harness
// writes there (build/): it requires operator-controller at that version, replaces boxcutter by
// the stand-in and takes operator-controller's own go.sum, so every module is checked against
// the sums operator-controller was released with.
func V1Binaries(ctx context.Context) (string, error) {
	if dir := os.Getenv("OLM_V1_BINARIES"); dir != "" {
		return dir, haveV1Binaries(dir)
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	standIn := filepath.Join(root, standInDir)
	sum, err := treeHash(standIn)
	if err != nil {
		return "", fmt.Errorf("hashing the boxcutter stand-in: %w", err)
	}
	cache, err := cacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, fmt.Sprintf("operator-controller-%s_%s_%s-%s_standin-%s",
		OperatorControllerVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH, sum[:12]))
	if haveV1Binaries(dir) == nil {
		return dir, nil
	}
	if err := buildV1(ctx, dir, standIn); err != nil {
		return "", err
	}
	return dir, haveV1Binaries(dir)
}

// haveV1Binaries reports whether dir holds both binaries and the CRDs.
func haveV1Binaries(dir string) error {
	for name := range v1Commands {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("OLM v1's %s binary: %w", name, err)
		}
		if st.Mode()&0o111 == 0 {
			return fmt.Errorf("OLM v1's %s binary %s is not executable", name, filepath.Join(dir, name))
		}
	}
	for _, set := range []string{"standard", "experimental", "cert-manager"} {
		if _, err := os.Stat(filepath.Join(dir, "crds", set)); err != nil {
			return fmt.Errorf("OLM v1's %s CRDs: %w", set, err)
		}
	}
	return nil
}

// moduleRoot returns the directory of the module the harness runs in (test/oracle).
func moduleRoot(ctx context.Context) (string, error) {
	out, err := goCommand(ctx, "", nil, "list", "-m", "-f", "{{.Dir}}")
	if err != nil {
		return "", fmt.Errorf("finding the oracle module's directory: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// buildV1 writes the scratch module, builds both binaries and copies the CRDs into a temporary
// directory beside dir, then renames it into place, so that a build cut short never leaves half
// a cache.
func buildV1(ctx context.Context, dir, standIn string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("creating the binary cache: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("creating the binary cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	mod := filepath.Join(tmp, "build")
	if err := writeScratchModule(ctx, mod, standIn); err != nil {
		return err
	}
	if err := goBuildV1(ctx, mod, tmp); err != nil {
		return err
	}
	if err := copyV1CRDs(ctx, mod, filepath.Join(tmp, "crds")); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil && haveV1Binaries(dir) != nil {
		return fmt.Errorf("caching OLM v1's binaries: %w", err)
	}
	return nil
}

// downloaded is what `go mod download -json` says of a module.
type downloaded struct {
	Path, Version, Dir, Sum, GoModSum, Error string
}

// download downloads a module version into the module cache (verified against the checksum
// database) and returns where it is.
func download(ctx context.Context, dir, module, version string) (*downloaded, error) {
	out, err := goCommand(ctx, dir, nil, "mod", "download", "-json", module+"@"+version)
	var d downloaded
	if jerr := json.Unmarshal(out, &d); jerr == nil && d.Error != "" {
		return nil, fmt.Errorf("downloading %s@%s: %s", module, version, d.Error)
	}
	if err != nil {
		return nil, fmt.Errorf("downloading %s@%s: %w", module, version, err)
	}
	if d.Dir == "" {
		return nil, fmt.Errorf("downloading %s@%s: go mod download named no directory", module, version)
	}
	return &d, nil
}

// writeScratchModule writes the module the binaries are built in: go.mod requiring
// operator-controller and replacing boxcutter by a copy of the stand-in, and go.sum, which is
// operator-controller's own go.sum with operator-controller's sums added.
func writeScratchModule(ctx context.Context, mod, standIn string) error {
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return fmt.Errorf("creating the scratch module: %w", err)
	}
	oc, err := download(ctx, mod, v1Module, OperatorControllerVersion)
	if err != nil {
		return err
	}
	if err := os.CopyFS(filepath.Join(mod, "boxcutter-standin"), os.DirFS(standIn)); err != nil {
		return fmt.Errorf("copying the boxcutter stand-in: %w", err)
	}
	goMod := fmt.Sprintf(`// Written by the live harness (test/oracle/live, V1Binaries) to build OLM v1's binaries.
module olm-render.test/olm-v1-build

go 1.26.3

require %s %s

// The Go module proxy does not serve boxcutter: see boxcutter-standin/README.md.
replace %s => ./boxcutter-standin
`, v1Module, OperatorControllerVersion, boxcutterModule)
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(goMod), 0o644); err != nil {
		return fmt.Errorf("writing the scratch module's go.mod: %w", err)
	}
	sums, err := os.ReadFile(filepath.Join(oc.Dir, "go.sum"))
	if err != nil {
		return fmt.Errorf("reading operator-controller's go.sum: %w", err)
	}
	sums = fmt.Appendf(bytes.Clone(sums), "%s %s %s\n%s %s/go.mod %s\n",
		v1Module, OperatorControllerVersion, oc.Sum, v1Module, OperatorControllerVersion, oc.GoModSum)
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), sums, 0o644); err != nil {
		return fmt.Errorf("writing the scratch module's go.sum: %w", err)
	}
	return nil
}

// goBuildV1 builds both commands into out as operator-controller's Makefile builds them: cgo
// off, the containers_image_openpgp tag, the version stamped (internal/shared/version).
func goBuildV1(ctx context.Context, mod, out string) error {
	ldflags := fmt.Sprintf("-X %s/internal/shared/version.version=%s", v1Module, OperatorControllerVersion)
	args := []string{"build", "-trimpath", "-tags", "containers_image_openpgp", "-ldflags", ldflags,
		"-o", out + string(filepath.Separator), v1Commands["catalogd"], v1Commands["operator-controller"]}
	if _, err := goCommand(ctx, mod, []string{"CGO_ENABLED=0"}, args...); err != nil {
		return fmt.Errorf("building OLM v1: %w", err)
	}
	return nil
}

// copyV1CRDs copies OLM v1's CRDs (standard and experimental) and cert-manager's into crds.
func copyV1CRDs(ctx context.Context, mod, crds string) error {
	oc, err := download(ctx, mod, v1Module, OperatorControllerVersion)
	if err != nil {
		return err
	}
	for set, srcs := range v1CRDSources {
		for _, src := range srcs {
			if err := copyYAML(filepath.Join(oc.Dir, src), filepath.Join(crds, set)); err != nil {
				return err
			}
		}
	}
	out, err := goCommand(ctx, mod, nil, "list", "-m", "-f", "{{.Version}}", certManager)
	if err != nil {
		return fmt.Errorf("finding cert-manager's version: %w", err)
	}
	cm, err := download(ctx, mod, certManager, strings.TrimSpace(string(out)))
	if err != nil {
		return err
	}
	return copyYAML(filepath.Join(cm.Dir, "deploy/crds"), filepath.Join(crds, "cert-manager"))
}

// copyYAML copies the YAML files of src into dst.
func copyYAML(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dst, err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("reading CRDs: %w", err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return fmt.Errorf("reading CRDs: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			return fmt.Errorf("copying CRDs: %w", err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("no CRDs in %s", src)
	}
	return nil
}

// goCommand runs the go command in dir (the current directory when ""), at a lower priority when
// nice is at hand (the build shares the machine), with the module settings the scratch module
// needs: no workspace, the local toolchain, the go.mod file updated as the build needs.
func goCommand(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	name, cmdArgs := "go", args
	if nice, err := exec.LookPath("nice"); err == nil {
		name, cmdArgs = nice, append([]string{"-n", "10", "go"}, args...)
	}
	cmd := exec.CommandContext(ctx, name, cmdArgs...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local")
	if dir != "" {
		cmd.Env = append(cmd.Env, strings.TrimSpace("GOFLAGS="+os.Getenv("GOFLAGS")+" -mod=mod"))
	}
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out, nil
}

// treeHash returns a hash of every file under dir: its path and content.
func treeHash(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
