package migrate

import (
	"fmt"
	"strings"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/generated"
)

// Step is one step of the move of a Subscription to OLM v1.
type Step struct {
	// Subscription is the Subscription (namespace/name) the step moves.
	Subscription string `json:"subscription"`
	// Title says what the step does; Why why it is needed and what to watch.
	Title string `json:"title"`
	Why   string `json:"why,omitempty"`
	// Commands run the step, in order.
	Commands []string `json:"commands,omitempty"`
}

// steps returns the ordered steps of every eligible Subscription: the steps operator-controller's
// Helm applier (its default runtime) needs to take over an installed operator without deleting
// its CRDs, their custom resources or its workload.
func steps(verdicts []olmv1.Verdict, changes []Change) []Step {
	var out []Step
	for _, v := range verdicts {
		if v.Outcome != olmv1.Eligible || v.Generated {
			continue
		}
		out = append(out, stepsOf(v, changesOf(changes, v.ID()))...)
	}
	return out
}

// changesOf returns the changes of one Subscription.
func changesOf(changes []Change, sub string) []Change {
	var out []Change
	for _, c := range changes {
		if c.Subscription == sub {
			out = append(out, c)
		}
	}
	return out
}

// stepsOf returns the steps of one Subscription.
func stepsOf(v olmv1.Verdict, changes []Change) []Step {
	s := func(title, why string, commands ...string) Step {
		return Step{Subscription: v.ID(), Title: title, Why: why, Commands: commands}
	}
	ce := v.ClusterExtension
	return []Step{
		s("Apply the ClusterCatalog and wait until it serves",
			"operator-controller resolves from it; pinned by digest, it serves the index the render read",
			"kubectl apply -f v1/_cluster/clustercatalog-"+v.ClusterCatalog+".yaml",
			"kubectl wait --for=condition=Serving clustercatalog/"+v.ClusterCatalog+" --timeout=5m"),
		s("Stop OLM v0 managing "+v.Bundle+", keeping what it created",
			"deleting the Subscription stops upgrades; deleting the CSV with cascade orphan leaves its Deployments, ServiceAccounts, Services and namespaced RBAC in place. OLM's CSV finalizer still deletes the cluster-scoped RBAC and webhook configurations it labelled for the CSV, so the operator lacks its cluster-wide permissions until the ClusterExtension is installed: take the next steps at once. OLM never deletes a CRD, but it drops a conversion webhook from the CRDs the CSV owned",
			fmt.Sprintf("kubectl -n %s delete subscription %s", v.Namespace, v.Subscription),
			fmt.Sprintf("kubectl -n %s delete clusterserviceversion %s --cascade=orphan", v.Namespace, v.Bundle)),
		s("Mark what v1 takes over as the ClusterExtension's",
			"operator-controller's Helm applier refuses to install over an object it does not own; Helm adopts one that carries its release's label and annotations. (With the BoxcutterRuntime gate, library-olm's migration adopts the live objects in a ClusterObjectSet instead.)",
			adoptCommands(changes, ce, v.Namespace)...),
		s("Apply the ClusterExtension and wait until it is installed",
			"pinned to the installed version ("+v.Version+"), it installs what is installed: the same workload, v1's RBAC",
			"kubectl apply -f v1/_cluster/clusterextension-"+ce+".yaml",
			"kubectl wait --for=condition=Installed clusterextension/"+ce+" --timeout=10m"),
		s("Delete what OLM v0 left that v1 does not own",
			"the dropped and renamed objects of the cluster diff: v1 neither creates nor reads them",
			cleanupCommands(changes)...),
		s("Move the Subscription out of Git",
			"remove Subscription "+v.ID()+" from "+v.Origin.String()+" and commit the objects under v1/ in its place: render them with --olm=v1 from now on, and upgrades move the ClusterExtension one hop per pull request"),
	}
}

// adoptCommands label and annotate the objects v1 takes over for the ClusterExtension's Helm
// release.
func adoptCommands(changes []Change, release, namespace string) []string {
	var out []string
	for _, c := range changes {
		if c.Class != Adopted && c.Class != Untouched {
			continue
		}
		ref := kubectlRef(c.Key)
		out = append(out,
			fmt.Sprintf("kubectl label %s app.kubernetes.io/managed-by=Helm --overwrite", ref),
			fmt.Sprintf("kubectl annotate %s meta.helm.sh/release-name=%s meta.helm.sh/release-namespace=%s --overwrite", ref, release, namespace))
	}
	return out
}

// cleanupCommands delete what v0 left: its dropped and renamed objects (not what the CSV's
// deletion removed already: its own copies are deleted by OLM).
func cleanupCommands(changes []Change) []string {
	var out []string
	for _, c := range changes {
		switch {
		case c.Class == Dropped && c.Key.Kind == "ClusterServiceVersion" && c.Key.Namespace != "" && !strings.Contains(c.Note, "copied"):
			continue // deleted in an earlier step
		case c.Class == Dropped && c.Key.Kind == "OperatorGroup":
			continue // left for the user: other operators may use it
		case c.Class == Dropped && strings.Contains(c.Key.Name, generated.Placeholder):
			continue // a name OLM generated: its CSV finalizer deleted it with the CSV
		case c.Class == Dropped:
			out = append(out, "kubectl delete "+kubectlRef(c.Key)+" --ignore-not-found")
		case c.Class == Renamed && c.From != nil:
			out = append(out, "kubectl delete "+kubectlRef(*c.From)+" --ignore-not-found")
		}
	}
	return out
}

// kubectlRef names an object as kubectl takes it: [-n NAMESPACE] kind.group/NAME.
func kubectlRef(k emit.Key) string {
	kind := strings.ToLower(k.Kind)
	if k.Group != "" {
		kind += "." + k.Group
	}
	ref := kind + "/" + k.Name
	if k.Namespace != "" {
		ref = "-n " + k.Namespace + " " + ref
	}
	return ref
}
