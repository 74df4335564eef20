package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// lockFlags select and control the lock file.
type lockFlags struct {
	path   string
	locked bool
	none   bool
}

func (f *lockFlags) add(fs *pflag.FlagSet, withLocked bool) {
	fs.StringVar(&f.path, "lock", "", "the lock file (default: "+lock.FileName+" in the first input directory, or beside the first input file)")
	if withLocked {
		fs.BoolVar(&f.locked, "locked", false, "fail when the lock is missing, stale or would change (for CI)")
		fs.BoolVar(&f.none, "no-lock", false, "neither read nor write a lock file")
	}
}

// lockPath returns the lock file of the inputs.
func (f *lockFlags) lockPath(paths []string) string {
	if f.path != "" {
		return f.path
	}
	first := paths[0]
	if st, err := os.Stat(first); err == nil && st.IsDir() {
		return filepath.Join(first, lock.FileName)
	}
	return filepath.Join(filepath.Dir(first), lock.FileName)
}

// readLock reads the lock at path; a missing lock is (nil, nil).
func readLock(path string) (*lock.Lock, error) {
	l, err := lock.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return l, err
}

// resolveWith resolves set with installed bundles, keeping the pinned ones exactly.
func resolveWith(base resolver.Options) lock.ResolveFunc {
	return func(ctx context.Context, set *inputs.Set, installed map[string]string, pinned map[string]bool) (*resolver.Result, error) {
		opts := base
		opts.Installed = installed
		opts.Pinned = pinned
		return pipeline.Resolve(ctx, set, opts)
	}
}

// lockedResolution resolves set against its lock: locked Subscriptions keep their bundles,
// changed ones take the step OLM would take from their locked bundle, new ones resolve afresh.
// It returns the resolution, the lock to write (nil when unchanged) and the changes.
func lockedResolution(ctx context.Context, set *inputs.Set, req pipeline.Request, l *lock.Lock, strict bool, lockPath string) (*resolver.Result, *lock.Lock, []lock.Change, error) {
	installed := map[string]string{}
	pinned := map[string]bool{}
	if l != nil {
		stale := lock.Stale(l, set)
		if strict && len(stale) > 0 {
			return nil, nil, nil, fmt.Errorf("%s is stale (run `olm-render lock`):\n  %s", lockPath, strings.Join(stale, "\n  "))
		}
		changed := map[string]bool{}
		for _, s := range set.Subscriptions {
			if e := l.Entry(s.Namespace, s.Name); e != nil && e.Intent != lock.IntentOf(s) {
				changed[s.Namespace+"/"+s.Name] = true
			}
		}
		for key, bundle := range l.Installed() {
			installed[key] = bundle
			if !changed[key] {
				pinned[key] = true
			}
		}
	} else if strict {
		return nil, nil, nil, fmt.Errorf("%s does not exist: run `olm-render lock` and commit it", lockPath)
	}
	res, err := resolveWith(req.Resolve)(ctx, set, installed, pinned)
	if err != nil {
		return nil, nil, nil, err
	}
	next, err := lockOf(set, res)
	if err != nil {
		return nil, nil, nil, err
	}
	changes := lock.Diff(l, next)
	if l != nil && len(changes) == 0 {
		return res, nil, nil, nil
	}
	if strict {
		return nil, nil, nil, fmt.Errorf("%s would change (run `olm-render lock`):\n  %s", lockPath, strings.Join(changeStrings(changes), "\n  "))
	}
	return res, next, changes, nil
}

// lockOf builds the lock of a resolution, pulling the chosen bundles' images concurrently first
// (their content is digested), with the digests of the index images read.
func lockOf(set *inputs.Set, res *resolver.Result) (*lock.Lock, error) {
	pipeline.Prefetch(res)
	l, err := lock.FromResult(res)
	if err != nil {
		return nil, err
	}
	lock.PinCatalogs(l, set)
	return l, nil
}

func changeStrings(cs []lock.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

func printChanges(w io.Writer, prefix string, cs []lock.Change) {
	for _, c := range cs {
		fmt.Fprintf(w, "%s%s\n", prefix, c)
	}
}

func newLockCommand() *cobra.Command {
	var (
		flags requestFlags
		lf    lockFlags
	)
	cmd := &cobra.Command{
		Use:   "lock PATH...",
		Short: "Resolve the Subscriptions afresh and write the lock file",
		Long: "lock resolves every Subscription as a fresh install would (ignoring the current lock) and\n" +
			"writes " + lock.FileName + ": per Subscription the bundle and its content digest. Commit it:\n" +
			"renders then reproduce exactly the locked bundles.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := flags.request(cmd, args)
			if err != nil {
				return err
			}
			defer req.Close()
			path := lf.lockPath(args)
			old, err := readLock(path)
			if err != nil {
				return err
			}
			set, err := loadInputs(cmd, req)
			if err != nil {
				return err
			}
			res, err := pipeline.Resolve(cmd.Context(), set, req.Resolve)
			if err != nil {
				return err
			}
			reportWarnings(cmd.ErrOrStderr(), res.Warnings)
			next, err := lockOf(set, res)
			if err != nil {
				return err
			}
			if err := lock.Write(path, next); err != nil {
				return err
			}
			changes := lock.Diff(old, next)
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d changes)\n", path, len(changes))
			printChanges(cmd.OutOrStdout(), "  ", changes)
			return nil
		},
	}
	flags.addLoad(cmd.Flags())
	lf.add(cmd.Flags(), false)
	return cmd
}

func newUpgradeCommand() *cobra.Command {
	var (
		flags       requestFlags
		lf          lockFlags
		inputPaths  []string
		all, toHead bool
		dryRun      bool
	)
	cmd := &cobra.Command{
		Use:   "upgrade [--all | SUBSCRIPTION...] [-i PATH]...",
		Short: "Take the next upgrade step OLM would take, and update the lock",
		Long: "upgrade moves locked Subscriptions one step along their channel's upgrade graph (replaces, skips,\n" +
			"skipRange), exactly the step OLM takes from an installed CSV; with --to-head, step by step to\n" +
			"the channel head. SUBSCRIPTION is namespace/name, or name when unique. --all moves every\n" +
			"Automatic Subscription; a Manual one moves only when named (the pull request is the approval).\n" +
			"An OperatorCondition declared in the inputs with Upgradeable=False holds its CSV.",
		Example: "  olm-render upgrade --all -i manifests/\n" +
			"  olm-render upgrade -i manifests/ --to-head operators/etcd",
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := flags.request(cmd, inputPaths)
			if err != nil {
				return err
			}
			defer req.Close()
			path := lf.lockPath(inputPaths)
			l, err := readLock(path)
			if err != nil {
				return err
			}
			// Index images are read afresh (a moved tag is the upgrade); bundles stay pinned.
			pinImages(&req, l, false)
			if req.Registry != nil {
				req.Registry.Pins = nil
			}
			set, err := loadInputs(cmd, req)
			if err != nil {
				return err
			}
			if l == nil {
				return fmt.Errorf("%s does not exist: run `olm-render lock` first (upgrades start from what is locked)", path)
			}
			if stale := lock.Stale(l, set); len(stale) > 0 {
				return fmt.Errorf("%s is stale (run `olm-render lock` or `olm-render render` first):\n  %s", path, strings.Join(stale, "\n  "))
			}
			out, err := lock.Upgrade(cmd.Context(), lock.UpgradeRequest{
				Set: set, Lock: l, Subscriptions: args, All: all, ToHead: toHead, Resolve: resolveWith(req.Resolve),
			})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for i, step := range out.Steps {
				if len(out.Steps) > 1 {
					fmt.Fprintf(w, "step %d:\n", i+1)
				}
				printChanges(w, "  ", step)
			}
			if len(out.Steps) == 0 {
				fmt.Fprintln(w, "nothing to upgrade")
			}
			for _, h := range out.Held {
				fmt.Fprintf(w, "held %s\n", h)
			}
			if dryRun || len(out.Steps) == 0 {
				return nil
			}
			lock.PinCatalogs(out.Lock, set)
			if err := lock.Write(path, out.Lock); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s\n", path)
			return nil
		},
	}
	fs := cmd.Flags()
	flags.addLoad(fs)
	lf.add(fs, false)
	fs.StringArrayVarP(&inputPaths, "inputs", "i", []string{"."}, "input file or directory (repeatable)")
	fs.BoolVar(&all, "all", false, "upgrade every Automatic Subscription")
	fs.BoolVar(&toHead, "to-head", false, "repeat the step to the channel head, showing each step")
	fs.BoolVar(&dryRun, "dry-run", false, "show the steps without writing the lock")
	return cmd
}
