package project

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	k8syaml "sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// File is a project file read from a root.
type File struct {
	// Name is the file's path inside the root it was read from (slash-separated).
	Name string
	// Shown is the file as messages name it (the root's Path of Name).
	Shown string
	// Config is its content, validated.
	Config *Config
}

// Dir is the directory the file's paths are relative to, inside its root.
func (f *File) Dir() string { return path.Dir(f.Name) }

// Join returns a path of the file (relative to it) as a path inside its root.
func (f *File) Join(p string) string { return path.Join(f.Dir(), p) }

// Find looks for FileName in dir (a directory inside fsys, slash-separated, "." for its top)
// and in every directory above it up to the top of fsys, and reads the nearest one. It returns
// nil, nil when there is none. A project file that cannot be read or is not a valid RenderConfig
// is an error naming it.
func Find(fsys rootfs.FS, dir string) (*File, error) {
	dir = path.Clean(dir)
	if dir == ".." || strings.HasPrefix(dir, "../") || path.IsAbs(dir) {
		return nil, fmt.Errorf("finding the project file: %s is outside the root", dir)
	}
	for {
		name := path.Join(dir, FileName)
		info, err := fsys.Stat(name)
		switch {
		case err == nil && !info.IsDir():
			return Read(fsys, name)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%s: cannot read the project file: %s", fsys.Path(name), rootfs.Describe(err))
		}
		if dir == "." {
			return nil, nil
		}
		dir = path.Dir(dir)
	}
}

// Read reads and validates the project file name of fsys.
func Read(fsys rootfs.FS, name string) (*File, error) {
	shown := fsys.Path(name)
	data, err := fsys.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the project file: %s", shown, rootfs.Describe(err))
	}
	cfg, err := Parse(shown, data)
	if err != nil {
		return nil, err
	}
	return &File{Name: name, Shown: shown, Config: cfg}, nil
}

// Parse decodes a RenderConfig (YAML or JSON) and validates it; file names it in errors. An
// unknown field is an error naming the field it most likely meant.
func Parse(file string, data []byte) (*Config, error) {
	if err := CheckFields(file, data); err != nil {
		return nil, err
	}
	cfg := &Config{}
	if err := k8syaml.Unmarshal(data, cfg); err != nil {
		return nil, fmt.Errorf("%s: not a RenderConfig: %w", file, err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, problemsOf(file, err)
	}
	return cfg, nil
}

// problemsOf makes each line of a validation error a problem of the file.
func problemsOf(file string, err error) error {
	var ps diag.Problems
	for _, line := range strings.Split(err.Error(), "\n") {
		field, msg, ok := strings.Cut(line, ": ")
		if !ok || strings.ContainsAny(field, " ") {
			field, msg = "", line
		}
		ps.Errorf(diag.Origin{File: file}, Kind, field, "%s", msg)
	}
	return ps.Err()
}

// CheckFields refuses a RenderConfig (YAML or JSON) holding fields a RenderConfig does not have,
// naming each with the field it most likely meant (options.keepIntnet: did you mean
// options.keepIntent?), also in each cluster's options. A document that does not decode is left
// to the decoder's own error.
func CheckFields(file string, data []byte) error {
	js, err := k8syaml.YAMLToJSON(data)
	if err != nil {
		return nil
	}
	var problems diag.Problems
	unknownFields(&problems, file, "", js, &Config{})
	var raw struct {
		Clusters []struct {
			Options map[string]any `json:"options"`
		} `json:"clusters"`
	}
	if k8syaml.Unmarshal(js, &raw) == nil {
		for i, cl := range raw.Clusters {
			if opts, err := k8syaml.Marshal(cl.Options); err == nil && cl.Options != nil {
				if js, err := k8syaml.YAMLToJSON(opts); err == nil {
					unknownFields(&problems, file, fmt.Sprintf("clusters[%d].options.", i), js, &Options{})
				}
			}
		}
	}
	return problems.Err()
}

// unknownFields adds a problem for each field of js that into does not have, prefixed.
func unknownFields(problems *diag.Problems, file, prefix string, js []byte, into any) {
	unknown, err := inputs.UnknownFields(js, into)
	if err != nil {
		return
	}
	for _, f := range unknown {
		msg := "unknown field"
		if f.Suggestion != "" {
			msg += ": did you mean " + prefix + f.Suggestion + "?"
		}
		problems.Errorf(diag.Origin{File: file}, Kind, prefix+f.Path, "%s (a RenderConfig has no such field)", msg)
	}
}
