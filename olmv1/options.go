package olmv1

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/olm-render/olm-render/render/gitops"
	"github.com/olm-render/olm-render/render/webhook"
)

// Version is an operator-controller release, by minor version: what changes between releases
// is what a render must emit (the installer ServiceAccount up to v1.10).
type Version struct {
	Major, Minor int
}

// DefaultVersion is the operator-controller release a render is for when none is named.
var DefaultVersion = Version{Major: 1, Minor: 11}

// serviceAccountDropped is the first release that ignores spec.serviceAccount (#2770): it
// installs as its own, cluster-admin, identity.
var serviceAccountDropped = Version{Major: 1, Minor: 11}

// ParseVersion parses an operator-controller version: v1.11, 1.11, v1.10.2 (the patch is
// ignored); "" is DefaultVersion.
func ParseVersion(s string) (Version, error) {
	if s == "" {
		return DefaultVersion, nil
	}
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("operator-controller version %q: want vMAJOR.MINOR, e.g. v1.11", s)
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return Version{}, fmt.Errorf("operator-controller version %q: want vMAJOR.MINOR, e.g. v1.11", s)
		}
		v[i] = n
	}
	if v[0] != 1 {
		return Version{}, fmt.Errorf("operator-controller version %q: olm-render knows operator-controller v1.x", s)
	}
	return Version{Major: v[0], Minor: v[1]}, nil
}

// String returns the version as vMAJOR.MINOR.
func (v Version) String() string { return fmt.Sprintf("v%d.%d", v.Major, v.Minor) }

// Less reports whether v is an earlier release than w.
func (v Version) Less(w Version) bool {
	return v.Major < w.Major || (v.Major == w.Major && v.Minor < w.Minor)
}

// NeedsServiceAccount reports whether a ClusterExtension names the ServiceAccount that installs
// it: required up to v1.10 (the standard CRD's required fields, ServiceAccountValidator),
// deprecated and ignored from v1.11.
func (v Version) NeedsServiceAccount() bool { return v.Less(serviceAccountDropped) }

// Gate is one of operator-controller's alpha feature gates a render depends on
// (internal/operator-controller/features/features.go).
type Gate string

// The gates. Both are off in the standard chart (helm/olmv1/values.yaml) and on in the
// experimental one (helm/experimental.yaml), which also serves the experimental CRD that holds
// spec.config.
const (
	// SingleOwnNamespaceInstallSupport lets a ClusterExtension install a bundle that watches one
	// namespace (spec.config.inline.watchNamespace), and a bundle that does not support
	// AllNamespaces at all.
	SingleOwnNamespaceInstallSupport Gate = "SingleOwnNamespaceInstallSupport"
	// DeploymentConfig lets a ClusterExtension customise the bundle's Deployments
	// (spec.config.inline.deploymentConfig), as a Subscription's spec.config does in v0.
	DeploymentConfig Gate = "DeploymentConfig"
)

// Gates lists the gates, for help texts and completion.
var Gates = []Gate{DeploymentConfig, SingleOwnNamespaceInstallSupport}

// ParseGates parses feature gates as operator-controller's --feature-gates takes them
// (Name=true,Name=false) or as a list of names to enable; the result is sorted.
func ParseGates(specs []string) ([]Gate, error) {
	var out []Gate
	for _, spec := range specs {
		for item := range strings.SplitSeq(spec, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			name, value, hasValue := strings.Cut(item, "=")
			on := true
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return nil, fmt.Errorf("feature gate %q: want %s=true or %s=false", item, name, name)
				}
				on = b
			}
			g := Gate(name)
			if !slices.Contains(Gates, g) {
				return nil, fmt.Errorf("unknown feature gate %q: olm-render knows %s", name, gateList())
			}
			out = slices.DeleteFunc(out, func(x Gate) bool { return x == g })
			if on {
				out = append(out, g)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// gateList names the known gates.
func gateList() string {
	names := make([]string, len(Gates))
	for i, g := range Gates {
		names[i] = string(g)
	}
	return strings.Join(names, " and ")
}

// Options describe the operator-controller a render is for, and how lenient the render is.
// The zero value is operator-controller v1.11 as its standard chart installs it: no alpha gate,
// webhooks served with cert-manager's certificates, every Subscription v1 cannot take an error.
type Options struct {
	// OperatorController is the release (DefaultVersion when zero): up to v1.10 a
	// ClusterExtension names an installer ServiceAccount, which the render emits with its RBAC.
	OperatorController Version
	// Gates are the alpha feature gates operator-controller runs with (none by default).
	Gates []Gate
	// CertProvider is the certificate provider operator-controller runs with:
	// webhook.CertManager (when empty, its default), webhook.ServiceCA, or webhook.None (neither
	// provider gate on: no bundle with webhooks installs).
	CertProvider webhook.Provider
	// AllowPartial leaves each Subscription v1 cannot take to OLM v0, with a warning, instead of
	// failing the render.
	AllowPartial bool
	// Engine is the tool that applies the render (gitops.Kubectl when empty).
	Engine gitops.Engine
}

// Enabled reports whether a gate is on.
func (o Options) Enabled(g Gate) bool { return slices.Contains(o.Gates, g) }

// withDefaults fills what is left empty and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.OperatorController == (Version{}) {
		o.OperatorController = DefaultVersion
	}
	switch o.CertProvider {
	case "":
		o.CertProvider = webhook.CertManager
	case webhook.CertManager, webhook.ServiceCA, webhook.None:
	default:
		return o, fmt.Errorf("certificate provider %s: operator-controller runs with cert-manager, openshift-service-ca or none", o.CertProvider)
	}
	for _, g := range o.Gates {
		if !slices.Contains(Gates, g) {
			return o, fmt.Errorf("unknown feature gate %q: olm-render knows %s", g, gateList())
		}
	}
	return o, nil
}
