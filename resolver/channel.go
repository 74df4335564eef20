package resolver

import (
	"fmt"
	"strings"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// sortChannel orders the entries of one package and channel as OLM's sortChannel does: the
// chain from the unique head along replaces, newest first, skipped entries and entries off the
// chain left out.
func sortChannel(entries []*entry) ([]*entry, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	pkg, channel := entries[0].bundle.Package, entries[0].channel
	byName := map[string]*entry{}
	for _, e := range entries {
		byName[e.bundle.Name] = e
	}
	replacedBy := map[string]bool{}
	replaces := map[string]string{}
	skipped := map[string]bool{}
	for _, e := range entries {
		if e.replaces != "" {
			if _, ok := byName[e.replaces]; ok {
				replacedBy[e.replaces] = true
				replaces[e.bundle.Name] = e.replaces
			}
		}
		for _, s := range e.skips {
			if _, ok := byName[s]; ok {
				replacedBy[s] = true
				skipped[s] = true
			}
		}
	}
	var heads []*entry
	for _, e := range entries {
		if !replacedBy[e.bundle.Name] {
			heads = append(heads, e)
		}
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("no channel heads (entries not replaced by another entry) found in channel %q of package %q", channel, pkg)
	}
	var chains [][]*entry
	for _, head := range heads {
		var chain []*entry
		visited := map[string]bool{}
		for cur := head; cur != nil; {
			name := cur.bundle.Name
			if visited[name] {
				return nil, fmt.Errorf("a cycle exists in the chain of replacement beginning with %q in channel %q of package %q", head.bundle.Name, channel, pkg)
			}
			visited[name] = true
			if !skipped[name] {
				chain = append(chain, cur)
			}
			next, ok := replaces[name]
			if !ok {
				break
			}
			cur = byName[next]
		}
		chains = append(chains, chain)
	}
	if len(chains) > 1 {
		parts := make([]string, len(chains))
		for i, chain := range chains {
			switch len(chain) {
			case 0:
			case 1:
				parts[i] = chain[0].bundle.Name
			default:
				parts[i] = chain[0].bundle.Name + "..." + chain[len(chain)-1].bundle.Name
			}
		}
		return nil, fmt.Errorf("a unique replacement chain within a channel is required to determine the relative order between channel entries, but %d replacement chains were found in channel %q of package %q: %s",
			len(chains), channel, pkg, strings.Join(parts, ", "))
	}
	return chains[0], nil
}

// NextStep returns the upgrade step OLM's resolver proposes from the installed bundle named
// from, in channel ch of package p: the highest entry of the channel, in the order sortChannel
// gives it (skipped entries left out), that replaces, skips or skipRange-covers it; "" when no
// entry does, or when the package has no bundle of that name. A channel sortChannel cannot
// order is an error: OLM's resolution of it fails too, so it proposes nothing.
func NextStep(p *catalog.Package, ch *catalog.Channel, from string) (string, error) {
	installed := p.Bundle(from)
	if installed == nil {
		return "", nil
	}
	var entries []*entry
	for _, ce := range ch.Entries {
		if b := p.Bundle(ce.Name); b != nil {
			entries = append(entries, channelEntry(p, ch, ce, b))
		}
	}
	ordered, err := sortChannel(entries)
	if err != nil {
		return "", fmt.Errorf("the next step from %s: %w", from, err)
	}
	current := &entry{bundle: installed}
	for _, e := range ordered {
		if e.bundle.Name != from && e.replacesCurrent(current) {
			return e.bundle.Name, nil
		}
	}
	return "", nil
}
