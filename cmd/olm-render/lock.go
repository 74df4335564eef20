package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olm-render/olm-render/render"
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

// read reads the lock at path (lockPath's); a missing lock is (nil, nil). A --lock typed on the
// command line is read wherever it is; the default one through the root.
func (f *lockFlags) read(cmd *cobra.Command, flags *requestFlags, root *rootfs.Dir, path string) (*lock.Lock, error) {
	return readLock(root, path, f.path != "" && !flags.isConfined(cmd), flags.limits)
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
			return nil, nil, nil, fmt.Errorf("%s differs from what `olm-render lock %s` writes for the same versions (an entry was edited by hand, or written by an older olm-render): run it and commit the result",
				lockPath, argsHint(req.Paths))
		}
		return res, next, nil, nil
	}
	if err := refuseMoves(req, set, next, changes); err != nil {
		return nil, nil, nil, err
	}
	if strict {
		return nil, nil, nil, fmt.Errorf("%s would change: run `olm-render lock %s`:\n  %s", lockPath, argsHint(req.Paths), strings.Join(changeStrings(changes), "\n  "))
	}
	return res, next, changes, nil
}

// refuseDowngrades refuses a lock moving a Subscription to an older version where OLM keeps
// running: OLM never downgrades an installed CSV. Where it does not run, the render is the
// install, and diff's downgrade gate judges it.
func refuseDowngrades(req pipeline.Request, changes []lock.Change) error {
	if req.Render.Target == render.TargetAbsent {
		return nil
	}
	return lock.RefuseDowngrades(changes)
}

// refuseMoves refuses the lock moves the target's OLM would not follow: a downgrade where OLM v0
// runs or with OLM v1, and with OLM v1 a jump past the next hop.
func refuseMoves(req pipeline.Request, set *inputs.Set, next *lock.Lock, changes []lock.Change) error {
	if err := refuseDowngrades(req, changes); err != nil {
		return err
	}
	if req.Render.Target != render.TargetV1 {
		return nil
	}
	return refuseV1Jumps(set, next, changes)
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
		Use:   "lock [PATH...]",
		Short: "Bring the lock file up to date with the Subscriptions, moving no version that need not move",
		Long: "lock writes " + lock.FileName + ": per Subscription the bundle and its content digest, and the digest of\n" +
			"every index image. With a lock already there it changes only what the inputs changed: a new\n" +
			"Subscription resolves, a removed one leaves, a changed channel takes the step OLM would take, a\n" +
			"changed installPlanApproval moves nothing, and every other Subscription keeps its bundle. With\n" +
			"--upgrade it resolves everything afresh (the channel heads), as a first install would; to take\n" +
			"upgrade steps the way OLM does, use `olm-render upgrade`.",
		Example: "  olm-render lock manifests/\n  olm-render lock --upgrade manifests/\n  olm-render lock      # every cluster of the project file's fleet",
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if fleetRun(cmd, args) {
				return runFleet(cmd, inputsOnly)
			}
			if len(args) == 0 {
				return noInputs(cmd)
			}
			req, err := flags.request(cmd, args)
			if err != nil {
				return err
			}
			defer req.Close()
			path := lf.lockPath(req.Paths)
			old, err := lf.read(cmd, &flags, req.Root, path)
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
			if err := refuseMoves(req, set, next, changes); err != nil {
				return err
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
	addOLMFlag(cmd.Flags(), &flags.render.target)
	addProjectFlags(cmd, true)
	flags.complete(cmd)
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
	var o upgradeOptions
	cmd := &cobra.Command{
		Use:   "upgrade [PATH...] (--all | --subscription NAMESPACE/NAME...)",
		Short: "Take the next upgrade step OLM would take, and update the lock",
		Long: "upgrade moves locked Subscriptions of the inputs in PATH one step along their channel's upgrade graph\n" +
			"(replaces, skips, skipRange), exactly the step OLM takes from an installed CSV; with --to-head, step\n" +
			"by step to the channel head. --all moves every Automatic Subscription (with --olm=running, every\n" +
			"Subscription: OLM installs what the lock allows, so the pull request is the approval);\n" +
			"--subscription moves the ones it names (namespace/name, or name when unique), Manual ones too.\n" +
			"An OperatorCondition declared in the inputs with Upgradeable=False holds its CSV. It reads catalog\n" +
			"metadata only: no bundle image is pulled.",
		Example: "  olm-render upgrade --all manifests/\n" +
			"  olm-render upgrade --to-head --subscription operators/etcd manifests/",
		RunE: o.run,
	}
	fs := cmd.Flags()
	o.flags.addLoad(fs)
	o.lf.add(fs, false)
	fs.BoolVar(&o.all, "all", false, "upgrade every Automatic Subscription (with --olm=running or v1, every Subscription: the pull request is the approval)")
	addOLMFlag(fs, &o.flags.render.target)
	fs.StringArrayVar(&o.subscriptions, "subscription", nil, "upgrade this Subscription: NAMESPACE/NAME, or NAME when unique (repeatable; a Manual one too)")
	fs.BoolVar(&o.toHead, "to-head", false, "repeat the step to the channel head, showing each step")
	fs.BoolVar(&o.dryRun, "dry-run", false, "show the steps without writing the lock")
	fs.StringArrayVarP(&o.inputs, "inputs", "i", nil, "deprecated: give the inputs as arguments")
	fs.Lookup("inputs").Hidden = true
	addProjectFlags(cmd, true)
	o.flags.complete(cmd)
	_ = cmd.RegisterFlagCompletionFunc("subscription", o.completeSubscriptions)
	return cmd
}

// upgradeOptions are the flags of olm-render upgrade.
type upgradeOptions struct {
	flags               requestFlags
	lf                  lockFlags
	inputs              []string // -i, deprecated
	subscriptions       []string
	all, toHead, dryRun bool
}

// targets returns the inputs and the Subscriptions to move. With the deprecated -i, the
// arguments are Subscriptions, as they were.
func (o *upgradeOptions) targets(cmd *cobra.Command, args []string) (paths, subs []string, err error) {
	paths, subs = args, o.subscriptions
	if cmd.Flags().Changed("inputs") {
		warnf(cmd, "-i/--inputs is deprecated: give the inputs as arguments, and the Subscriptions with --subscription (olm-render upgrade --subscription NAMESPACE/NAME PATH...)")
		paths, subs = o.inputs, append(slices.Clone(o.subscriptions), args...)
	}
	switch {
	case len(paths) == 0:
		return nil, nil, errors.New("upgrade needs the input PATHs: olm-render upgrade --all PATH... (or --subscription NAMESPACE/NAME)")
	case o.all == (len(subs) > 0):
		return nil, nil, errors.New("upgrade needs --all or --subscription NAMESPACE/NAME (not both): which Subscriptions to move")
	}
	return paths, subs, nil
}

// run takes the upgrade steps and writes the lock.
func (o *upgradeOptions) run(cmd *cobra.Command, args []string) error {
	if fleetRun(cmd, args) && !cmd.Flags().Changed("inputs") {
		return runFleet(cmd, inputsOnly)
	}
	paths, subs, err := o.targets(cmd, args)
	if err != nil {
		return err
	}
	if o.toHead && o.flags.render.target == string(render.TargetV1) {
		return errors.New("--to-head with --olm=v1: operator-controller moves a ClusterExtension one hop per pin, so each hop is its own pull request: run olm-render upgrade without --to-head, merge, and again")
	}
	req, err := o.flags.request(cmd, paths)
	if err != nil {
		return err
	}
	defer req.Close()
	path := o.lf.lockPath(req.Paths)
	l, err := o.lf.read(cmd, &o.flags, req.Root, path)
	if err != nil {
		return err
	}
	if l == nil {
		return fmt.Errorf("%s does not exist: run `olm-render lock %s` first (upgrades start from what is locked)", path, argsHint(paths))
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
	if stale := lock.Stale(l, set); len(stale) > 0 {
		return fmt.Errorf("%s is stale (run `olm-render lock %s` first):\n  %s", path, argsHint(paths), strings.Join(stale, "\n  "))
	}
	out, err := lock.Upgrade(cmd.Context(), lock.UpgradeRequest{
		Set: set, Lock: l, Subscriptions: subs, All: o.all, ToHead: o.toHead, Resolve: resolveWith(req.Resolve),
		ManualToo: req.Render.Target != render.TargetAbsent,
	})
	if err != nil {
		return err
	}
	if req.Render.Target == render.TargetV1 {
		for _, step := range out.Steps {
			if err := refuseV1Jumps(set, out.Lock, step); err != nil {
				return err
			}
		}
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
	if o.dryRun || len(out.Steps) == 0 {
		return nil
	}
	lock.PinCatalogs(out.Lock, set)
	if err := lock.Write(path, out.Lock); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s\n", path)
	return nil
}

// completeSubscriptions completes --subscription with the Subscriptions the lock of the inputs
// given so far records (the current directory's lock when none is given yet).
func (o *upgradeOptions) completeSubscriptions(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	paths := args
	if len(o.inputs) > 0 {
		paths = o.inputs
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	path := o.lf.lockPath(paths)
	dir, err := rootfs.OpenDir(filepath.Dir(path), o.flags.limits)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer dir.Close()
	l, err := lock.Read(dir, filepath.Base(path))
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, ns := range l.Namespaces {
		for _, e := range ns.Subscriptions {
			out = append(out, ns.Namespace+"/"+e.Subscription+"\t"+e.Bundle)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
