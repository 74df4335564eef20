package approve

import (
	"fmt"
	"io"
	"slices"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Clients are the approver's clients: the dynamic client for OLM's kinds (InstallPlans,
// Subscriptions, CSVs), the core clientset for ConfigMaps and Events.
type Clients struct {
	Dynamic dynamic.Interface
	Kube    kubernetes.Interface
}

// NewClients returns the clients of a cluster.
func NewClients(cfg *rest.Config) (Clients, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return Clients{}, fmt.Errorf("connecting to %s: %w", cfg.Host, err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return Clients{}, fmt.Errorf("connecting to %s: %w", cfg.Host, err)
	}
	return Clients{Dynamic: dyn, Kube: kube}, nil
}

// Options configure Once and the Controller.
type Options struct {
	// Namespaces limits the approver to these namespaces (with a Role in each, it needs no
	// cluster-wide permission); empty: every namespace.
	Namespaces []string
	// Log receives a line for every plan approved or held, every health written and every error
	// (nil: none). The Controller's are its log; Once's repeat its Report.
	Log io.Writer
	// DryRun decides and reports, and writes nothing: no plan is approved, no Event posted, no
	// health written on a contract. The plans it would approve are reported WouldApprove.
	DryRun bool
}

// scopes returns the namespaces to list or watch: each given one, sorted and once, or every
// namespace ("").
func (o Options) scopes() []string {
	if len(o.Namespaces) == 0 {
		return []string{""}
	}
	return sortedUnique(o.Namespaces)
}

// sortedUnique returns the strings sorted, each once.
func sortedUnique(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}
