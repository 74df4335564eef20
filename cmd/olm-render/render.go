package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/gitops"
	"github.com/olm-render/olm-render/render/outdir"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// requestFlags are the flags every command that loads inputs shares.
type requestFlags struct {
	root           string
	limits         rootfs.Limits
	catalogs       []string
	images         imageFlags
	strict         bool
	allowEmpty     bool
	loadRestrictor string
	globalCatalogs string
	kubeVersion    string
	render         struct {
		allowFailed, keepIntent, includeOLMCRDs, status, copiedCSVs bool
		certProvider, engine                                        string
	}
}

func (f *requestFlags) addLoad(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.catalogs, "catalog", nil,
		"bind a catalog snapshot to a CatalogSource: NAMESPACE/NAME=PATH or NAMESPACE/NAME=oci://IMAGE (repeatable; overrides the olm-render.dev/catalog annotation)")
	addRootFlags(fs, &f.root, &f.limits)
	f.images.add(fs)
	fs.BoolVar(&f.strict, "strict", false, "make every warning about the inputs an error (unknown and repeated fields, ...)")
	fs.BoolVar(&f.allowEmpty, "allow-empty", false, "succeed when the inputs hold no Subscription (otherwise an error: an empty render would prune every operator)")
	fs.StringVar(&f.loadRestrictor, "load-restrictor", "LoadRestrictionsRootOnly",
		"for kustomizations among the inputs, as kustomize's: LoadRestrictionsRootOnly or LoadRestrictionsNone (reads never leave --root)")
	fs.StringVar(&f.globalCatalogs, "global-catalog-namespace", resolver.DefaultGlobalCatalogNamespace,
		"the namespace whose CatalogSources every namespace sees (openshift-marketplace on OpenShift)")
	fs.StringVar(&f.kubeVersion, "kube-version", "",
		"the cluster's Kubernetes version (e.g. v1.30.2): CSVs whose minKubeVersion is higher stay Pending, as OLM leaves them")
}

// addRootFlags adds the flags that confine and bound reading.
func addRootFlags(fs *pflag.FlagSet, root *string, limits *rootfs.Limits) {
	d := rootfs.DefaultLimits()
	fs.StringVar(root, "root", "",
		"read nothing outside this directory: inputs and catalog snapshots must be inside it (default: the Git work tree holding the working directory, else the working directory)")
	fs.Int64Var(&limits.MaxFileSize, "max-file-size", d.MaxFileSize, "largest file read, in bytes")
	fs.Int64Var(&limits.MaxTotalSize, "max-total-size", d.MaxTotalSize, "most bytes read in all")
}

// openRoot opens the root directory reads are confined to.
func openRoot(dir string, limits rootfs.Limits) (*rootfs.Dir, error) {
	if limits.MaxFileSize < 0 || limits.MaxTotalSize < 0 {
		return nil, fmt.Errorf("--max-file-size and --max-total-size are sizes in bytes: %d and %d are not", limits.MaxFileSize, limits.MaxTotalSize)
	}
	if dir == "" {
		var err error
		if dir, err = defaultRoot(); err != nil {
			return nil, err
		}
	}
	return rootfs.OpenDir(dir, limits)
}

// defaultRoot is the Git work tree holding the working directory, else the working directory.
func defaultRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the root: %w", err)
	}
	if top, ok := rootfs.GitWorkTree(wd); ok {
		return top, nil
	}
	return wd, nil
}

func (f *requestFlags) addRender(fs *pflag.FlagSet) {
	fs.BoolVar(&f.render.allowFailed, "allow-failed", false,
		"render a CSV that OLM would fail (with its phase, reason and message, and no Deployments) instead of failing")
	fs.BoolVar(&f.render.keepIntent, "keep-intent", false, "also emit the consumed Subscriptions and CatalogSources")
	fs.BoolVar(&f.render.includeOLMCRDs, "include-olm-crds", false,
		"add the operators.coreos.com CRDs, so CSVs and OperatorGroups apply to a cluster that runs no OLM")
	fs.BoolVar(&f.render.status, "status", false, "render the status OLM would write (phase, reason, message)")
	fs.StringVar(&f.render.certProvider, "cert-provider", string(webhook.CertManager),
		"serving certificates for webhooks and APIServices: cert-manager, openshift-service-ca or none")
	fs.StringVar(&f.render.engine, "for", string(gitops.Kubectl),
		"the tool that applies the render: kubectl, argocd (sync waves, ServerSideApply for objects too large for client-side apply, CRDs never pruned) or flux (CRDs never pruned; with -o, crds/ and operators/ Kustomizations)")
	fs.BoolVar(&f.render.copiedCSVs, "copied-csvs", true,
		"render the copies of each CSV OLM writes into its target namespaces (false: none, e.g. when no olm-operator reads the render)")
}

// request builds the pipeline request for the given input paths. The caller closes it.
func (f *requestFlags) request(cmd *cobra.Command, paths []string) (pipeline.Request, error) {
	req := pipeline.Request{Paths: paths, Stdin: cmd.InOrStdin()}
	root, err := openRoot(f.root, f.limits)
	if err != nil {
		return req, err
	}
	req.Root = root
	if req.Registry, err = f.images.options(); err != nil {
		return req, err
	}
	if req.LoadRestrictor, err = inputs.ParseLoadRestrictor(f.loadRestrictor); err != nil {
		return req, err
	}
	if err := checkKubeVersion(f.kubeVersion); err != nil {
		return req, err
	}
	req.Strict, req.AllowEmpty = f.strict, f.allowEmpty
	req.Resolve.GlobalCatalogNamespace = f.globalCatalogs
	req.Render.KubeVersion = f.kubeVersion
	for _, c := range f.catalogs {
		b, err := inputs.ParseBinding(c)
		if err != nil {
			return req, err
		}
		req.Catalogs = append(req.Catalogs, b)
	}
	req.Render.AllowFailed = f.render.allowFailed
	req.Render.KeepIntent = f.render.keepIntent
	req.Render.IncludeOLMCRDs = f.render.includeOLMCRDs
	req.Render.Status = f.render.status
	provider, err := webhook.ParseProvider(f.render.certProvider)
	if err != nil {
		return req, err
	}
	req.Render.CertProvider = provider
	if req.Render.Engine, err = gitops.ParseEngine(f.render.engine); err != nil {
		return req, fmt.Errorf("--for: %w", err)
	}
	req.Render.NoCopiedCSVs = !f.render.copiedCSVs
	return req, nil
}

func newRenderCommand() *cobra.Command {
	var (
		flags   requestFlags
		lf      lockFlags
		output  string
		summary bool
		flux    gitops.FluxOptions
	)
	cmd := &cobra.Command{
		Use:   "render PATH...",
		Short: "Resolve the Subscriptions in PATH and render every object OLM would create",
		Long: "render reads Namespaces, OperatorGroups, Subscriptions, CatalogSources and OLMConfigs from the files\n" +
			"and directories given, resolves every Subscription against its catalog snapshot, and writes the\n" +
			"objects OLM would create: a YAML stream on stdout, or with -o one file per object and a\n" +
			"kustomization.yaml, written atomically. Nothing is written when anything fails.",
		Example: "  olm-render render examples/quickstart/input\n" +
			"  olm-render render --catalog olm/community=./catalog -o rendered/ manifests/",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := flags.request(cmd, args)
			if err != nil {
				return err
			}
			defer req.Close()
			var (
				l       *lock.Lock
				res     *resolver.Result
				next    *lock.Lock
				changes []lock.Change
				path    = lf.lockPath(args)
			)
			if !lf.none {
				if l, err = readLock(req.Root, path); err != nil {
					return err
				}
				pinImages(&req, l, lf.locked)
			}
			set, err := loadInputs(cmd, req)
			if err != nil {
				return err
			}
			if err := checkOutput(output, args, set, req.Root); err != nil {
				return err
			}
			if lf.none {
				res, err = pipeline.Resolve(cmd.Context(), set, req.Resolve)
			} else {
				res, next, changes, err = lockedResolution(cmd.Context(), set, req, l, lf.locked, path)
			}
			if err != nil {
				return err
			}
			out, err := pipeline.Render(set, res, req.Render)
			if err != nil {
				return err
			}
			reportWarnings(cmd.ErrOrStderr(), out.Warnings)
			layout := renderLayout{engine: req.Render.Engine, flux: flux}
			if req.Root != nil {
				layout.root = req.Root.Root()
			}
			if err := writeRender(cmd, output, layout, out.Objects, path, next); err != nil {
				return err
			}
			if next != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", path)
				printChanges(cmd.ErrOrStderr(), "  ", changes)
			}
			if summary {
				printSummary(cmd.ErrOrStderr(), res, out.Objects, args, output)
			}
			return nil
		},
	}
	flags.addLoad(cmd.Flags())
	flags.addRender(cmd.Flags())
	cmd.Flags().StringVar(&flux.Source, "flux-source", gitops.DefaultFluxSource,
		"with --for flux and -o: the source (KIND/NAME) of the Flux Kustomizations written to flux-kustomizations.yaml")
	cmd.Flags().StringVar(&flux.Namespace, "flux-namespace", "flux-system",
		"with --for flux and -o: the namespace of the Flux Kustomizations")
	lf.add(cmd.Flags(), true)
	cmd.Flags().StringVarP(&output, "output", "o", "", "write one file per object and a kustomization.yaml into this directory")
	cmd.Flags().BoolVar(&summary, "summary", false, "print on stderr what was resolved and why, the objects per kind, and where to look next")
	return cmd
}

// checkOutput refuses an output directory that would overwrite what the render reads: an input
// path, a catalog snapshot, or a directory holding one, or a directory inside a catalog. The
// next render would read its own output as inputs (or find no inputs, and an empty render
// makes Flux and Argo CD prune every operator), or a catalog holding rendered objects.
func checkOutput(output string, args []string, set *inputs.Set, root *rootfs.Dir) error {
	if output == "" {
		return nil
	}
	out, err := realPath(output)
	if err != nil {
		return fmt.Errorf("-o %s: %w", output, err)
	}
	type read struct {
		path, shown string
		catalog     bool
	}
	var reads []read
	for _, a := range args {
		if a != "-" {
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
			return fmt.Errorf("-o %s would overwrite %s, which this render reads: write the render to a directory of its own (rendered/, say)", output, rd.shown)
		case rd.catalog && rootfs.Within(out, p):
			return fmt.Errorf("-o %s is inside the catalog snapshot %s, which would then hold rendered objects: write the render elsewhere", output, rd.shown)
		}
	}
	return nil
}

// realPath returns p absolute with the symlinks of its longest existing prefix resolved.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if filepath.Dir(dir) == dir {
			return abs, nil
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}

// writeRender writes the objects (to stdout, or into the output directory) and the lock when it
// changed: with an output directory both land together or neither does.
// renderLayout says how a directory render is laid out: flat, or for Flux in stages with the
// Kustomizations that apply them.
type renderLayout struct {
	engine gitops.Engine
	flux   gitops.FluxOptions
	root   string // the repository top, where Flux's paths start
}

// fluxKustomizationsFile is the file of a Flux layout holding its Flux Kustomizations.
const fluxKustomizationsFile = "flux-kustomizations.yaml"

func writeRender(cmd *cobra.Command, output string, layout renderLayout, objs []*unstructured.Unstructured, lockPath string, next *lock.Lock) error {
	if output == "" {
		var buf bytes.Buffer
		if err := emit.Stream(&buf, objs); err != nil {
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
	pending, err := prepareOutput(output, layout, objs)
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
	return pending.Commit()
}

// prepareOutput builds the output directory: flat, or for Flux crds/ and operators/ with the
// Flux Kustomizations applying them from the directory's place in the repository.
func prepareOutput(output string, layout renderLayout, objs []*unstructured.Unstructured) (*outdir.Pending, error) {
	if layout.engine != gitops.Flux {
		return emit.PrepareDir(output, objs)
	}
	abs, err := filepath.Abs(output)
	if err != nil {
		return nil, fmt.Errorf("-o %s: %w", output, err)
	}
	rel, err := filepath.Rel(layout.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("-o %s: the Flux layout names its path in the repository, so it must be inside %s (--root)", output, layout.root)
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
	return emit.PrepareStagedDir(output, objs, stages, stage, map[string][]byte{fluxKustomizationsFile: buf.Bytes()})
}

// loadInputs loads the inputs and their catalogs, printing the warnings of both.
func loadInputs(cmd *cobra.Command, req pipeline.Request) (*inputs.Set, error) {
	set, err := pipeline.Load(cmd.Context(), req)
	if err != nil {
		return nil, err
	}
	reportWarnings(cmd.ErrOrStderr(), pipeline.LoadWarnings(set, nil))
	return set, nil
}

// checkKubeVersion validates --kube-version.
func checkKubeVersion(v string) error {
	if err := render.CheckKubeVersion(v); err != nil {
		return fmt.Errorf("invalid --kube-version: %w", err)
	}
	return nil
}
