package migrate

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render"
)

// WriteDiff writes the cluster diff as Markdown: per Subscription, the objects of each class.
func (p *Plan) WriteDiff(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# From OLM v0 to OLM v1: the cluster diff\n\n")
	v0 := "where OLM v0 runs: an `--olm=running` render's objects and prediction"
	if p.V0Target != render.TargetRunning {
		v0 = "an `--olm=absent` render: the render is the install"
	}
	b.WriteString("What OLM v0 created for each Subscription OLM v1 takes, against what OLM v1 applies and\n")
	b.WriteString("operator-controller creates (an `--olm=v1` render). OLM v0's side: " + v0 + ".\n")
	for _, sub := range p.subscriptions() {
		fmt.Fprintf(&b, "\n## %s\n", describe(sub, p.Verdicts))
		for _, class := range classes {
			lines := p.lines(sub, class)
			if len(lines) == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n### %s (%d)\n\n", classTitle[class], len(lines))
			for _, l := range lines {
				b.WriteString("- " + l + "\n")
			}
		}
	}
	if left := p.left(); len(left) > 0 {
		b.WriteString("\n## Left to OLM v0\n\n")
		for _, l := range left {
			b.WriteString("- " + l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// classTitle heads each class.
var classTitle = map[Class]string{
	Untouched: "Must survive untouched",
	Adopted:   "Taken over by v1 under the same name",
	Renamed:   "Renamed",
	Dropped:   "Created by v0, not owned by v1",
	Added:     "Created by v1 only",
}

// subscriptions lists the Subscriptions of the diff in order, "" (the OperatorGroups') last.
func (p *Plan) subscriptions() []string {
	var out []string
	shared := false
	for _, c := range p.Changes {
		if c.Subscription == "" {
			shared = true
			continue
		}
		if len(out) == 0 || !contains(out, c.Subscription) {
			out = append(out, c.Subscription)
		}
	}
	slices.Sort(out)
	if shared {
		out = append(out, "")
	}
	return out
}

// lines describes the changes of one Subscription and class.
func (p *Plan) lines(sub string, class Class) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Subscription != sub || c.Class != class {
			continue
		}
		name := "`" + c.Key.String() + "`"
		if c.From != nil {
			name = "`" + c.From.String() + "` → `" + c.Key.String() + "`"
		}
		out = append(out, name+": "+c.Note)
	}
	return out
}

// left lists the Subscriptions v1 does not take, with why.
func (p *Plan) left() []string {
	var out []string
	for _, v := range p.Verdicts {
		if v.Outcome == olmv1.Eligible {
			continue
		}
		codes := make([]string, 0, len(v.Reasons))
		for _, r := range v.Reasons {
			if !contains(codes, string(r.Code)) {
				codes = append(codes, string(r.Code))
			}
		}
		out = append(out, fmt.Sprintf("`%s` (%s, %s): %s", v.ID(), v.Bundle, v.Outcome, strings.Join(codes, ", ")))
	}
	return out
}

// describe heads a Subscription's section.
func describe(sub string, verdicts []olmv1.Verdict) string {
	if sub == "" {
		return "The OperatorGroups"
	}
	for _, v := range verdicts {
		if v.ID() == sub {
			return fmt.Sprintf("Subscription %s: %s → ClusterExtension %s", sub, v.Bundle, v.ClusterExtension)
		}
	}
	return "Subscription " + sub
}

// WriteSteps writes the ordered steps as Markdown, with their commands.
func (p *Plan) WriteSteps(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# From OLM v0 to OLM v1: the steps\n\n")
	b.WriteString("For each Subscription OLM v1 takes, in order, on the cluster (operator-controller with its\n")
	b.WriteString("default Helm applier), from the directory holding this plan. Nothing here deletes a CRD, a\n")
	b.WriteString("custom resource or the operator's workload.\n")
	current, n := "", 0
	for _, s := range p.Steps {
		if s.Subscription != current {
			current, n = s.Subscription, 0
			fmt.Fprintf(&b, "\n## %s\n", describe(current, p.Verdicts))
		}
		n++
		fmt.Fprintf(&b, "\n%d. **%s.** %s\n", n, s.Title, s.Why)
		if len(s.Commands) > 0 {
			b.WriteString("\n   ```shell\n")
			for _, c := range s.Commands {
				b.WriteString("   " + c + "\n")
			}
			b.WriteString("   ```\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// contains reports whether a list holds s.
func contains(list []string, s string) bool { return slices.Contains(list, s) }
