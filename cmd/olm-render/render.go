package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/gitops"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// requestFlags are the flags every command that loads inputs shares.
type requestFlags struct {
	// confined keeps every path inside --root, even those on the command line (the KRM
	// function's standalone form; the Argo CD plugin marks its context instead).
	confined       bool
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
		certProvider, engine, target                                string
	}
	v1 v1Flags
}

func (f *requestFlags) addLoad(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.catalogs, "catalog", nil,
		"bind a catalog snapshot to a CatalogSource: NAMESPACE/NAME=PATH or NAMESPACE/NAME=oci://IMAGE (repeatable; overrides the olm-render.dev/catalog annotation)")
	addRootFlags(fs, &f.root, &f.limits)
	f.images.add(fs)
	fs.BoolVar(&f.strict, "strict", true, "unknown fields of Subscriptions, OperatorGroups, CatalogSources, OLMConfigs and OperatorConditions are errors (false: warnings); --strict given makes every warning about the inputs an error")
	fs.BoolVar(&f.allowEmpty, "allow-empty", false, "succeed when the inputs hold no Subscription (otherwise an error: an empty render would prune every operator)")
	fs.StringVar(&f.loadRestrictor, "load-restrictor", "LoadRestrictionsRootOnly",
		"for kustomizations among the inputs, as kustomize's: LoadRestrictionsRootOnly or LoadRestrictionsNone (reads never leave --root)")
	addGlobalCatalogsFlag(fs, &f.globalCatalogs)
	addKubeVersionFlag(fs, &f.kubeVersion)
}

// addGlobalCatalogsFlag adds --global-catalog-namespace.
func addGlobalCatalogsFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "global-catalog-namespace", resolver.DefaultGlobalCatalogNamespace,
		"the namespace whose CatalogSources every namespace sees (openshift-marketplace on OpenShift)")
}

// addKubeVersionFlag adds --kube-version.
func addKubeVersionFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "kube-version", "",
		"the cluster's Kubernetes version (e.g. v1.30.2): CSVs whose minKubeVersion is higher stay Pending, as OLM leaves them")
}

// addCertProviderFlag adds --cert-provider.
func addCertProviderFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "cert-provider", "",
		"who serves the certificates of webhooks and APIServices: where OLM does not run (--olm=absent), cert-manager (the default), openshift-service-ca or none; with --olm=v1, the provider operator-controller runs with; where OLM v0 runs (--olm=running), it generates its own")
}

// addOLMFlag adds --olm, the cluster's OLM.
func addOLMFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "olm", string(render.TargetAbsent),
		"the cluster's OLM: absent (its controllers do not run: the render is the install, every object OLM would create is applied), running (OLM v0 keeps running, as on OpenShift: the render applies the pinned intent, Manual Subscriptions at their locked CSVs and each namespace's approval contract for olm-render approve, and writes what OLM will create under prediction/ with --output-dir, for review) or v1 (OLM v1's operator-controller: the render applies a ClusterCatalog per CatalogSource and a ClusterExtension per Subscription, pinned, and predicts what operator-controller creates)")
}

// addRootFlags adds the flags that confine and bound reading.
func addRootFlags(fs *pflag.FlagSet, root *string, limits *rootfs.Limits) {
	d := rootfs.DefaultLimits()
	fs.StringVar(root, "root", "",
		"the directory what the inputs name (catalog annotations, kustomization resources) must stay inside (default: the Git work tree holding the first input, else the working directory when it holds it, else the input's own directory)")
	fs.Int64Var(&limits.MaxFileSize, "max-file-size", d.MaxFileSize, "largest file read, in bytes")
	fs.Int64Var(&limits.MaxTotalSize, "max-total-size", d.MaxTotalSize, "most bytes read in all")
}

func (f *requestFlags) addRender(fs *pflag.FlagSet) {
	fs.BoolVar(&f.render.allowFailed, "allow-failed", false,
		"render a CSV that OLM would fail (with its phase, reason and message, and no Deployments) instead of failing")
	fs.BoolVar(&f.render.keepIntent, "keep-intent", false, "also emit the consumed Subscriptions and CatalogSources")
	fs.BoolVar(&f.render.includeOLMCRDs, "include-olm-crds", false,
		"add the operators.coreos.com CRDs, so CSVs and OperatorGroups apply to a cluster that runs no OLM")
	fs.BoolVar(&f.render.status, "status", false, "render the status OLM would write (phase, reason, message)")
	addCertProviderFlag(fs, &f.render.certProvider)
	fs.StringVar(&f.render.engine, "for", string(gitops.Kubectl),
		"the tool that applies the render: kubectl, argocd (sync waves, ServerSideApply for objects too large for client-side apply, CRDs never pruned) or flux (CRDs never pruned; with --output-dir, crds/ and operators/ Kustomizations)")
	addOLMFlag(fs, &f.render.target)
	f.v1.add(fs)
	fs.BoolVar(&f.render.copiedCSVs, "copied-csvs", true,
		"render the copies of each CSV OLM writes into its target namespaces (false: none, e.g. when no olm-operator reads the render)")
}

// complete registers the shell completion of the flags addLoad, addRender and the lock flags
// added to cmd (a flag cmd lacks is skipped).
func (f *requestFlags) complete(cmd *cobra.Command) {
	completeValues(cmd, "for", string(gitops.Kubectl), string(gitops.ArgoCD), string(gitops.Flux))
	completeValues(cmd, "olm", targetNames()...)
	completeValues(cmd, "feature-gates", gateNames()...)
	completeValues(cmd, "cert-provider", string(webhook.CertManager), string(webhook.ServiceCA), string(webhook.None))
	completeValues(cmd, "load-restrictor", "LoadRestrictionsRootOnly", "LoadRestrictionsNone")
	completeDirs(cmd, "root", "cache-dir")
	completeFiles(cmd, "lock", "yaml")
	completeFiles(cmd, "authfile", "json")
	completeFiles(cmd, "registries-conf", "conf")
}

// isConfined reports whether the command line's paths must stay inside --root (paths.go).
func (f *requestFlags) isConfined(cmd *cobra.Command) bool { return f.confined || argsConfined(cmd) }

// request builds the pipeline request for the given input paths. The caller closes it; on an
// error, nothing is left open.
func (f *requestFlags) request(cmd *cobra.Command, paths []string) (req pipeline.Request, err error) {
	req = pipeline.Request{Paths: paths, Stdin: cmd.InOrStdin(), Shared: sharedOf(cmd)}
	if err := f.options(cmd, &req); err != nil {
		return req, err
	}
	root, paths, err := openInputRoot(f.root, f.limits, paths, f.isConfined(cmd))
	if err != nil {
		return req, err
	}
	req.Root, req.Paths = root, paths
	defer func() {
		if err != nil {
			req.Close()
			req.Root, req.Opened = nil, nil
		}
	}()
	if req.Registry, err = f.images.options(); err != nil {
		return req, err
	}
	for _, c := range f.catalogs {
		b, err := inputs.ParseBinding(c)
		if err != nil {
			return req, err
		}
		if !f.isConfined(cmd) {
			var own *rootfs.Dir
			if b, own, err = trustBinding(root, b, f.limits); err != nil {
				return req, err
			}
			if own != nil {
				req.Opened = append(req.Opened, own)
			}
		}
		req.Catalogs = append(req.Catalogs, b)
	}
	req.Catalogs, err = withProjectBindings(root, req.Catalogs, projectOf(cmd).bindings())
	return req, err
}

// options checks the options of the flags (or of the project file, which names its own field
// in errors) and sets them on req.
func (f *requestFlags) options(cmd *cobra.Command, req *pipeline.Request) error {
	p := projectOf(cmd)
	var err error
	if req.LoadRestrictor, err = inputs.ParseLoadRestrictor(f.loadRestrictor); err != nil {
		return p.optionError(cmd, "load-restrictor", err)
	}
	if err := render.CheckKubeVersion(f.kubeVersion); err != nil {
		return p.optionError(cmd, "kube-version", err)
	}
	req.Strict, req.AllowEmpty = f.strict && (cmd.Flags().Changed("strict") || p.fromProject("strict")), f.allowEmpty
	req.AllowUnknownFields = !f.strict
	req.Resolve.GlobalCatalogNamespace = f.globalCatalogs
	req.Render.KubeVersion = f.kubeVersion
	req.Render.AllowFailed = f.render.allowFailed
	req.Render.KeepIntent = f.render.keepIntent
	req.Render.IncludeOLMCRDs = f.render.includeOLMCRDs
	req.Render.Status = f.render.status
	req.Render.NoCopiedCSVs = !f.render.copiedCSVs
	if req.Render.CertProvider, err = webhook.ParseProvider(f.render.certProvider); err != nil {
		return p.optionError(cmd, "cert-provider", err)
	}
	if req.Render.Engine, err = gitops.ParseEngine(f.render.engine); err != nil {
		return p.optionError(cmd, "for", err)
	}
	if req.Render.Target, err = render.ParseTarget(f.render.target); err != nil {
		return p.optionError(cmd, "olm", err)
	}
	req.Resolve.ForOLMv1 = req.Render.Target == render.TargetV1
	return f.v1.options(cmd, p, &req.Render.V1)
}

func newRenderCommand() *cobra.Command {
	var (
		flags   requestFlags
		lf      lockFlags
		output  renderOutput
		summary bool
		flux    gitops.FluxOptions
	)
	cmd := &cobra.Command{
		Use:   "render [PATH...]",
		Short: "Resolve the Subscriptions in PATH and render every object OLM would create",
		Long: "render reads Namespaces, OperatorGroups, Subscriptions, CatalogSources and OLMConfigs from the files\n" +
			"and directories given, resolves every Subscription against its catalog snapshot, and writes the\n" +
			"objects OLM would create: a YAML (or, with -o json, JSON) stream on stdout, or with --output-dir one\n" +
			"file per object and a kustomization.yaml, written atomically. Nothing is written when anything fails.\n\n" +
			"Settings a repository always needs (--olm, --global-catalog-namespace, --kube-version, catalog\n" +
			"bindings...) belong in its project file, olm-render.yaml (olm-render init writes one), found in the\n" +
			"first PATH's directory or the nearest above it up to --root; a flag given here overrides it. With no\n" +
			"PATH, a project file listing clusters renders each cluster (or those --cluster names) from its path\n" +
			"into its outputDir, in one run that reads a catalog shared by several clusters once.",
		Example: "  olm-render render examples/quickstart/input\n" +
			"  olm-render render --catalog olm/community=./catalog --output-dir rendered/ manifests/\n" +
			"  olm-render render                      # every cluster of the project file's fleet\n" +
			"  olm-render render --cluster east       # one of them",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if fleetRun(cmd, args) {
				return runFleet(cmd, needOutputDir(cmd))
			}
			if len(args) == 0 {
				return noInputs(cmd)
			}
			if err := output.complete(cmd); err != nil {
				return err
			}
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
				path    = lf.lockPath(req.Paths)
			)
			if !lf.none {
				if l, err = lf.read(cmd, &flags, req.Root, path); err != nil {
					return err
				}
				pinImages(&req, l, lf.locked)
			}
			set, err := loadInputs(cmd, req)
			if err != nil {
				return err
			}
			if err := output.check(req.Paths, set, req.Root); err != nil {
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
			layout := renderLayout{engine: req.Render.Engine, flux: flux, memo: memoOf(cmd)}
			if req.Root != nil {
				layout.root = req.Root.Root()
			}
			if err := output.write(cmd, layout, out.Objects, out.Prediction, path, next); err != nil {
				return err
			}
			if next != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", path)
				printChanges(cmd.ErrOrStderr(), "  ", changes)
			}
			if summary {
				printSummary(cmd.ErrOrStderr(), cmd, res, out.Objects, args, output.dir, !lf.none || fileExists(path))
			}
			return nil
		},
	}
	flags.addLoad(cmd.Flags())
	flags.addRender(cmd.Flags())
	cmd.Flags().StringVar(&flux.Source, "flux-source", gitops.DefaultFluxSource,
		"with --for flux and --output-dir: the source (KIND/NAME) of the Flux Kustomizations written to flux-kustomizations.yaml")
	cmd.Flags().StringVar(&flux.Namespace, "flux-namespace", "flux-system",
		"with --for flux and --output-dir: the namespace of the Flux Kustomizations")
	lf.add(cmd.Flags(), true)
	output.add(cmd)
	cmd.Flags().BoolVar(&summary, "summary", false, "print on stderr what was resolved and why, the objects per kind, and where to look next")
	addProjectFlags(cmd, true)
	flags.complete(cmd)
	return cmd
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

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}

// checkKubeVersion validates --kube-version.
func checkKubeVersion(v string) error {
	if err := render.CheckKubeVersion(v); err != nil {
		return fmt.Errorf("invalid --kube-version: %w", err)
	}
	return nil
}
