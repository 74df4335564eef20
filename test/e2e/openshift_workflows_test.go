package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/test/fixture"
	"github.com/olm-render/olm-render/test/registrytest"
)

// openshiftIndex serves registry.redhat.io/redhat/community-operator-index:v4.18 from an
// in-process registry, as OpenShift 4.18's catalogs are: olm.csv.metadata only, every bundle's
// manifests in its bundle image. It holds kube-green, built from the corpus's community bundles.
// It returns the registries.conf that sends registry.redhat.io/redhat there.
func openshiftIndex(t *testing.T) string {
	t.Helper()
	reg := registrytest.Start(t)
	src := filepath.Join(fixture.Corpus(t), "operators", "kube-green")
	if _, err := reg.PublishCatalog(src, "registry.redhat.io/redhat/community-operator-index:v4.18"); err != nil {
		t.Fatal(err)
	}
	return registrytest.RegistriesConfRewrite(t, map[string]string{"registry.redhat.io/redhat": reg.Host + "/redhat"})
}

// openshiftRepo lays out a repository as examples/openshift assumes one (the project file and
// inputs/ at its top, the approver beside them), commits it on main, and returns its directory
// and the environment of a runner: olm-render on the PATH, registry.redhat.io served by
// registriesConf, a cache of its own. The Subscription starts at startingCSV when given.
func openshiftRepo(t *testing.T, registriesConf, startingCSV string) (string, []string) {
	t.Helper()
	bin := buildBinary(t)
	top := t.TempDir()
	dir := filepath.Join(top, "repo")
	for from, to := range map[string]string{"inputs": "inputs", "../approver": "approver"} {
		if err := os.CopyFS(filepath.Join(dir, to), os.DirFS(filepath.Join(openshiftDir, from))); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, filepath.Join(openshiftDir, "olm-render.yaml"), filepath.Join(dir, "olm-render.yaml"))
	edit(t, filepath.Join(dir, "inputs", "kustomization.yaml"), "- ../../approver", "- ../approver")
	if startingCSV != "" {
		edit(t, filepath.Join(dir, "inputs", "subscription.yaml"), "  installPlanApproval: Manual", "  installPlanApproval: Manual\n  startingCSV: "+startingCSV)
	}
	binDir := filepath.Join(top, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, bin, filepath.Join(binDir, "olm-render"))
	env := append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"), "OLM_RENDER_CACHE="+filepath.Join(top, "cache"),
		"CONTAINERS_REGISTRIES_CONF="+registriesConf, "REGISTRY_AUTH_FILE=", "HOME="+top)
	git(t, dir, env, "init", "-q", "-b", "main")
	return dir, env
}

// git runs git in dir, as a user named test.
func git(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// olmRender runs the olm-render of env in dir.
func olmRender(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	bin := "olm-render"
	for _, e := range env {
		if p, ok := strings.CutPrefix(e, "PATH="); ok {
			bin = filepath.Join(strings.Split(p, ":")[0], "olm-render")
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("olm-render %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestOpenShiftWorkflows runs the OpenShift example's workflows on a repository laid out as
// they assume, with the index served as OpenShift 4.18's: the upgrade bot moves the Manual
// Subscription's lock one step (olm: running, from the project file) and writes a pull-request
// body saying what OLM will do; the pull-request check renders both sides and comments, what Git
// applies first, then what OLM will do, its gates (downgrade among them) passing; the
// Flux CI workflow renders and commits rendered/. No command line of theirs names a setting of
// the project file.
func TestOpenShiftWorkflows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the OpenShift example's workflows")
	}
	dir, env := openshiftRepo(t, openshiftIndex(t), "kube-green.v0.7.0")
	olmRender(t, dir, env, "lock", "inputs/")
	git(t, dir, env, "add", ".")
	git(t, dir, env, "commit", "-q", "-m", "kube-green at 0.7.0")
	base := git(t, dir, env, "rev-parse", "HEAD")

	uses := runWorkflow(t, filepath.Join(openshiftDir, "github-actions", "upgrade.yaml"), dir, env, nil)
	lock := readFile(t, filepath.Join(dir, "inputs", "olm-render.lock.yaml"))
	if !strings.Contains(lock, "bundle: kube-green.v0.7.1") {
		t.Fatalf("the upgrade bot did not move the Manual Subscription's lock to kube-green.v0.7.1:\n%s", lock)
	}
	body := readFile(t, filepath.Join(dir, "body.md"))
	if !strings.Contains(body, "kube-green.v0.7.0 → kube-green.v0.7.1") {
		t.Errorf("the pull-request body does not say kube-green moves:\n%s", body)
	}
	checkTwoParts(t, body)
	if uses[len(uses)-1] != "peter-evans/create-pull-request@v7" {
		t.Errorf("the bot's last action is %s, not the pull request", uses[len(uses)-1])
	}

	// The bot's pull request, as the check sees it.
	git(t, dir, env, "checkout", "-q", "-b", "olm-render/upgrades")
	git(t, dir, env, "commit", "-q", "-am", "Operator upgrades")
	runWorkflow(t, filepath.Join(openshiftDir, "github-actions", "pull-request.yaml"), dir, env,
		map[string]string{"github.event.pull_request.base.sha": base})
	comment := readFile(t, filepath.Join(dir, "comment.md"))
	for _, want := range []string{"What this pull request changes", "kube-green.v0.7.0 → kube-green.v0.7.1"} {
		if !strings.Contains(comment, want) {
			t.Errorf("the pull-request comment lacks %q:\n%s", want, comment)
		}
	}
	checkTwoParts(t, comment)

	// Merged: the Flux CI workflow renders and commits rendered/.
	remote := filepath.Join(t.TempDir(), "remote.git")
	git(t, dir, env, "init", "-q", "--bare", remote)
	git(t, dir, env, "remote", "add", "origin", remote)
	git(t, dir, env, "push", "-q", "origin", "HEAD")
	git(t, dir, env, "branch", "-q", "--set-upstream-to=origin/olm-render/upgrades")
	runWorkflow(t, filepath.Join(openshiftDir, "flux-ci", "render.yaml"), dir, env, nil)
	if sub := readFile(t, filepath.Join(dir, "rendered", "kube-green", "subscription-kube-green.yaml")); !strings.Contains(sub, "startingCSV: kube-green.v0.7.1") {
		t.Errorf("the committed render's Subscription does not start at the lock:\n%s", sub)
	}
	if log := git(t, dir, env, "log", "-1", "--format=%s"); !strings.Contains(log, "Render inputs/") {
		t.Errorf("the Flux CI workflow did not commit rendered/: last commit %q", log)
	}
}

// checkTwoParts checks that a pull-request comment on a lock bump where OLM runs says what Git
// applies first (the Subscription's startingCSV and the approval contract, counted on their own),
// then what OLM will do in words, then the objects it is predicted to create; and that no gate
// fires.
func checkTwoParts(t *testing.T, comment string) {
	t.Helper()
	applied, olm, found := strings.Cut(comment, "### What OLM will do")
	if !found || !strings.Contains(applied, "### What Git applies") {
		t.Fatalf("the comment is not in two parts, what Git applies then what OLM will do:\n%s", comment)
	}
	for _, want := range []string{
		"**Summary:** Added (0) / Deleted (0) / Modified (2)",
		"<code>Subscription/kube-green/kube-green</code>",
		"+  startingCSV: kube-green.v0.7.1",
		"<code>ConfigMap/kube-green/olm-render-approval</code>",
	} {
		if !strings.Contains(applied, want) {
			t.Errorf("what Git applies lacks %q:\n%s", want, applied)
		}
	}
	for _, kind := range []string{"ClusterServiceVersion/", "Deployment/"} {
		if strings.Contains(applied, kind) {
			t.Errorf("what Git applies holds a %s object OLM creates:\n%s", kind, applied)
		}
	}
	sentence := "OLM will install kube-green.v0.7.0 → kube-green.v0.7.1 (replaces); approve admits kube-green.v0.7.1"
	predicted := strings.Index(olm, "**Predicted objects:**")
	if i := strings.Index(olm, sentence); i < 0 || predicted < 0 || i > predicted {
		t.Errorf("what OLM will do does not say %q before the predicted objects:\n%s", sentence, olm)
	}
	for _, want := range []string{
		"**Predicted objects:** Added (0) / Deleted (0) / Modified (",
		"docker.io/kubegreen/kube-green:0.7.0 → docker.io/kubegreen/kube-green:0.7.1",
		"<code>ClusterServiceVersion/kube-green/kube-green.v0.7.0 → kube-green.v0.7.1</code>",
	} {
		if !strings.Contains(olm, want) {
			t.Errorf("what OLM will do lacks %q:\n%s", want, olm)
		}
	}
	if strings.Contains(comment, "**Gates:**") {
		t.Errorf("a gate fires on a one-step lock bump:\n%s", comment)
	}
}

// TestOpenShiftSummaryHints renders examples/openshift with --summary, as its README does, and
// runs every command the summary suggests next, exactly as printed, from the same directory:
// each exits 0 (the project file gives them the settings the render had).
func TestOpenShiftSummaryHints(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the OpenShift example")
	}
	conf := openshiftIndex(t)
	bin := buildBinary(t)
	top := t.TempDir()
	if err := os.CopyFS(filepath.Join(top, "examples"), os.DirFS(filepath.Join(repo, "examples"))); err != nil {
		t.Fatal(err)
	}
	binDir := filepath.Join(top, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, bin, filepath.Join(binDir, "olm-render"))
	gitInit(t, top)
	dir := filepath.Join(top, "examples", "openshift")
	env := append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"), "OLM_RENDER_CACHE="+filepath.Join(top, "cache"),
		"CONTAINERS_REGISTRIES_CONF="+conf, "REGISTRY_AUTH_FILE=", "HOME="+top)
	summary := olmRenderStderr(t, dir, env, "render", "--summary", "inputs/")
	_, next, ok := strings.Cut(summary, "\nNext\n")
	if !ok {
		t.Fatalf("no Next section in the summary:\n%s", summary)
	}
	n := 0
	for _, line := range strings.Split(next, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "olm-render ") {
			continue
		}
		command, _, _ := strings.Cut(line, "   ")
		command, _, _ = strings.Cut(command, "  ")
		n++
		t.Run(command, func(t *testing.T) { runLine(t, dir, env, command) })
	}
	if n < 3 {
		t.Errorf("the summary suggests %d commands, want at least 3:\n%s", n, next)
	}
}

// olmRenderStderr runs the olm-render of env in dir and returns what it printed on stderr.
func olmRenderStderr(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	bin := "olm-render"
	for _, e := range env {
		if p, ok := strings.CutPrefix(e, "PATH="); ok {
			bin = filepath.Join(strings.Split(p, ":")[0], "olm-render")
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("olm-render %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stderr.String()
}
