package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/olm-render/olm-render/schemas/diag"
)

// sort puts packages, channels and bundles in name order and each bundle's channels too.
func (c *Catalog) sort() {
	slices.SortFunc(c.Packages, func(a, b *Package) int { return cmp.Compare(a.Name, b.Name) })
	for _, p := range c.Packages {
		slices.SortFunc(p.Channels, func(a, b *Channel) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortFunc(p.Bundles, func(a, b *Bundle) int { return cmp.Compare(a.Name, b.Name) })
		for _, b := range p.Bundles {
			slices.Sort(b.Channels)
		}
	}
}

// Validate checks a loaded catalog as opm validates a model: package names, default channels,
// one head per channel, no replaces cycles, no stranded bundles, unique versions, valid
// skipRanges. Problems name the file and the object.
func Validate(c *Catalog) diag.Problems {
	var problems diag.Problems
	// Bundle trees were never validated as one graph by their authors (the community pipeline
	// builds its index bundle by bundle), so graph-shape problems there are warnings: OLM itself
	// fails only when a Subscription uses such a channel.
	graph := diag.Error
	if c.Format != FormatFBC {
		graph = diag.Warning
	}
	for _, p := range c.Packages {
		var ps diag.Problems
		validatePackage(p, graph, &ps)
		problems = append(problems, ps.InPackage(p.Name)...)
	}
	return problems.Sorted()
}

func validatePackage(p *Package, graph diag.Severity, problems *diag.Problems) {
	obj := fmt.Sprintf("package %q", p.Name)
	if msgs := validation.IsDNS1123Label(p.Name); len(msgs) > 0 {
		problems.Errorf(p.Origin, obj, "", "invalid package name %q: %v", p.Name, msgs)
	}
	switch {
	case len(p.Channels) == 0:
		problems.Errorf(p.Origin, obj, "", "package must contain at least one channel")
	case p.DefaultChannel == "":
		problems.Errorf(p.Origin, obj, "defaultChannel", "default channel must be set")
	case p.Channel(p.DefaultChannel) == nil:
		problems.Errorf(p.Origin, obj, "defaultChannel", "default channel %q not found in channels list", p.DefaultChannel)
	}
	versions := map[string][]string{}
	for _, b := range p.Bundles {
		versions[b.Version.String()] = append(versions[b.Version.String()], b.Name)
	}
	var dups []string
	for v, names := range versions {
		if len(names) > 1 {
			slices.Sort(names)
			dups = append(dups, fmt.Sprintf("{%s: [%s]}", v, strings.Join(names, ", ")))
		}
	}
	if len(dups) > 0 {
		slices.Sort(dups)
		problems.Errorf(p.Origin, obj, "", "duplicate versions found in bundles: [%s]", strings.Join(dups, " "))
	}
	for _, ch := range p.Channels {
		validateChannel(p, ch, graph, problems)
	}
}

func validateChannel(p *Package, ch *Channel, graph diag.Severity, problems *diag.Problems) {
	obj := fmt.Sprintf("package %q channel %q", p.Name, ch.Name)
	if len(ch.Entries) == 0 {
		problems.Errorf(ch.Origin, obj, "", "channel must contain at least one bundle")
		return
	}
	for n, e := range ch.Entries {
		origin, object, prefix := ch.entrySite(p, n)
		for i, s := range e.Skips {
			if s == "" {
				problems.Errorf(origin, object, fmt.Sprintf("%sskips[%d]", prefix, i), "skip[%d] is empty", i)
			}
		}
		if e.SkipRange != "" {
			// opm refuses to serve a catalog with one; OLM's resolver ignores it
			// (source_registry.go), so in a bundle tree it is a warning and the range is unused.
			if _, err := semver.ParseRange(e.SkipRange); err != nil {
				field := prefix + "skipRange"
				if ch.EdgesInCSVs {
					field = "metadata.annotations[" + skipRangeAnnotation + "]"
				}
				problems.Add(diag.Problem{Severity: graph, Origin: origin, Object: object, Field: field,
					Message: fmt.Sprintf("invalid skipRange %q: %v; OLM's resolver ignores it (a range such as >=1.0.0 <1.2.0)", e.SkipRange, err)})
			}
		}
	}
	if ps := graphProblems(p, ch, graph); len(ps) > 0 {
		*problems = append(*problems, ps...)
		return
	}
	stranded, err := ch.Stranded()
	if err != nil {
		problems.Add(diag.Problem{Severity: graph, Origin: ch.Origin, Object: obj, Message: err.Error()})
		return
	}
	if len(stranded) > 0 {
		problems.Add(diag.Problem{Severity: graph, Origin: ch.Origin, Object: obj,
			Message: "channel contains one or more stranded bundles: " + strings.Join(stranded, ", ")})
	}
}

// Stranded returns the channel's entries that are neither on the replaces chain from its head
// nor skipped, sorted; it fails when the channel has no unique head or its chain has a cycle.
func (c *Channel) Stranded() ([]string, error) {
	head, err := c.Head()
	if err != nil {
		return nil, err
	}
	skipped := map[string]bool{}
	for _, e := range c.Entries {
		for _, s := range e.Skips {
			skipped[s] = true
		}
	}
	onChain := map[string]bool{}
	var chain []string
	for cur := head; cur != ""; {
		if onChain[cur] {
			return nil, fmt.Errorf("detected cycle in replaces chain of upgrade graph: %s -> %s", strings.Join(chain, " -> "), cur)
		}
		onChain[cur] = true
		chain = append(chain, cur)
		e := c.Entry(cur)
		if e == nil || e.Replaces == "" || skipped[e.Replaces] || c.Entry(e.Replaces) == nil {
			break
		}
		cur = e.Replaces
	}
	var stranded []string
	for _, e := range c.Entries {
		if !onChain[e.Name] && !skipped[e.Name] {
			stranded = append(stranded, e.Name)
		}
	}
	slices.Sort(stranded)
	return stranded, nil
}

// Head returns the channel's head: the unique entry that no entry replaces or skips.
func (c *Channel) Head() (string, error) {
	incoming := map[string]bool{}
	for _, e := range c.Entries {
		if e.Replaces != "" {
			incoming[e.Replaces] = true
		}
		for _, s := range e.Skips {
			incoming[s] = true
		}
	}
	var heads []string
	for _, e := range c.Entries {
		if !incoming[e.Name] {
			heads = append(heads, e.Name)
		}
	}
	switch len(heads) {
	case 0:
		return "", fmt.Errorf("no channel head found in graph")
	case 1:
		return heads[0], nil
	}
	slices.Sort(heads)
	return "", fmt.Errorf("multiple channel heads found in graph: %s", strings.Join(heads, ", "))
}

// Uninstallable returns an error for each bundle a render could not install: a bundle left out
// (Broken) or known but unrenderable (Invalid) — each already a load warning — a directory of a
// bundle tree the loader does not understand (LeftOut.Unknown), a channel OLM
// cannot order (several heads, none, a cycle: a load warning for bundle trees, whose authors
// never validated them as one graph, and an error that fails every resolution reading the
// channel), and a bundle whose inline manifests (olm.bundle.object) do not decode, which loading
// leaves to the render that needs them. Inline manifests are decoded one bundle at a time and
// dropped.
func (c *Catalog) Uninstallable() diag.Problems {
	var out diag.Problems
	for _, p := range c.Packages {
		for _, ch := range p.Channels {
			out = append(out, graphProblems(p, ch, diag.Error).InPackage(p.Name)...)
		}
	}
	for _, b := range c.Broken {
		out = append(out, b.Problems.InPackage(b.Package)...)
	}
	for _, l := range c.LeftOut {
		if l.Unknown {
			p := l.Problem
			p.Severity = diag.Error
			out = append(out, p)
		}
	}
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			switch {
			case len(b.Invalid) > 0:
				out = append(out, b.Invalid.InPackage(p.Name)...)
			case len(b.InlineObjects) > 0 && b.manifests != nil:
				if _, err := b.manifests(); err != nil {
					ps := diag.From(err)
					for i := range ps {
						if ps[i].Origin.File == "" && !strings.HasPrefix(ps[i].Message, b.Origin.String()) {
							ps[i].Origin = b.Origin
						}
						ps[i].Object = cmp.Or(ps[i].Object, fmt.Sprintf("bundle %q", b.Name))
					}
					out = append(out, ps.InPackage(p.Name)...)
				}
			}
		}
	}
	return out
}
