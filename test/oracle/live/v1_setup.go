package live

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// tokenLifetime is how long the controllers' ServiceAccount tokens last, in seconds: longer
// than any run.
var tokenLifetime = int64(24 * 3600)

// applyV1Baseline creates what OLM v1's manifests create around its controllers and what the
// harness stands in for, as part of the cluster's baseline: the olmv1-system namespace, the
// controllers' ServiceAccounts (with a token of each written for startV1Process) and
// cert-manager's CRDs, since operator-controller's cert-manager provider (on in the standard
// manifest) writes Issuers and Certificates for a bundle's webhooks. No cert-manager controller
// runs: nothing issues those certificates or injects their CA.
func (c *Cluster) applyV1Baseline(ctx context.Context, binaries string, s *v1Setup) error {
	objs := []*unstructured.Unstructured{object("v1", "Namespace", "", V1SystemNamespace)}
	for _, name := range slices.Sorted(maps.Keys(v1ServiceAccounts)) {
		objs = append(objs, object("v1", "ServiceAccount", V1SystemNamespace, v1ServiceAccounts[name]))
	}
	crds, err := readYAMLDir(filepath.Join(binaries, "crds", "cert-manager"))
	if err != nil {
		return err
	}
	if err := c.applyBaseline(ctx, append(objs, crds...)...); err != nil {
		return err
	}
	if err := c.waitEstablished(ctx, crds); err != nil {
		return err
	}
	for name, sa := range v1ServiceAccounts {
		tok, err := c.Kube.CoreV1().ServiceAccounts(V1SystemNamespace).CreateToken(ctx, sa,
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &tokenLifetime}},
			metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("requesting a token of %s/%s: %w", V1SystemNamespace, sa, err)
		}
		s.tokens[name] = filepath.Join(s.dir, name+".token")
		if err := os.WriteFile(s.tokens[name], []byte(tok.Status.Token), 0o600); err != nil {
			return fmt.Errorf("writing the token of %s/%s: %w", V1SystemNamespace, sa, err)
		}
	}
	return nil
}

// applyV1CRDs applies OLM v1's CRDs of the chosen feature set (standard or experimental) and
// waits until they are established; they are part of the baseline.
func (c *Cluster) applyV1CRDs(ctx context.Context, opts V1Options) error {
	set := "standard"
	if opts.Experimental {
		set = "experimental"
	}
	crds, err := readYAMLDir(filepath.Join(opts.Binaries, "crds", set))
	if err != nil {
		return err
	}
	if err := c.applyBaseline(ctx, crds...); err != nil {
		return err
	}
	return c.waitEstablished(ctx, crds)
}

// catalogdWebhookPath is the path catalogd serves its ClusterCatalog webhook at.
const catalogdWebhookPath = "/mutate-olm-operatorframework-io-v1-clustercatalog"

// applyCatalogdWebhook registers catalogd's mutating webhook, which sets a ClusterCatalog's
// olm.operatorframework.io/metadata.name label, as OLM v1's manifests do
// (helm/olmv1/templates/mutatingwebhookconfiguration-catalogd-mutating-webhook-configuration.yml),
// but reaching catalogd at its loopback address with the harness's CA in place of
// catalogd-service and cert-manager's.
func (c *Cluster) applyCatalogdWebhook(ctx context.Context) error {
	w := object("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", "", "catalogd-mutating-webhook-configuration")
	w.SetLabels(map[string]string{"app.kubernetes.io/name": "catalogd"})
	w.Object["webhooks"] = []any{map[string]any{
		"admissionReviewVersions": []any{"v1"},
		"clientConfig": map[string]any{
			"url":      fmt.Sprintf("https://127.0.0.1:%d%s", c.setup.webhook, catalogdWebhookPath),
			"caBundle": base64.StdEncoding.EncodeToString(c.setup.certs.caPEM),
		},
		"failurePolicy": "Fail",
		"name":          "inject-metadata-name.olm.operatorframework.io",
		"rules": []any{map[string]any{
			"apiGroups": []any{"olm.operatorframework.io"}, "apiVersions": []any{"v1"},
			"operations": []any{"CREATE", "UPDATE"}, "resources": []any{"clustercatalogs"},
		}},
		"sideEffects":    "None",
		"timeoutSeconds": int64(10),
		"matchConditions": []any{map[string]any{
			"name":       "MissingOrIncorrectMetadataNameLabel",
			"expression": "'name' in object.metadata && (!has(object.metadata.labels) || !('olm.operatorframework.io/metadata.name' in object.metadata.labels) || object.metadata.labels['olm.operatorframework.io/metadata.name'] != object.metadata.name)",
		}},
	}}
	return c.applyBaseline(ctx, w)
}

// ApplyBaseline applies objects as part of the cluster's baseline, which Reset keeps and
// Snapshot leaves out: what the cluster has before any install (third-party CRDs, say). CRDs
// among them are waited for until established.
func (c *Cluster) ApplyBaseline(ctx context.Context, objs ...*unstructured.Unstructured) error {
	if err := c.applyBaseline(ctx, objs...); err != nil {
		return err
	}
	var crds []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, o)
		}
	}
	return c.waitEstablished(ctx, crds)
}

// ReadYAMLFile reads the objects of a multi-document YAML file.
func ReadYAMLFile(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	objs, err := decodeYAML(data)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return objs, nil
}

// applyBaseline applies objects and makes them part of the cluster's baseline, which Reset
// keeps and Snapshot leaves out.
func (c *Cluster) applyBaseline(ctx context.Context, objs ...*unstructured.Unstructured) error {
	if err := c.Apply(ctx, objs...); err != nil {
		return err
	}
	rs, err := c.resources()
	if err != nil {
		return err
	}
	for _, o := range objs {
		gvr, err := gvrOf(o, rs)
		if err != nil {
			return err
		}
		got, err := c.Dynamic.Resource(gvr).Namespace(o.GetNamespace()).Get(ctx, o.GetName(), metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading %s back: %w", nameOf(o), err)
		}
		c.baseline[got.GetUID()] = true
	}
	return nil
}

// waitEstablished waits until every CRD of crds is established.
func (c *Cluster) waitEstablished(ctx context.Context, crds []*unstructured.Unstructured) error {
	rs, err := c.resources()
	if err != nil {
		return err
	}
	for _, crd := range crds {
		gvr, err := gvrOf(crd, rs)
		if err != nil {
			return err
		}
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := c.Dynamic.Resource(gvr).Get(ctx, crd.GetName(), metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			return conditionTrue(got, "Established"), nil
		})
		if err != nil {
			return fmt.Errorf("waiting for CRD %s to be established: %w", crd.GetName(), err)
		}
	}
	return nil
}

// conditionTrue reports whether an object's status has a condition of type typ with status
// True.
func conditionTrue(o *unstructured.Unstructured, typ string) bool {
	cond := condition(o, typ)
	return cond != nil && cond["status"] == "True"
}

// condition returns an object's status condition of type typ, or nil.
func condition(o *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

// readYAMLDir reads every object of the YAML files of dir, in the order of their names.
func readYAMLDir(dir string) ([]*unstructured.Unstructured, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", e.Name(), err)
		}
		objs, err := decodeYAML(data)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, e.Name()), err)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// decodeYAML decodes the objects of a multi-document YAML stream, skipping empty documents.
func decodeYAML(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// object returns an object of a kind with its name (and namespace).
func object(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion(apiVersion)
	o.SetKind(kind)
	o.SetNamespace(namespace)
	o.SetName(name)
	return o
}
