// Command fakedocker stands in for `docker run` as kustomize calls it to run a container KRM
// function, where no Docker daemon runs: it runs `olm-render fn` (the binary $FAKEDOCKER_OLM_RENDER)
// in a directory standing for the container's filesystem, with each bind mount's source copied
// to its target there, and has the function read a RenderConfig catalog path that is absolute
// (a path in the container) from that directory, as the container would. It appends the image it
// was asked to run to $FAKEDOCKER_IMAGES.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func main() {
	code, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakedocker:", err)
		os.Exit(125)
	}
	os.Exit(code)
}

// mount is one --mount type=bind,source=S,target=T[,readonly].
type mount struct{ source, target string }

func run(args []string) (int, error) {
	if len(args) == 0 || args[0] != "run" {
		return 0, fmt.Errorf("only `docker run` is faked, not %q", args)
	}
	image, mounts, err := parse(args[1:])
	if err != nil {
		return 0, err
	}
	if err := record(image); err != nil {
		return 0, err
	}
	root, err := os.MkdirTemp("", "fakedocker-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(root)
	for _, m := range mounts {
		if err := os.CopyFS(filepath.Join(root, m.target), os.DirFS(m.source)); err != nil {
			return 0, fmt.Errorf("mounting %s at %s: %w", m.source, m.target, err)
		}
	}
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		return 0, err
	}
	if in, err = inContainer(in, root); err != nil {
		return 0, err
	}
	cmd := exec.Command(os.Getenv("FAKEDOCKER_OLM_RENDER"), "fn")
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = root, bytes.NewReader(in), os.Stdout, os.Stderr
	var exit *exec.ExitError
	if err := cmd.Run(); errors.As(err, &exit) {
		return exit.ExitCode(), nil
	} else if err != nil {
		return 0, err
	}
	return 0, nil
}

// parse reads docker run's flags as kustomize gives them, up to the image.
func parse(args []string) (string, []mount, error) {
	var mounts []mount
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--mount" && i+1 < len(args):
			i++
			m := mount{}
			for _, kv := range strings.Split(args[i], ",") {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "source", "src":
					m.source = v
				case "target", "dst", "destination":
					m.target = v
				}
			}
			mounts = append(mounts, m)
		case a == "-a" || a == "--network" || a == "--user" || a == "-e" || a == "--env":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, mounts, nil
		}
	}
	return "", nil, fmt.Errorf("no image in %q", args)
}

// record appends the image to $FAKEDOCKER_IMAGES.
func record(image string) error {
	f, err := os.OpenFile(os.Getenv("FAKEDOCKER_IMAGES"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintln(f, image)
	return err
}

// inContainer makes the absolute catalog paths of the ResourceList's functionConfig (paths in the
// container) paths under root, where the mounts were copied.
func inContainer(in []byte, root string) ([]byte, error) {
	rl, err := yaml.Parse(string(in))
	if err != nil {
		return nil, err
	}
	catalogs, err := rl.Pipe(yaml.Lookup("functionConfig", "catalogs"))
	if err != nil || catalogs == nil {
		return in, err
	}
	elements, err := catalogs.Elements()
	if err != nil {
		return nil, err
	}
	for _, c := range elements {
		p, err := c.Pipe(yaml.Lookup("path"))
		if err != nil || p == nil || !filepath.IsAbs(p.YNode().Value) {
			continue
		}
		p.YNode().Value = filepath.Join(root, p.YNode().Value)
	}
	out, err := rl.String()
	return []byte(out), err
}
