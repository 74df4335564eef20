package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/gitops"
	"github.com/olm-render/olm-render/render/outdir"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// renderFormats are the formats render writes to stdout.
var renderFormats = []string{"yaml", "json"}

// renderOutput is where render writes: a stream on stdout in a format (-o), or a directory
// (--output-dir).
type renderOutput struct {
	format string
	dir    string
	// dirFlag is how the directory was given, for messages: --output-dir, or -o (deprecated).
	dirFlag string
}

func (o *renderOutput) add(cmd *cobra.Command) {
	addOutputFormat(cmd, &o.format, "yaml", renderFormats...)
	addOutputDir(cmd, &o.dir, "write one file per object and a kustomization.yaml into this directory, atomically, instead of a stream on stdout")
}

// complete takes -o DIR (a value that is no format), the form before --output-dir, as
// --output-dir DIR with a warning.
func (o *renderOutput) complete(cmd *cobra.Command) error {
	o.dirFlag = "--output-dir"
	if slices.Contains(renderFormats, o.format) {
		if o.dir != "" && cmd.Flags().Changed("output") {
			return fmt.Errorf("-o %s writes a stream on stdout and --output-dir a directory of YAML files: give one of them", o.format)
		}
		return nil
	}
	if o.dir != "" {
		return fmt.Errorf("-o %q is not an output format (%s), and --output-dir is given", o.format, joinOr(renderFormats))
	}
	warnf(cmd, "-o DIR is deprecated: use --output-dir %s (-o selects the output format: %s)", o.format, joinOr(renderFormats))
	o.dir, o.dirFlag, o.format = o.format, "-o", "yaml"
	return nil
}

// check refuses an output directory that would overwrite what the render reads: an input path,
// a catalog snapshot, or a directory holding one; or a directory inside an input directory or a
// catalog. The next render would read its own output as inputs (or find no inputs, and an empty
// render makes Flux and Argo CD prune every operator), or a catalog holding rendered objects.
func (o *renderOutput) check(args []string, set *inputs.Set, root *rootfs.Dir) error {
	if o.dir == "" {
		return nil
	}
	out, err := realPath(o.dir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.dirFlag, o.dir, err)
	}
	type read struct {
		path, shown string
		catalog     bool
	}
	var reads []read
	for _, a := range args {
		if a != inputs.Stdin {
			reads = append(reads, read{path: a, shown: a})
		}
	}
	for _, c := range set.Catalogs {
		r := root
		if c.From.Root != nil {
			r = c.From.Root
		}
		if c.From.Image == "" && r != nil {
			reads = append(reads, read{path: filepath.Join(r.Root(), filepath.FromSlash(c.From.Path)), shown: r.Path(c.From.Path), catalog: true})
		}
	}
	for _, rd := range reads {
		p, err := realPath(rd.path)
		if err != nil {
			continue
		}
		switch {
		case rootfs.Within(p, out):
			return fmt.Errorf("%s %s would overwrite %s, which this render reads: write the render to a directory of its own (rendered/, say)", o.dirFlag, o.dir, rd.shown)
		case rd.catalog && rootfs.Within(out, p):
			return fmt.Errorf("%s %s is inside the catalog snapshot %s, which would then hold rendered objects: write the render elsewhere", o.dirFlag, o.dir, rd.shown)
		case rootfs.Within(out, p) && isDir(p):
			return fmt.Errorf("%s %s is inside the input directory %s, which the next render would read: write the render beside the inputs (rendered/, say)", o.dirFlag, o.dir, rd.shown)
		}
	}
	return nil
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// renderLayout says how a directory render is laid out: flat, or for Flux in stages with the
// Kustomizations that apply them.
type renderLayout struct {
	engine gitops.Engine
	flux   gitops.FluxOptions
	root   string // the repository top, where Flux's paths start
	// memo serves the YAML of objects another cluster of the fleet wrote (nil outside a fleet).
	memo *emit.Memo
}

// fluxKustomizationsFile is the file of a Flux layout holding its Flux Kustomizations.
const fluxKustomizationsFile = "flux-kustomizations.yaml"

// write writes the objects (to stdout, or into the output directory) and the lock when it
// changed: with an output directory both land together or neither does, and what was written is
// said on stderr.
func (o *renderOutput) write(cmd *cobra.Command, layout renderLayout, objs, prediction []*unstructured.Unstructured, lockPath string, next *lock.Lock) error {
	if o.dir == "" {
		var buf bytes.Buffer
		if err := o.stream(&buf, objs); err != nil {
			return err
		}
		if next != nil {
			if err := lock.Write(lockPath, next); err != nil {
				return err
			}
		}
		_, err := buf.WriteTo(cmd.OutOrStdout())
		return err
	}
	pending, err := o.prepare(layout, objs, prediction)
	if err != nil {
		return err
	}
	defer pending.Discard()
	if next != nil {
		data, err := lock.Marshal(next)
		if err != nil {
			return err
		}
		if err := pending.Also(lockPath, data); err != nil {
			return err
		}
	}
	if err := pending.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d objects to %s\n", len(objs), o.dir)
	if len(prediction) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote the prediction, %d objects OLM will create (applied by nothing), to %s\n", len(prediction), filepath.Join(o.dir, emit.PredictionDir))
	}
	return nil
}

// stream writes the objects as a YAML stream, or as JSON: a List, as kubectl prints several
// objects.
func (o *renderOutput) stream(buf *bytes.Buffer, objs []*unstructured.Unstructured) error {
	if o.format != "json" {
		return emit.Stream(buf, objs)
	}
	items := make([]map[string]any, len(objs))
	for i, u := range objs {
		items[i] = u.Object
	}
	data, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the objects as JSON: %w", err)
	}
	buf.Write(append(data, '\n'))
	return nil
}

// prepare builds the output directory: flat, or for Flux crds/ and operators/ with the Flux
// Kustomizations applying them from the directory's place in the repository.
func (o *renderOutput) prepare(layout renderLayout, objs, prediction []*unstructured.Unstructured) (*outdir.Pending, error) {
	// Where OLM runs, nothing needs a stage of its own (OLM installs the CRDs): one directory,
	// whose kustomization.yaml Flux applies, with the prediction beside it.
	if layout.engine != gitops.Flux || len(prediction) > 0 {
		return emit.PrepareDirWithPrediction(o.dir, objs, prediction, layout.memo)
	}
	abs, err := filepath.Abs(o.dir)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", o.dirFlag, o.dir, err)
	}
	rel, err := filepath.Rel(layout.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s %s: the Flux layout names its path in the repository, so it must be inside %s (--root)", o.dirFlag, o.dir, layout.root)
	}
	flux := layout.flux
	flux.Path = "./" + filepath.ToSlash(rel)
	flux.Name = strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '-'
	}, filepath.Base(abs)), "-")
	kustomizations, err := gitops.FluxKustomizations(flux)
	if err != nil {
		return nil, fmt.Errorf("--for flux: %w", err)
	}
	var buf bytes.Buffer
	if err := emit.Stream(&buf, kustomizations); err != nil {
		return nil, err
	}
	stage := func(u *unstructured.Unstructured) string { return string(gitops.StageOf(u)) }
	stages := []string{string(gitops.StageCRDs), string(gitops.StageOperators)}
	return emit.PrepareStagedDir(o.dir, objs, stages, stage, map[string][]byte{fluxKustomizationsFile: buf.Bytes()}, layout.memo)
}
