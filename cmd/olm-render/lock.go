package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
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

// readLock reads the lock at path through the root, as every input is read; a missing lock is
// (nil, nil).
func readLock(root *rootfs.Dir, path string) (*lock.Lock, error) {
	name, err := root.Rel(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the lock: %s (keep it beside the inputs, or pass --root)", path, rootfs.Describe(err))
	}
	l, err := lock.Read(root, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return l, err
}

// sameLock reports whether two locks are written alike.
func sameLock(a, b *lock.Lock) (bool, error) {
	da, err := lock.Marshal(a)
	if err != nil {
		return false, err
	}
	db, err := lock.Marshal(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(da, db), nil
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

// lockedResolution resolves set against its lock (lock.Resolve). With strict (render --locked) the
// lock must exist, be current and not change. It returns the resolution, the lock to write (nil
// when unchanged) and the changes.
func lockedResolution(ctx context.Context, set *inputs.Set, req pipeline.Request, l *lock.Lock, strict bool, lockPath string) (*resolver.Result, *lock.Lock, []lock.Change, error) {
	if strict {
		if l == nil {
			return nil, nil, nil, fmt.Errorf("%s does not exist: run `olm-render lock %s` and commit it", lockPath, argsHint(req.Paths))
		}
		if stale := lock.Stale(l, set); len(stale) > 0 {
			return nil, nil, nil, fmt.Errorf("%s is stale: run `olm-render lock %s` (it updates only what changed and moves no other version):\n  %s",
				lockPath, argsHint(req.Paths), strings.Join(stale, "\n  "))
		}
	}
	res, next, changes, err := lock.Resolve(ctx, set, l, req.Resolve)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("resolving subscriptions: %w", err)
	}
	if l != nil && len(changes) == 0 {
		if same, err := sameLock(l, next); err != nil || same {
			return res, nil, nil, err
		}
		// The versions stand, but the file is not what `lock` writes (an edited field no
		// resolution reads, such as an entry's package or catalog): render --locked must not
		// accept what `lock` would rewrite.
		if strict {
			return nil, nil, nil, fmt.Errorf("%s differs from what `olm-render lock %s` writes for the same versions (an entry was edited by hand): run it and commit the result",
				lockPath, argsHint(req.Paths))
		}
		return res, next, nil, nil
	}
	if strict {
		return nil, nil, nil, fmt.Errorf("%s would change: run `olm-render lock %s`:\n  %s", lockPath, argsHint(req.Paths), strings.Join(changeStrings(changes), "\n  "))
	}
	return res, next, changes, nil
}

// argsHint shows input paths as a command line takes them.
func argsHint(paths []string) string { return strings.Join(paths, " ") }

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
		flags   requestFlags
		lf      lockFlags
		upgrade bool
	)
	cmd := &cobra.Command{
		Use:   "lock PATH...",
		Short: "Bring the lock file up to date with the Subscriptions, moving no version that need not move",
		Long: "lock writes " + lock.FileName + ": per Subscription the bundle and its content digest, and the digest of\n" +
			"every index image. With a lock already there it changes only what the inputs changed: a new\n" +
			"Subscription resolves, a removed one leaves, a changed channel takes the step OLM would take, a\n" +
			"changed installPlanApproval moves nothing, and every other Subscription keeps its bundle. With\n" +
			"--upgrade it resolves everything afresh (the channel heads), as a first install would; to take\n" +
			"upgrade steps the way OLM does, use `olm-render upgrade`.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := flags.request(cmd, args)
			if err != nil {
				return err
			}
			defer req.Close()
			path := lf.lockPath(args)
			old, err := readLock(req.Root, path)
			if err != nil {
				return err
			}
			base := old
			if upgrade {
				base = nil
				req.Registry.Pins = nil
			} else {
				pinImages(&req, old, false)
			}
			set, err := loadInputs(cmd, req)
			if err != nil {
				return err
			}
			res, next, changes, err := lock.Resolve(cmd.Context(), set, base, req.Resolve)
			if err != nil {
				return err
			}
			reportWarnings(cmd.ErrOrStderr(), res.Warnings)
			if upgrade {
				changes = lock.Diff(old, next)
			}
			if err := guardEmpty(old, next, flags.allowEmpty, path); err != nil {
				return err
			}
			if err := lock.Write(path, next); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d changes)\n", path, len(changes))
			printChanges(cmd.OutOrStdout(), "  ", changes)
			return nil
		},
	}
	flags.addLoad(cmd.Flags())
	lf.add(cmd.Flags(), false)
	cmd.Flags().BoolVar(&upgrade, "upgrade", false, "resolve every Subscription afresh (channel heads), ignoring the locked versions")
	return cmd
}

// guardEmpty refuses to write a lock without entries over one that has some, unless asked: it
// would remove every operator.
func guardEmpty(old, next *lock.Lock, allow bool, path string) error {
	if allow || old == nil || old.Len() == 0 || next.Len() > 0 {
		return nil
	}
	return fmt.Errorf("%s would lose all its %d entries (the inputs resolve no Subscription): pass --allow-empty to write an empty lock on purpose", path, old.Len())
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
			l, err := readLock(req.Root, path)
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
