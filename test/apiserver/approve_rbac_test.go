package apiserver

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/cluster/approve"
	"github.com/olm-render/olm-render/resolver/contract"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// The approver's identity in examples/approver.
const (
	approverNamespace = "olm-render-approve"
	approverAccount   = "olm-render-approve"
)

// access is one request as RBAC authorizes it: the API group, resource and verb, and the name
// (of the object, or the metadata.name of a list's or watch's field selector; "" for none).
type access struct {
	group, resource, verb, name string
}

func (a access) String() string {
	out := a.verb + " " + a.resource
	if a.group != "" {
		out += "." + a.group
	}
	if a.name != "" {
		out += " " + a.name
	}
	return out
}

// request is one request the approver made, and the status the API server answered.
type request struct {
	access
	namespace, path string
	status          int
}

// recorder records every request of the clients made with its config. before, when set, runs
// before each request is sent.
type recorder struct {
	mu       sync.Mutex
	requests []request
	before   func(request)
}

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// config returns base, recorded.
func (r *recorder) config(base *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(base)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			rq := parseRequest(req)
			if r.before != nil {
				r.before(rq)
			}
			resp, err := rt.RoundTrip(req)
			if resp != nil {
				rq.status = resp.StatusCode
			}
			r.mu.Lock()
			r.requests = append(r.requests, rq)
			r.mu.Unlock()
			return resp, err
		})
	}
	return cfg
}

// recorded returns the requests so far.
func (r *recorder) recorded() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// parseRequest reads a request as the API server's request-info resolver does
// (k8s.io/apiserver/pkg/endpoints/request): the verb from the method, a list's or watch's name
// from an exact metadata.name field selector. A request outside the resource API keeps its
// path and no resource.
func parseRequest(req *http.Request) request {
	r := request{path: req.URL.Path}
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		rest = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		r.group, rest = parts[1], parts[3:]
	default:
		r.verb = strings.ToLower(req.Method)
		return r
	}
	if len(rest) >= 3 && rest[0] == "namespaces" {
		r.namespace, rest = rest[1], rest[2:]
	}
	if len(rest) > 0 {
		r.resource = rest[0]
	}
	if len(rest) > 1 {
		r.name = rest[1]
	}
	if len(rest) > 2 {
		r.resource += "/" + rest[2]
	}
	r.verb = verbOf(req, r.name)
	if r.verb == "list" || r.verb == "watch" {
		if sel, err := fields.ParseSelector(req.URL.Query().Get("fieldSelector")); err == nil {
			r.name, _ = sel.RequiresExactMatch("metadata.name")
		}
	}
	return r
}

// verbOf is a request's RBAC verb.
func verbOf(req *http.Request, name string) string {
	switch req.Method {
	case http.MethodGet:
		switch {
		case name != "":
			return "get"
		case req.URL.Query().Get("watch") == "true" || req.URL.Query().Get("watch") == "1":
			return "watch"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if name == "" {
			return "deletecollection"
		}
		return "delete"
	}
	return strings.ToLower(req.Method)
}

// grants expands RBAC rules into the accesses they grant ("" name: any).
func grants(rules []rbacv1.PolicyRule) []access {
	var out []access
	for _, r := range rules {
		names := r.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					for _, n := range names {
						out = append(out, access{g, res, v, n})
					}
				}
			}
		}
	}
	return out
}

// allows reports whether a grant covers an access.
func (g access) allows(a access) bool {
	return g.group == a.group && g.resource == a.resource && g.verb == a.verb && (g.name == "" || g.name == a.name)
}

// checkRules checks rules against the requests made under them, both ways: every request was
// answered and is one the rules grant, and every access the rules grant was used.
func checkRules(t *testing.T, what string, rules []rbacv1.PolicyRule, requests []request) {
	t.Helper()
	granted := grants(rules)
	for _, r := range requests {
		if r.status == http.StatusForbidden || !slices.ContainsFunc(granted, func(g access) bool { return g.allows(r.access) }) {
			t.Errorf("%s: %s (%s, status %d): not granted", what, r.access, r.path, r.status)
		}
	}
	for _, g := range granted {
		if !slices.ContainsFunc(requests, func(r request) bool { return g.allows(r.access) }) {
			t.Errorf("%s grants %s, which nothing the approver did uses", what, g)
		}
	}
}

// readRules reads the rules of the first object of a kind in a YAML file or stream.
func readRules(t *testing.T, name string, data []byte, kind string) ([]rbacv1.PolicyRule, *unstructured.Unstructured) {
	t.Helper()
	items, problems := inputs.ReadBytes(name, data)
	if err := problems.Err(); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Object.GetKind() != kind {
			continue
		}
		var role rbacv1.Role
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(it.Object.Object, &role); err != nil {
			t.Fatalf("%s: %s: %v", name, kind, err)
		}
		return role.Rules, it.Object
	}
	t.Fatalf("%s holds no %s", name, kind)
	return nil, nil
}

// shippedClusterRole reads examples/approver/clusterrole.yaml's rules.
func shippedClusterRole(t *testing.T) []rbacv1.PolicyRule {
	t.Helper()
	path := filepath.Join(approverDir, "clusterrole.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rules, _ := readRules(t, path, data, "ClusterRole")
	return rules
}

// readmeRole returns the Role and RoleBinding examples/approver/README.md gives for an approver
// limited to some namespaces: the YAML block of its section "Only some namespaces".
func readmeRole(t *testing.T) ([]rbacv1.PolicyRule, *unstructured.Unstructured, *unstructured.Unstructured) {
	t.Helper()
	path := filepath.Join(approverDir, "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := bytes.Cut(data, []byte("\n## Only some namespaces\n"))
	_, block, ok2 := bytes.Cut(section, []byte("```yaml\n"))
	block, _, ok3 := bytes.Cut(block, []byte("```"))
	if !ok || !ok2 || !ok3 {
		t.Fatalf("%s: no YAML block in the section \"Only some namespaces\"", path)
	}
	rules, role := readRules(t, path, block, "Role")
	_, binding := readRules(t, path, block, "RoleBinding")
	return rules, role, binding
}

// TestApproverRoleVariant: the Role examples/approver/README.md gives for an approver limited to
// some namespaces grants exactly the ClusterRole's rules.
func TestApproverRoleVariant(t *testing.T) {
	rules, _, _ := readmeRole(t)
	if diff := cmp.Diff(shippedClusterRole(t), rules); diff != "" {
		t.Errorf("the README's Role and clusterrole.yaml differ (-clusterrole +role):\n%s", diff)
	}
}

// asAccount returns cfg impersonating a ServiceAccount, with only its name: no group brings in
// another role.
func asAccount(cfg *rest.Config, ns, name string) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + name}
	return c
}

// applyApproverRBAC applies examples/approver's namespace, ServiceAccount, ClusterRole and
// ClusterRoleBinding.
func applyApproverRBAC(t *testing.T) {
	t.Helper()
	cluster := connect(t)
	for _, f := range []string{"namespace.yaml", "serviceaccount.yaml", "clusterrole.yaml", "clusterrolebinding.yaml"} {
		applyFixture(t, cluster, filepath.Join(approverDir, f))
	}
}

// TestApproverRBAC runs the approver under examples/approver's ClusterRole alone (as its
// ServiceAccount), records every request it makes, and checks the ClusterRole against them both
// ways: the API server refuses none, and every rule is used. The approver runs once (approving a
// plan after a conflict, holding one, writing health, posting Events), as a controller (holding
// a plan without a contract, then with an unreadable one, then without again, which repeats an
// Event, then approving it once the contract arrives), and as a dry run in every namespace,
// which only lists.
func TestApproverRBAC(t *testing.T) {
	needServer(t)
	applyOLMCRDs(t)
	applyApproverRBAC(t)
	kube := kubeClient(t)
	rules := shippedClusterRole(t)
	asApprover := asAccount(cfg, approverNamespace, approverAccount)

	once := approverOnce(t, kube, asApprover)
	controller := approverController(t, kube, asApprover)
	dry := &recorder{}
	clients, err := approve.NewClients(dry.config(asApprover))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := approve.Once(context.Background(), clients, approve.Options{DryRun: true}); err != nil {
		t.Fatalf("approve --once --dry-run in every namespace as the approver: %v", err)
	}
	for _, r := range dry.recorded() {
		if r.verb != "list" {
			t.Errorf("the dry run wrote: %s (%s)", r.access, r.path)
		}
	}
	all := slices.Concat(once, controller, dry.recorded())
	checkRules(t, "clusterrole.yaml", rules, all)
	var used []string
	for _, r := range all {
		used = append(used, r.access.String())
	}
	slices.Sort(used)
	t.Logf("what the approver did: %s", strings.Join(slices.Compact(used), "; "))

	// Reading every ConfigMap, or any but the contracts, is refused.
	ctx := context.Background()
	if _, err := clients.Kube.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{LabelSelector: contract.Label + "=true"}); !apierrors.IsForbidden(err) {
		t.Errorf("the approver listing ConfigMaps by label alone: %v, want Forbidden", err)
	}
	if _, err := clients.Kube.CoreV1().ConfigMaps("kube-system").List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=extension-apiserver-authentication"}); !apierrors.IsForbidden(err) {
		t.Errorf("the approver listing another ConfigMap by name: %v, want Forbidden", err)
	}
}

// approverOnce runs approve --once, recorded, on two namespaces: a step toward the lock (its
// patch meets a conflict: the plan changes as it is sent, and the approver reads it again), and
// a plan holding a foreign CSV. It returns the requests.
func approverOnce(t *testing.T, kube kubernetes.Interface, asApprover *rest.Config) []request {
	t.Helper()
	const step, held = "rbac-once-step", "rbac-once-held"
	setUpApproval(t, kube, approveNamespace{ns: step, contract: true, installed: "widget.v1.0.0", csvs: []string{"widget.v1.1.0"}})
	setUpApproval(t, kube, approveNamespace{ns: held, contract: true, installed: "widget.v1.0.0", csvs: []string{"widget.v1.2.0", "rogue.v1.0.0"}})
	rec := &recorder{}
	var touched sync.Once
	rec.before = func(r request) {
		if r.verb == "patch" && r.resource == "installplans" && r.namespace == step {
			touched.Do(func() { touchPlan(t, step, "install-1") })
		}
	}
	clients, err := approve.NewClients(rec.config(asApprover))
	if err != nil {
		t.Fatal(err)
	}
	report, err := approve.Once(context.Background(), clients, approve.Options{Namespaces: []string{step, held}})
	if err != nil {
		t.Fatalf("approve --once as the approver: %v", err)
	}
	if !planApproved(t, step, "install-1") || planApproved(t, held, "install-1") {
		t.Errorf("want %s/install-1 approved and %s/install-1 held: %+v", step, held, report.InstallPlans)
	}
	if !slices.ContainsFunc(rec.recorded(), func(r request) bool { return r.verb == "get" && r.resource == "installplans" }) {
		t.Error("the conflict did not make the approver read the plan again")
	}
	for ns, want := range map[string]string{step: "Progressing", held: "Degraded"} {
		if status, _ := contractHealth(t, kube, ns); status != want {
			t.Errorf("health of %s: %q, want %s", ns, status, want)
		}
		if got := planEvents(t, kube, ns, "install-1"); len(got) != 1 {
			t.Errorf("Events on %s/install-1: %q, want one", ns, got)
		}
	}
	return rec.recorded()
}

// touchPlan changes an InstallPlan behind the approver's back, as OLM may: a new annotation, so
// a new resourceVersion.
func touchPlan(t *testing.T, ns, name string) {
	patch := []byte(`{"metadata":{"annotations":{"test.olm-render.dev/touched":"true"}}}`)
	if _, err := dynamicClient(t).Resource(installPlansGVR).Namespace(ns).Patch(context.Background(), name, "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
		t.Errorf("touching %s/%s: %v", ns, name, err)
	}
}

// approverController runs the approve controller, recorded, on a namespace whose contract
// comes, goes and comes back: it holds the plan for want of a contract, for an unreadable one
// (writing Degraded on it), for want of one again (the same Event again: client-go patches its
// count), then approves it once a good contract arrives. It returns the requests.
func approverController(t *testing.T, kube kubernetes.Interface, asApprover *rest.Config) []request {
	t.Helper()
	const ns = "rbac-controller"
	setUpApproval(t, kube, approveNamespace{ns: ns, installed: "widget.v1.0.0", csvs: []string{"widget.v1.1.0"}})
	rec := &recorder{}
	clients, err := approve.NewClients(rec.config(asApprover))
	if err != nil {
		t.Fatal(err)
	}
	log := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- approve.NewController(clients, approve.Options{Namespaces: []string{ns}, Log: log}).Run(ctx)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("the controller's log:\n%s", log.String())
		}
	}()
	noContract := func() int32 { return eventCount(t, kube, ns, "held: no contract") }
	waitFor(t, "the plan held for want of a contract", func() bool { return noContract() == 1 })

	bad, err := contract.ConfigMap(contract.Namespace{Namespace: "elsewhere", Subscriptions: []contract.Subscription{approveWidget}})
	if err != nil {
		t.Fatal(err)
	}
	bad.Namespace = ns
	if _, err := kube.CoreV1().ConfigMaps(ns).Create(ctx, bad, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the unreadable contract Degraded", func() bool { s, _ := contractHealth(t, kube, ns); return s == "Degraded" })
	waitFor(t, "the plan held for an unreadable contract", func() bool { return eventCount(t, kube, ns, "held: contract unreadable") == 1 })

	if err := kube.CoreV1().ConfigMaps(ns).Delete(ctx, contract.ConfigMapName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Event of the plan held for want of a contract repeated", func() bool { return noContract() == 2 })

	good, err := contract.ConfigMap(contract.Namespace{Namespace: ns, Subscriptions: []contract.Subscription{approveWidget}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().ConfigMaps(ns).Create(ctx, good, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the plan approved", func() bool { return planApproved(t, ns, "install-1") })
	waitFor(t, "the health written", func() bool { s, _ := contractHealth(t, kube, ns); return s == "Progressing" })
	waitFor(t, "the approval posted", func() bool { return eventCount(t, kube, ns, "approved ") == 1 })
	return rec.recorded()
}

// eventCount returns the count of the Event on InstallPlan install-1 of a namespace whose
// message starts with prefix (0: none).
func eventCount(t *testing.T, kube kubernetes.Interface, ns, prefix string) int32 {
	t.Helper()
	list, err := kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=install-1"})
	if err != nil {
		t.Fatal(err)
	}
	var n int32
	for _, e := range list.Items {
		if strings.HasPrefix(e.Message, prefix) {
			n += e.Count
		}
	}
	return n
}

// TestApproverNamespaceRole runs the approver under the README's Role alone, in one namespace,
// as another ServiceAccount: with --namespace it approves there and the API server refuses
// nothing; in every namespace it is refused, and the error says what to grant.
func TestApproverNamespaceRole(t *testing.T) {
	needServer(t)
	applyOLMCRDs(t)
	kube := kubeClient(t)
	const ns, account = "rbac-role", "olm-render-approve-role"
	setUpApproval(t, kube, approveNamespace{ns: ns, contract: true, installed: "widget.v1.0.0", csvs: []string{"widget.v1.1.0"}})
	_, role, binding := readmeRole(t)
	role.SetNamespace(ns)
	binding.SetNamespace(ns)
	subjects := []any{map[string]any{"kind": "ServiceAccount", "name": account, "namespace": ns}}
	if err := unstructured.SetNestedSlice(binding.Object, subjects, "subjects"); err != nil {
		t.Fatal(err)
	}
	if _, err := connect(t).Apply(context.Background(), []*unstructured.Unstructured{role, binding}); err != nil {
		t.Fatalf("applying the README's Role and RoleBinding: %v", err)
	}
	if _, err := kube.CoreV1().ServiceAccounts(ns).Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: account}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	clients, err := approve.NewClients(rec.config(asAccount(cfg, ns, account)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := approve.Once(context.Background(), clients, approve.Options{Namespaces: []string{ns}}); err != nil {
		t.Fatalf("approve --once --namespace %s under the README's Role: %v", ns, err)
	}
	if !planApproved(t, ns, "install-1") {
		t.Errorf("%s/install-1 not approved", ns)
	}
	for _, r := range rec.recorded() {
		if r.status == http.StatusForbidden || r.namespace != ns {
			t.Errorf("%s in namespace %q: status %d", r.access, r.namespace, r.status)
		}
	}
	_, err = approve.Once(context.Background(), clients, approve.Options{DryRun: true})
	if want := "(grant the approver list and watch on them cluster-wide, as examples/approver does, or limit it with --namespace)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("in every namespace under a Role: %v, want an error saying %q", err, want)
	}
}

// TestApproverPostSyncJob: the PostSync hook Job fails at once on approve --once's exit status 1
// (an error) and retries on 2 (not Healthy yet, or a plan held for more than the ceiling).
func TestApproverPostSyncJob(t *testing.T) {
	path := filepath.Join(approverDir, "argocd-postsync-job.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(data, &job); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	spec := job.Spec.Template.Spec
	if len(spec.Containers) != 1 || !slices.Equal(spec.Containers[0].Args[:2], []string{"approve", "--once"}) {
		t.Fatalf("%s: want one container running approve --once, got %+v", path, spec.Containers)
	}
	if spec.RestartPolicy != corev1.RestartPolicyNever || job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit < 3 {
		t.Errorf("%s: want restartPolicy Never (a podFailurePolicy needs it) and a few retries, got %s and %v", path, spec.RestartPolicy, job.Spec.BackoffLimit)
	}
	// What the Job does with each exit status: a podFailurePolicy rule's action, or a retry.
	action := func(code int32) string {
		if job.Spec.PodFailurePolicy == nil {
			return "retry"
		}
		for _, r := range job.Spec.PodFailurePolicy.Rules {
			e := r.OnExitCodes
			if e == nil || (e.ContainerName != nil && *e.ContainerName != spec.Containers[0].Name) {
				continue
			}
			if slices.Contains(e.Values, code) == (e.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) {
				return string(r.Action)
			}
		}
		return "retry"
	}
	for code, want := range map[int32]string{1: string(batchv1.PodFailurePolicyActionFailJob), 2: "retry"} {
		if got := action(code); got != want {
			t.Errorf("%s: exit status %d: %s, want %s", path, code, got, want)
		}
	}
}
