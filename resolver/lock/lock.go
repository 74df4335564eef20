package lock

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// The lock file's identity.
const (
	APIVersion = "olm-render.dev/v1alpha1"
	Kind       = "Lock"
	// FileName is the lock file's name beside the inputs.
	FileName = "olm-render.lock.yaml"
)

// Lock is the content of olm-render.lock.yaml.
type Lock struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Catalogs pin the index images of the CatalogSources given by image, sorted.
	Catalogs []CatalogPin `json:"catalogs,omitempty"`
	// Namespaces are sorted by name.
	Namespaces []Namespace `json:"namespaces"`
	// Origin is the file the lock was read from, as messages show it ("" for a lock not read).
	Origin string `json:"-"`
}

// Namespace holds the locked Subscriptions of one namespace, sorted by name.
type Namespace struct {
	Namespace     string  `json:"namespace"`
	Subscriptions []Entry `json:"subscriptions"`
}

// Entry is one Subscription's locked bundle.
type Entry struct {
	// Subscription is the Subscription's name (for a dependency, the one OLM would create).
	Subscription string `json:"subscription"`
	// Intent is the Subscription's spec as the lock saw it; a change makes the lock stale.
	Intent Intent `json:"intent"`
	// Package, Channel, Bundle and Version identify the locked bundle.
	Package string `json:"package"`
	Channel string `json:"channel"`
	Bundle  string `json:"bundle"`
	Version string `json:"version"`
	// Catalog is the CatalogSource the bundle was resolved from.
	Catalog CatalogRef `json:"catalog"`
	// Digest is the bundle's content digest (see the package documentation).
	Digest string `json:"digest"`
	// DigestOf says what was digested: "manifests" or "metadata".
	DigestOf string `json:"digestOf"`
	// Image is the bundle image, when the catalog names it by digest.
	Image string `json:"image,omitempty"`
	// Generated marks a Subscription OLM would create for a dependency.
	Generated bool `json:"generated,omitempty"`
	// RequiredBy names the Subscriptions whose bundles depend on this one.
	RequiredBy []string `json:"requiredBy,omitempty"`
}

// Intent is what a Subscription asked for.
type Intent struct {
	Package             string `json:"package"`
	Channel             string `json:"channel,omitempty"`
	Source              string `json:"source"`
	SourceNamespace     string `json:"sourceNamespace"`
	StartingCSV         string `json:"startingCSV,omitempty"`
	InstallPlanApproval string `json:"installPlanApproval,omitempty"`
}

// CatalogRef names a CatalogSource.
type CatalogRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// String returns "namespace/name".
func (c CatalogRef) String() string { return c.Namespace + "/" + c.Name }

// Entry returns the entry of namespace/subscription, or nil.
func (l *Lock) Entry(namespace, subscription string) *Entry {
	for i := range l.Namespaces {
		if l.Namespaces[i].Namespace != namespace {
			continue
		}
		for j := range l.Namespaces[i].Subscriptions {
			if l.Namespaces[i].Subscriptions[j].Subscription == subscription {
				return &l.Namespaces[i].Subscriptions[j]
			}
		}
	}
	return nil
}

// Installed returns the locked bundle name per "namespace/subscription".
func (l *Lock) Installed() map[string]string {
	out := map[string]string{}
	for _, ns := range l.Namespaces {
		for _, e := range ns.Subscriptions {
			out[ns.Namespace+"/"+e.Subscription] = e.Bundle
		}
	}
	return out
}

// Sort puts namespaces and entries in their canonical order.
func (l *Lock) Sort() {
	slices.SortFunc(l.Namespaces, func(a, b Namespace) int { return cmp.Compare(a.Namespace, b.Namespace) })
	for i := range l.Namespaces {
		slices.SortFunc(l.Namespaces[i].Subscriptions, func(a, b Entry) int {
			return cmp.Compare(a.Subscription, b.Subscription)
		})
		for j := range l.Namespaces[i].Subscriptions {
			slices.Sort(l.Namespaces[i].Subscriptions[j].RequiredBy)
		}
	}
}

// Marshal encodes the lock as YAML, sorted.
func Marshal(l *Lock) ([]byte, error) {
	c := *l
	c.APIVersion, c.Kind = APIVersion, Kind
	c.Namespaces = slices.Clone(l.Namespaces)
	c.Catalogs = slices.Clone(l.Catalogs)
	if c.Namespaces == nil {
		c.Namespaces = []Namespace{}
	}
	c.Sort()
	b, err := yaml.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("encoding lock: %w", err)
	}
	return append([]byte("# Written by olm-render: what is installed. Refresh with `olm-render lock`, move with `olm-render upgrade`.\n"), b...), nil
}

// Unmarshal decodes and validates a lock file's content; name is used in messages.
func Unmarshal(name string, data []byte) (*Lock, error) {
	if n, err := documents(data); err != nil || n > 1 {
		return nil, fmt.Errorf("%s: a lock is one YAML document; this file holds %d", name, n)
	}
	obj, problems := catalog.DecodeYAML(name, data)
	if err := problems.Err(); err != nil {
		return nil, err
	}
	js, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding lock: %w", name, err)
	}
	var l Lock
	unknown, err := inputs.UnknownFields(js, &l)
	if err != nil {
		return nil, fmt.Errorf("%s: decoding lock: %s", name, diag.Decoding(err))
	}
	if len(unknown) > 0 {
		return nil, unknownFields(name, unknown)
	}
	if err := l.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	l.Origin = name
	return &l, nil
}

// unknownFields refuses a lock holding fields a lock does not have, each named with the field
// it most likely meant: the lock is olm-render's own file, so an unknown field is an edit that
// would be lost when the lock is next written.
func unknownFields(name string, fields []inputs.UnknownField) diag.Problems {
	var out diag.Problems
	for _, f := range fields {
		msg := "unknown field"
		if f.Suggestion != "" {
			msg += ": did you mean " + f.Suggestion + "?"
		}
		out.Errorf(diag.Origin{File: name}, Kind, f.Path, "%s (a lock has no such field: correct it, or run `olm-render lock` to write the lock afresh)", msg)
	}
	return out
}

// documents counts the non-empty YAML documents of data.
func documents(data []byte) (int, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	n := 0
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			n++
		}
	}
}

// stripComments drops the comment lines of a YAML document.
func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

func (l *Lock) validate() error {
	var errs []error
	if l.APIVersion != APIVersion || l.Kind != Kind {
		errs = append(errs, fmt.Errorf("apiVersion/kind: want %s %s, got %q %q", APIVersion, Kind, l.APIVersion, l.Kind))
	}
	seen := map[string]bool{}
	for i, ns := range l.Namespaces {
		if ns.Namespace == "" {
			errs = append(errs, fmt.Errorf("namespaces[%d].namespace: must not be empty", i))
		}
		for j, e := range ns.Subscriptions {
			field := fmt.Sprintf("namespaces[%d].subscriptions[%d]", i, j)
			key := ns.Namespace + "/" + e.Subscription
			switch {
			case e.Subscription == "" || e.Bundle == "" || e.Package == "":
				errs = append(errs, fmt.Errorf("%s: subscription, package and bundle must be set", field))
			case seen[key]:
				errs = append(errs, fmt.Errorf("%s: subscription %s is locked twice", field, key))
			}
			seen[key] = true
		}
	}
	return errors.Join(errs...)
}

// Read reads the lock file name of fsys, confined like every other read. A missing file returns
// an error satisfying errors.Is(err, fs.ErrNotExist).
func Read(fsys rootfs.FS, name string) (*Lock, error) {
	data, err := fsys.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: reading lock: %s: %w", fsys.Path(name), rootfs.Describe(err), err)
	}
	return Unmarshal(fsys.Path(name), data)
}

// Write writes the lock atomically: into a temporary file beside path, then renamed.
func Write(path string, l *Lock) error {
	data, err := Marshal(l)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing lock: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing lock: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing lock: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing lock: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing lock: %w", err)
	}
	return nil
}

// Len returns the number of locked Subscriptions.
func (l *Lock) Len() int {
	n := 0
	for _, ns := range l.Namespaces {
		n += len(ns.Subscriptions)
	}
	return n
}
