package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/project"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// The project file (olm-render.yaml, schemas/project) holds the settings every command of a
// repository needs: a command that reads inputs finds it by walking up from its first input (or
// the working directory) to the root, and takes from it every option its command line leaves
// unset. A flag given on the command line wins.

// projectAnnotation marks a command that reads the project file; "fleet" also runs once per
// cluster of a fleet.
const projectAnnotation = "olm-render.dev/project"

// projectKey is the context key of the project a command read.
type projectKey struct{}

// projectState is the project file a command read, and what it set.
type projectState struct {
	file *project.File
	// root is the directory the file was read from (its paths are inside it).
	root string
	// cluster is the fleet cluster the command runs for (--cluster), or nil.
	cluster *project.Cluster
	// set maps each flag the file set to the field that set it.
	set map[string]string
}

// projectOf returns the project a command read, or nil.
func projectOf(cmd *cobra.Command) *projectState {
	if ctx := cmd.Context(); ctx != nil {
		if p, ok := ctx.Value(projectKey{}).(*projectState); ok {
			return p
		}
	}
	return nil
}

// fromProject reports whether the project file set a flag.
func (p *projectState) fromProject(flag string) bool {
	if p == nil {
		return false
	}
	_, ok := p.set[flag]
	return ok
}

// addProjectFlags adds --project, and for a command that runs per cluster of a fleet --cluster.
func addProjectFlags(cmd *cobra.Command, fleet bool) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[projectAnnotation] = "project"
	cmd.Flags().String("project", "", "the project file (default: "+project.FileName+" in the first input's directory or the nearest directory above it, up to --root); --project=none reads none")
	completeFiles(cmd, "project", "yaml")
	if !fleet {
		return
	}
	cmd.Annotations[projectAnnotation] = "fleet"
	cmd.Flags().StringArray("cluster", nil, "the cluster of the project's fleet to run for (repeatable; default with no PATH: every cluster)")
	_ = cmd.RegisterFlagCompletionFunc("cluster", completeClusters)
}

// completeClusters completes --cluster with the clusters of the project file found from the
// working directory.
func completeClusters(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	p, err := findProject(cmd, nil)
	if err != nil || p == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, c := range p.file.Config.Clusters {
		out = append(out, c.Name+"\t"+c.Path)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// loadProject finds the project file of a command that reads one, sets from it every flag the
// command line leaves unset, and keeps it in the command's context. Run before the command.
func loadProject(cmd *cobra.Command, args []string) error {
	if cmd.Annotations[projectAnnotation] == "" {
		return nil
	}
	p, err := findProject(cmd, args)
	if err != nil || p == nil {
		return err
	}
	if p.cluster, err = selectedCluster(cmd, p, args); err != nil {
		return err
	}
	opts := p.file.Config.Options
	if p.cluster != nil {
		if opts, err = p.file.Config.ClusterOptions(*p.cluster); err != nil {
			return fmt.Errorf("%s: clusters %s: options: %w", p.file.Shown, p.cluster.Name, err)
		}
	}
	if err := p.apply(cmd, opts); err != nil {
		return err
	}
	cmd.SetContext(context.WithValue(contextOf(cmd), projectKey{}, p))
	return nil
}

// contextOf is the command's context, or the background one.
func contextOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// selectedCluster is the one cluster --cluster names when the command runs for it with PATHs
// (a fleet run passes them); nil otherwise.
func selectedCluster(cmd *cobra.Command, p *projectState, args []string) (*project.Cluster, error) {
	names, _ := cmd.Flags().GetStringArray("cluster")
	if len(names) != 1 || len(args) == 0 {
		return nil, nil
	}
	c := p.file.Config.Cluster(names[0])
	if c == nil {
		return nil, unknownCluster(p, names[0])
	}
	return c, nil
}

// unknownCluster is the error for a --cluster the project does not declare.
func unknownCluster(p *projectState, name string) error {
	names := p.file.Config.ClusterNames()
	msg := fmt.Sprintf("--cluster %s: %s declares no such cluster", name, p.file.Shown)
	if near := diag.Closest(name, names); near != "" {
		msg += ": did you mean " + near + "?"
	}
	if len(names) == 0 {
		return errors.New(msg + " (it has no clusters:)")
	}
	return fmt.Errorf("%s (clusters: %s)", msg, strings.Join(names, ", "))
}

// apply sets, from the options, every flag the command has and its command line leaves unset.
func (p *projectState) apply(cmd *cobra.Command, opts project.Options) error {
	settings, err := opts.Settings()
	if err != nil {
		return fmt.Errorf("%s: %w", p.file.Shown, err)
	}
	p.set = map[string]string{}
	for _, s := range settings {
		f := cmd.Flags().Lookup(s.Flag)
		if f == nil || f.Changed {
			continue
		}
		// The flag keeps Changed false: the value is the project's, not the command line's.
		if err := f.Value.Set(s.Value); err != nil {
			return fmt.Errorf("%s: %s: %q: %w", p.file.Shown, p.field(s.Field), s.Value, err)
		}
		p.set[s.Flag] = p.field(s.Field)
	}
	return nil
}

// field names an option's field as the file has it: under the cluster when it overrides it.
func (p *projectState) field(f string) string {
	if p.cluster == nil || len(p.cluster.Options) == 0 {
		return f
	}
	if slices.Contains(p.cluster.OwnOptions(), strings.TrimPrefix(f, "options.")) {
		return fmt.Sprintf("clusters[%s].%s", p.cluster.Name, f)
	}
	return f
}

// findProject finds the command's project file: --project, else the nearest olm-render.yaml
// from the first input's directory (the working directory without one) up to the root.
func findProject(cmd *cobra.Command, args []string) (*projectState, error) {
	named, _ := cmd.Flags().GetString("project")
	if named == "none" {
		return nil, nil
	}
	limits := rootfs.DefaultLimits()
	root, start, err := projectSearch(cmd, args)
	if err != nil {
		return nil, err
	}
	dir, err := rootfs.OpenDir(root, limits)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	var f *project.File
	if named != "" {
		f, err = readNamedProject(cmd, dir, named, limits)
	} else if rel, rerr := dir.Rel(start); rerr == nil {
		f, err = project.Find(dir, filepath.ToSlash(rel))
	}
	if err != nil || f == nil {
		return nil, err
	}
	return &projectState{file: f, root: dir.Root()}, nil
}

// readNamedProject reads the project file --project names: wherever it is when a person typed
// it, inside the root when the command line comes from a repository.
func readNamedProject(cmd *cobra.Command, root *rootfs.Dir, named string, limits rootfs.Limits) (*project.File, error) {
	if argsConfined(cmd) {
		name, err := root.Rel(named)
		if err != nil {
			return nil, fmt.Errorf("--project %s: %s", named, rootfs.Describe(err))
		}
		return project.Read(root, name)
	}
	real, err := realPath(named)
	if err != nil {
		return nil, fmt.Errorf("--project %s: %w", named, err)
	}
	own, err := rootfs.OpenDir(filepath.Dir(real), limits)
	if err != nil {
		return nil, fmt.Errorf("--project %s: %s", named, rootfs.Describe(err))
	}
	defer own.Close()
	f, err := project.Read(own, filepath.Base(real))
	if err != nil {
		return nil, err
	}
	// Its paths are relative to it, inside the root when it is there.
	if name, err := root.Rel(real); err == nil {
		f.Name = filepath.ToSlash(name)
	} else {
		return nil, fmt.Errorf("--project %s is outside the root %s: the paths it names must be inside it (pass --root)", named, root.Path("."))
	}
	return f, nil
}

// projectSearch returns the root the project file must be inside and the directory the search
// starts from: the first input that exists (a file's directory), else the working directory.
func projectSearch(cmd *cobra.Command, args []string) (root, start string, err error) {
	rootFlag, _ := cmd.Flags().GetString("root")
	var first string
	for _, a := range args {
		if a == inputs.Stdin {
			continue
		}
		if _, err := os.Stat(a); err == nil {
			first = a
			break
		}
	}
	switch {
	case rootFlag != "":
		root = rootFlag
	case first != "" && !argsConfined(cmd):
		if root, err = ownRoot(first); err != nil {
			return "", "", err
		}
	default:
		if root, err = defaultRoot(); err != nil {
			return "", "", err
		}
	}
	if start = first; start == "" {
		if start, err = os.Getwd(); err != nil {
			return "", "", err
		}
	}
	if start, err = realPath(start); err != nil {
		return "", "", err
	}
	if info, err := os.Stat(start); err == nil && !info.IsDir() {
		start = filepath.Dir(start)
	}
	if root, err = realPath(root); err != nil {
		return "", "", err
	}
	return root, start, nil
}

// bindings returns the catalog bindings of the project (and of its cluster, which override
// the project's of the same CatalogSource), each relative to the root the command reads.
func (p *projectState) bindings() []inputs.Binding {
	if p == nil {
		return nil
	}
	var out []inputs.Binding
	add := func(field string, bs []project.CatalogBinding) {
		for i, b := range bs {
			path := b.Path
			if !strings.HasPrefix(path, inputs.ImagePrefix) {
				path = filepath.Join(p.root, filepath.FromSlash(p.file.Join(path)))
			}
			out = slices.DeleteFunc(out, func(o inputs.Binding) bool { return o.Namespace == b.Namespace && o.Name == b.Name })
			out = append(out, inputs.Binding{Namespace: b.Namespace, Name: b.Name, Path: path, Priority: b.Priority,
				Origin: diag.Origin{File: p.file.Shown}, Field: fmt.Sprintf("%s[%d].path", field, i)})
		}
	}
	add("catalogs", p.file.Config.Catalogs)
	if p.cluster != nil {
		add("clusters["+p.cluster.Name+"].catalogs", p.cluster.Catalogs)
	}
	return out
}

// optionError names where a bad option value came from: the project file's field, or the flag.
func (p *projectState) optionError(cmd *cobra.Command, flag string, err error) error {
	if field, ok := p.fieldOf(flag); ok && !changedByUser(cmd, flag) {
		return fmt.Errorf("%s: %s: %w", p.file.Shown, field, err)
	}
	return fmt.Errorf("--%s: %w", flag, err)
}

// fieldOf returns the field of the project file that set a flag.
func (p *projectState) fieldOf(flag string) (string, bool) {
	if p == nil {
		return "", false
	}
	f, ok := p.set[flag]
	return f, ok
}

// changedByUser reports whether the person gave a flag on the command line (not the project).
func changedByUser(cmd *cobra.Command, name string) bool {
	f := cmd.Flags().Lookup(name)
	return f != nil && f.Changed
}

// visitUserFlags calls fn for each flag given on the command line.
func visitUserFlags(cmd *cobra.Command, fn func(*pflag.Flag)) {
	cmd.Flags().Visit(fn)
}

// withProjectBindings adds to the command line's bindings the project's, for the CatalogSources
// the command line does not bind. A project's binding is repository content: its path must be
// inside the root.
func withProjectBindings(root *rootfs.Dir, given, fromProject []inputs.Binding) ([]inputs.Binding, error) {
	out := given
	var problems diag.Problems
	for _, b := range fromProject {
		if slices.ContainsFunc(given, func(g inputs.Binding) bool { return g.Namespace == b.Namespace && g.Name == b.Name }) {
			continue
		}
		// The path stays absolute: the loader takes a relative one from the working directory.
		if _, err := root.Rel(b.Path); err != nil && !strings.HasPrefix(b.Path, inputs.ImagePrefix) {
			problems.Errorf(b.Origin, project.Kind, b.Field, "%s", rootfs.Describe(err))
			continue
		}
		out = append(out, b)
	}
	return out, problems.Err()
}
