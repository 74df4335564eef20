package live

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/olm-render/olm-render/test/registrytest"
)

// V1SystemNamespace is OLM v1's namespace (its manifests' olmv1-system): the Helm release
// storage of operator-controller's installs is there.
const V1SystemNamespace = "olmv1-system"

// OLM v1's gates that matter to the harness.
const (
	// GateSingleOwnNamespace lets a ClusterExtension install a bundle watching its own or a
	// single namespace (spec.config.inline.watchNamespace, experimental CRD).
	GateSingleOwnNamespace = "SingleOwnNamespaceInstallSupport"
	// GateBoxcutterRuntime swaps the Helm applier for boxcutter, which the harness stands in
	// for (see boxcutter-standin/README.md): StartV1 refuses it.
	GateBoxcutterRuntime = "BoxcutterRuntime"
)

// standardGates are operator-controller's gates as its standard manifest sets them
// (manifests/standard.yaml, helm/olmv1/values.yaml): the cert-manager webhook provider on,
// every Alpha gate off.
var standardGates = map[string]bool{
	"WebhookProviderCertManager":        true,
	"BoxcutterRuntime":                  false,
	"BundleReleaseSupport":              false,
	"DeploymentConfig":                  false,
	"SingleOwnNamespaceInstallSupport":  false,
	"WebhookProviderOpenshiftServiceCA": false,
}

// V1Options configure OLM v1 on a Cluster.
type V1Options struct {
	// Binaries is the directory V1Binaries returns.
	Binaries string
	// Experimental installs OLM v1's experimental CRDs (a ClusterExtension's spec.config) in
	// place of the standard ones.
	Experimental bool
	// Gates set operator-controller's feature gates over the standard manifest's.
	Gates map[string]bool
	// Registries sends every image pull of a name under each prefix to a plain-HTTP registry
	// (registries.conf, as registrytest.WriteRegistriesConf writes it), for catalogd and
	// operator-controller alike.
	Registries map[string]string
}

// v1Controllers are OLM v1's running processes and what they were started with.
type v1Controllers struct {
	opts  V1Options
	procs []*process
}

// v1Setup is what OLM v1 keeps from one start to the next: its directories, certificates and
// ports, made once per cluster.
type v1Setup struct {
	dir      string // <Dir>/v1
	certs    *v1Certs
	catalogs int // catalogd's catalog server
	webhook  int // catalogd's webhook server
	health   map[string]int
	tokens   map[string]string // the token file of each controller's ServiceAccount
}

// v1ServiceAccounts are the ServiceAccounts OLM v1's deployments run as, by controller.
var v1ServiceAccounts = map[string]string{
	"catalogd":            "catalogd-controller-manager",
	"operator-controller": "operator-controller-controller-manager",
}

// StartV1 starts OLM v1 on the cluster: the first time, its namespace, ServiceAccounts,
// certificates, cert-manager's CRDs and catalogd's mutating webhook (part of the cluster's
// baseline, which Reset keeps); every time, OLM v1's CRDs of the chosen feature set, and
// catalogd and operator-controller, each a process with the cluster's kubeconfig, logging to
// <Dir>/catalogd.log and <Dir>/operator-controller.log, waited for until both are ready.
func (c *Cluster) StartV1(ctx context.Context, opts V1Options) (err error) {
	if c.v1 != nil {
		return errors.New("OLM v1 is already running")
	}
	gates, err := v1Gates(opts.Gates)
	if err != nil {
		return err
	}
	if err := haveV1Binaries(opts.Binaries); err != nil {
		return err
	}
	if err := c.setUpV1(ctx, opts.Binaries); err != nil {
		return err
	}
	if err := c.applyV1CRDs(ctx, opts); err != nil {
		return err
	}
	if err := registrytest.WriteRegistriesConf(c.v1RegistriesConf(), opts.Registries); err != nil {
		return fmt.Errorf("writing OLM v1's registries.conf: %w", err)
	}
	c.v1 = &v1Controllers{opts: opts}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.StopV1())
		}
	}()
	for _, name := range []string{"catalogd", "operator-controller"} {
		p, err := c.startV1Process(name, opts.Binaries, gates)
		if err != nil {
			return err
		}
		c.v1.procs = append(c.v1.procs, p)
		if err := c.waitReady(ctx, p, c.setup.health[name]); err != nil {
			return err
		}
	}
	return c.applyCatalogdWebhook(ctx)
}

// v1Gates returns operator-controller's gates: the standard manifest's, set over by gates.
// The Boxcutter runtime is refused: the harness stands in for boxcutter.
func v1Gates(gates map[string]bool) (map[string]bool, error) {
	out := maps.Clone(standardGates)
	for g, on := range gates {
		if on && (g == GateBoxcutterRuntime || g == "AllAlpha") {
			return nil, fmt.Errorf("feature gate %s: the harness builds operator-controller with a stand-in for boxcutter and runs the Helm applier only (test/oracle/live/boxcutter-standin/README.md)", g)
		}
		out[g] = on
	}
	return out, nil
}

// setUpV1 makes, once per cluster, what OLM v1 keeps from one start to the next.
func (c *Cluster) setUpV1(ctx context.Context, binaries string) error {
	if c.setup != nil {
		return nil
	}
	s := &v1Setup{dir: filepath.Join(c.opts.Dir, "v1"), health: map[string]int{}, tokens: map[string]string{}}
	for _, sub := range []string{"home", "tmp", "run", "cas"} {
		if err := os.MkdirAll(filepath.Join(s.dir, sub), 0o700); err != nil {
			return fmt.Errorf("creating OLM v1's directories: %w", err)
		}
	}
	var err error
	if s.certs, err = writeV1Certs(s.dir); err != nil {
		return err
	}
	ports, err := freePorts(4)
	if err != nil {
		return err
	}
	s.catalogs, s.webhook, s.health["catalogd"], s.health["operator-controller"] = ports[0], ports[1], ports[2], ports[3]
	if err := c.applyV1Baseline(ctx, binaries, s); err != nil {
		return err
	}
	c.setup = s
	return nil
}

// v1RegistriesConf is the registries.conf both controllers read (CONTAINERS_REGISTRIES_CONF).
func (c *Cluster) v1RegistriesConf() string {
	return filepath.Join(c.setup.dir, "registries.conf")
}

// SetV1Registries rewrites the registries.conf OLM v1's controllers read, which they read again
// at every pull.
func (c *Cluster) SetV1Registries(rewrites map[string]string) error {
	if c.setup == nil {
		return errors.New("OLM v1 was never started")
	}
	if err := registrytest.WriteRegistriesConf(c.v1RegistriesConf(), rewrites); err != nil {
		return fmt.Errorf("writing OLM v1's registries.conf: %w", err)
	}
	return nil
}

// v1Args are each controller's arguments, as OLM v1's standard manifest gives them
// (manifests/standard.yaml), with what differs out of a pod: every server on the loopback
// interface (probes on their own port, metrics off: operator-controller serves none without a
// certificate, catalogd is told "0"), catalogd's URL at its loopback address
// and served with the harness's certificate, the harness's CA trusted for catalogd's
// certificate, caches in the cluster's directory, and no leader election (one replica, which
// a restart must not keep waiting for its own lease).
func (c *Cluster) v1Args(name string, gates map[string]bool) []string {
	s := c.setup
	common := []string{
		"--health-probe-bind-address", fmt.Sprintf("127.0.0.1:%d", s.health[name]),
		"--system-namespace", V1SystemNamespace,
		"--pull-cas-dir", filepath.Join(s.dir, "cas"),
	}
	switch name {
	case "catalogd":
		return append(common,
			"--metrics-bind-address", "0",
			"--external-address", fmt.Sprintf("127.0.0.1:%d", s.catalogs),
			"--catalogs-server-addr", fmt.Sprintf("127.0.0.1:%d", s.catalogs),
			"--webhook-server-port", fmt.Sprint(s.webhook),
			"--feature-gates", "APIV1MetasHandler=false",
			"--tls-cert", s.certs.cert, "--tls-key", s.certs.key,
			"--cache-dir", filepath.Join(s.dir, "catalogd-cache"),
		)
	default:
		args := append(common,
			"--catalogd-cas-dir", filepath.Join(s.dir, "cas"),
			"--cache-path", filepath.Join(s.dir, "operator-controller-cache"),
		)
		for _, g := range slices.Sorted(maps.Keys(gates)) {
			args = append(args, "--feature-gates", fmt.Sprintf("%s=%t", g, gates[g]))
		}
		return args
	}
}

// startV1Process starts one of OLM v1's controllers in a mount namespace of its own, where
// /var/run/secrets/kubernetes.io/serviceaccount/token holds a token of its ServiceAccount: both
// read their ServiceAccount's name from that file, as a pod has it (internal/shared/util/sa);
// nothing else there is the machine's (/var/run is an empty tmpfs), and HOME, TMPDIR and
// XDG_RUNTIME_DIR are the cluster's, so no registry credential of the machine is ever seen.
func (c *Cluster) startV1Process(name, binaries string, gates map[string]bool) (*process, error) {
	s := c.setup
	argv := append([]string{filepath.Join(binaries, name)}, c.v1Args(name, gates)...)
	run, err := filepath.EvalSymlinks("/var/run")
	if err != nil {
		return nil, fmt.Errorf("finding /var/run: %w", err)
	}
	// sh -c SCRIPT sh RUN TOKEN ARGV...
	script := `mount -t tmpfs -o mode=0755 tmpfs "$1" && mkdir -p "$1/secrets/kubernetes.io/serviceaccount" &&
cp "$2" "$1/secrets/kubernetes.io/serviceaccount/token" && shift 2 && exec "$@"`
	unshare := []string{"unshare", "--mount", "--propagation", "private"}
	if os.Geteuid() != 0 {
		unshare = append(unshare, "--user", "--map-root-user")
	}
	launch := append(append(unshare, "/bin/sh", "-c", script, "sh", run, s.tokens[name]), argv...)
	env := []string{
		"CONTAINERS_REGISTRIES_CONF=" + c.v1RegistriesConf(),
		"HOME=" + filepath.Join(s.dir, "home"),
		"TMPDIR=" + filepath.Join(s.dir, "tmp"),
		"XDG_RUNTIME_DIR=" + filepath.Join(s.dir, "run"),
		"XDG_CONFIG_HOME=" + filepath.Join(s.dir, "home", ".config"),
		"DOCKER_CONFIG=" + filepath.Join(s.dir, "home", ".docker"),
		"REGISTRY_AUTH_FILE=",
	}
	return c.startProcess(name, launch, env)
}

// waitReady waits until a controller answers ready on its probe port, or exits.
func (c *Cluster) waitReady(ctx context.Context, p *process, port int) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/readyz", port)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		select {
		case <-p.done:
			p.mu.Lock()
			err := p.err
			p.mu.Unlock()
			return fmt.Errorf("%w; the end of %s:\n%s", err, p.log, tail(p.log, 20))
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("probing %s: %w", p.name, err)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was not ready in 2 minutes; the end of %s:\n%s", p.name, p.log, tail(p.log, 20))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// StopV1 stops OLM v1's controllers: SIGTERM, then SIGKILL after ten seconds.
func (c *Cluster) StopV1() error {
	if c.v1 == nil {
		return nil
	}
	err := stopProcesses(c.v1.procs, syscall.SIGTERM, 10*time.Second)
	c.v1 = nil
	return err
}

// KillV1 kills OLM v1's controllers at once (SIGKILL).
func (c *Cluster) KillV1() error {
	if c.v1 == nil {
		return nil
	}
	err := stopProcesses(c.v1.procs, syscall.SIGKILL, 0)
	c.v1 = nil
	return err
}

// stopProcesses signals every process, waits up to grace for each to exit, then kills it.
func stopProcesses(procs []*process, sig syscall.Signal, grace time.Duration) error {
	var errs []error
	for _, p := range procs {
		if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, fmt.Errorf("signalling %s: %w", p.name, err))
		}
	}
	for _, p := range procs {
		select {
		case <-p.done:
		case <-time.After(grace):
			if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				errs = append(errs, fmt.Errorf("killing %s: %w", p.name, err))
			}
			<-p.done
		}
	}
	return errors.Join(errs...)
}

// V1Options returns the options OLM v1 runs with, and whether it runs.
func (c *Cluster) V1Options() (V1Options, bool) {
	if c.v1 == nil {
		return V1Options{}, false
	}
	return c.v1.opts, true
}

// V1Running reports whether OLM v1's controllers are running; the error says which one exited
// and how, with the end of its log.
func (c *Cluster) V1Running() error {
	if c.v1 == nil {
		return errors.New("OLM v1's controllers are stopped")
	}
	for _, p := range c.v1.procs {
		select {
		case <-p.done:
			p.mu.Lock()
			err := p.err
			p.mu.Unlock()
			return fmt.Errorf("%w; the end of %s:\n%s", err, p.log, tail(p.log, 20))
		default:
		}
	}
	return nil
}

// clearV1Caches empties OLM v1's caches (catalogd's unpacked catalogs, operator-controller's
// unpacked bundles), so that a restarted controller starts as a new pod would.
func (c *Cluster) clearV1Caches() error {
	for _, d := range []string{"catalogd-cache", "operator-controller-cache"} {
		if err := os.RemoveAll(filepath.Join(c.setup.dir, d)); err != nil {
			return fmt.Errorf("clearing OLM v1's caches: %w", err)
		}
	}
	return nil
}

// freePorts returns n ports free on the loopback interface now.
func freePorts(n int) ([]int, error) {
	var out []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}
