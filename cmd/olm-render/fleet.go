package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/schemas/project"
)

// A fleet is a project file listing clusters, each with its inputs (a base and one overlay per
// cluster, typically) and its output directory. render, lock, upgrade and diff with no PATH run
// once per cluster (or per --cluster named), in one process: a catalog snapshot several clusters
// bind is read once (pipeline.Shared).

// fleetKey is the context key of what the clusters of a fleet run share.
type fleetKey struct{}

// fleetShared is what the clusters of one fleet run share: the catalog snapshots they load and
// the YAML of the objects they write.
type fleetShared struct {
	catalogs *pipeline.Shared
	yaml     *emit.Memo
}

// fleetOf returns what the command's fleet run shares, or nil outside a fleet run.
func fleetOf(cmd *cobra.Command) *fleetShared {
	if ctx := cmd.Context(); ctx != nil {
		if s, ok := ctx.Value(fleetKey{}).(*fleetShared); ok {
			return s
		}
	}
	return nil
}

// sharedOf returns the snapshots the command's run shares, or nil.
func sharedOf(cmd *cobra.Command) *pipeline.Shared {
	if s := fleetOf(cmd); s != nil {
		return s.catalogs
	}
	return nil
}

// memoOf returns the YAML the command's run shares, or nil.
func memoOf(cmd *cobra.Command) *emit.Memo {
	if s := fleetOf(cmd); s != nil {
		return s.yaml
	}
	return nil
}

// fleetRun reports whether the command runs once per cluster: it takes no PATH, and the project
// has clusters.
func fleetRun(cmd *cobra.Command, args []string) bool {
	p := projectOf(cmd)
	return cmd.Annotations[projectAnnotation] == "fleet" && len(args) == 0 && p != nil && len(p.file.Config.Clusters) > 0
}

// noInputs is the error of a command given no PATH outside a fleet.
func noInputs(cmd *cobra.Command) error {
	p := projectOf(cmd)
	if p == nil {
		return fmt.Errorf("%s needs the input PATHs (or a project file, %s, listing clusters)", cmd.CommandPath(), project.FileName)
	}
	return fmt.Errorf("%s needs the input PATHs: %s lists no clusters", cmd.CommandPath(), p.file.Shown)
}

// clusterRun is what one cluster's run of a command adds to the command line.
type clusterRun func(c project.Cluster, in, out string) ([]string, error)

// runFleet runs the command once per selected cluster, in process, with the command line's own
// flags, --cluster NAME and what perCluster adds. Clusters run side by side, as many at once as
// the machine has processors; each one's output is held and printed whole, in the project's
// order, introduced by a line on stderr. It returns the worst exit status (see worse).
func runFleet(cmd *cobra.Command, perCluster clusterRun) error {
	runs, err := fleetRuns(cmd, perCluster)
	if err != nil {
		return err
	}
	shared := &fleetShared{catalogs: pipeline.NewShared(), yaml: &emit.Memo{}}
	defer shared.catalogs.Close()
	ctx := context.WithValue(contextOf(cmd), fleetKey{}, shared)
	results := make([]clusterResult, len(runs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = r.run(ctx, cmd.InOrStdin())
		}()
	}
	wg.Wait()
	var status error
	for i, r := range results {
		fmt.Fprintf(cmd.ErrOrStderr(), "== cluster %s (%s)\n", runs[i].name, runs[i].in)
		cmd.OutOrStdout().Write(r.stdout.Bytes())
		cmd.ErrOrStderr().Write(r.stderr.Bytes())
		status = worse(status, reported(cmd.ErrOrStderr(), r.err))
	}
	return status
}

// clusterRunArgs is one cluster's run of a command: its command line.
type clusterRunArgs struct {
	name, in string
	args     []string
}

// clusterResult is what one cluster's run printed and returned.
type clusterResult struct {
	stdout, stderr bytes.Buffer
	err            error
}

// run runs the cluster's command line in process, holding what it prints.
func (r clusterRunArgs) run(ctx context.Context, stdin io.Reader) clusterResult {
	var res clusterResult
	sub := newRootCommand(stdin, &res.stdout, &res.stderr)
	sub.SetArgs(r.args)
	res.err = sub.ExecuteContext(ctx)
	return res
}

// fleetRuns builds the command line of each selected cluster's run.
func fleetRuns(cmd *cobra.Command, perCluster clusterRun) ([]clusterRunArgs, error) {
	p := projectOf(cmd)
	clusters, err := selectedClusters(cmd, p)
	if err != nil {
		return nil, err
	}
	var out []clusterRunArgs
	for _, c := range clusters {
		in, dir := p.clusterPath(c.Path), p.clusterPath(c.OutputDir)
		extra, err := perCluster(c, in, dir)
		if err != nil {
			return nil, err
		}
		args := append(append(commandPath(cmd), userFlags(cmd, "cluster", "project")...), p.flags(c)...)
		out = append(out, clusterRunArgs{name: c.Name, in: in, args: append(args, extra...)})
	}
	return out, nil
}

// reported prints a cluster run's error (as main does), keeping its exit status.
func reported(stderr io.Writer, err error) error {
	if err == nil {
		return nil
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		err = ee.err
	}
	if err != nil {
		reportError(stderr, err)
	}
	return &exitError{code: code}
}

// worse returns the worse of two exit statuses: an error (1 outside diff, 2 in diff) over a
// gate (3) over a change (1 in diff); nil is success.
func worse(a, b error) error {
	rank := func(err error) int {
		if err == nil {
			return 0
		}
		var ee *exitError
		if !errors.As(err, &ee) {
			return 4
		}
		return map[int]int{1: 1, 3: 2, 2: 3}[ee.code]
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// selectedClusters are the clusters --cluster names, in the project's order, or all.
func selectedClusters(cmd *cobra.Command, p *projectState) ([]project.Cluster, error) {
	names, _ := cmd.Flags().GetStringArray("cluster")
	if len(names) == 0 {
		return p.file.Config.Clusters, nil
	}
	var out []project.Cluster
	for _, n := range names {
		c := p.file.Config.Cluster(n)
		if c == nil {
			return nil, unknownCluster(p, n)
		}
		out = append(out, *c)
	}
	return out, nil
}

// clusterPath shows a path of the project file (relative to it) as the command line would give
// it: relative to the working directory when it can be.
func (p *projectState) clusterPath(rel string) string {
	if rel == "" {
		return ""
	}
	abs := filepath.Join(p.root, filepath.FromSlash(p.file.Join(rel)))
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, abs); err == nil {
			return r
		}
	}
	return abs
}

// commandPath is the command's names below the root (["diff"], ["catalog", "validate"]).
func commandPath(cmd *cobra.Command) []string {
	var out []string
	for c := cmd; c.HasParent(); c = c.Parent() {
		out = append([]string{c.Name()}, out...)
	}
	return out
}

// userFlags are the flags given on the command line, as arguments, except the ones named.
func userFlags(cmd *cobra.Command, except ...string) []string {
	var out []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		for _, e := range except {
			if f.Name == e {
				return
			}
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

// flags are the flags a cluster's run gets: the project file, by its path, and the cluster.
func (p *projectState) flags(c project.Cluster) []string {
	return []string{"--project=" + filepath.Join(p.root, filepath.FromSlash(p.file.Name)), "--cluster=" + c.Name}
}

// needOutputDir is the clusterRun of render: the cluster's output directory.
func needOutputDir(cmd *cobra.Command) clusterRun {
	p := projectOf(cmd)
	return func(c project.Cluster, in, out string) ([]string, error) {
		if changedByUser(cmd, "output-dir") {
			return nil, fmt.Errorf("--output-dir: a fleet writes each cluster to the outputDir %s gives it; render one cluster to another directory with its PATH", p.file.Shown)
		}
		if out == "" {
			return nil, fmt.Errorf("%s: clusters %s: outputDir is required to render a fleet (each cluster is written to its own directory)", p.file.Shown, c.Name)
		}
		return []string{"--output-dir=" + out, in}, nil
	}
}

// inputsOnly is the clusterRun of lock and upgrade: the cluster's inputs.
func inputsOnly(_ project.Cluster, in, _ string) ([]string, error) { return []string{in}, nil }

// fleetJSON runs a diff per cluster with -o json and writes one JSON object holding each
// cluster's report by name.
func fleetJSON(cmd *cobra.Command, perCluster clusterRun) error {
	runs, err := fleetRuns(cmd, perCluster)
	if err != nil {
		return err
	}
	shared := &fleetShared{catalogs: pipeline.NewShared(), yaml: &emit.Memo{}}
	defer shared.catalogs.Close()
	ctx := context.WithValue(contextOf(cmd), fleetKey{}, shared)
	reports := map[string]json.RawMessage{}
	var status error
	for _, r := range runs {
		res := r.run(ctx, cmd.InOrStdin())
		cmd.ErrOrStderr().Write(res.stderr.Bytes())
		status = worse(status, reported(cmd.ErrOrStderr(), res.err))
		if data := bytes.TrimSpace(res.stdout.Bytes()); len(data) > 0 {
			reports[r.name] = json.RawMessage(data)
		}
	}
	data, err := json.MarshalIndent(map[string]any{"clusters": reports}, "", "  ")
	if err != nil {
		return err
	}
	if _, err := cmd.OutOrStdout().Write(append(data, '\n')); err != nil {
		return err
	}
	return status
}
