package diff

import (
	"cmp"
	"fmt"
	"strings"
)

// Headings of the two parts of a report where OLM runs.
const (
	appliedTitle   = "What Git applies"
	predictedTitle = "Predicted objects"
)

// title is the heading of what the controller will do: "What OLM will do".
func (p *OLMPart) title() string {
	return "What " + cmp.Or(p.Controller, ControllerOLM) + " will do"
}

// noChange says that nothing moved for the controller: no Subscription's lock and nothing a
// contract admits or holds, or no ClusterExtension's version.
func (p *OLMPart) noChange() string {
	if p.Controller == ControllerOperatorController {
		return "Nothing changes for any ClusterExtension: no version moved."
	}
	return "Nothing changes for any Subscription: no lock moved, no contract admits or holds anything new."
}

// Legends of the words of what OLM will do, in Markdown.
const (
	admitsLegend = "_approve admits_: what the approval contract newly lets `olm-render approve` approve"
	heldLegend   = "_held_: the next step OLM will propose, which `olm-render approve` holds until a pull request moves the lock to it"
)

// partSummary returns a part's counts, or "no changes".
func partSummary(p *Part) string {
	if !p.Changed() {
		return "no changes"
	}
	return p.Summary()
}

// writeRunningText writes the gates that fire, then what Git applies (its counts, upgrades and
// diffs), then what OLM will do (in words, then the predicted objects' counts, upgrades and
// diffs).
func (r *Report) writeRunningText(b *strings.Builder) {
	if gates := r.gateNames(); gates != "" {
		b.WriteString("Gates: " + gates + "\n")
	}
	b.WriteString(appliedTitle + ": " + partSummary(r.Applied) + "\n")
	r.Applied.writeText(b)
	b.WriteString("\n" + r.OLM.title() + ":\n")
	if len(r.OLM.Operators) == 0 {
		b.WriteString("  " + r.OLM.noChange() + "\n")
	}
	for _, c := range r.OLM.Operators {
		b.WriteString("  " + c.Namespace + ": " + c.Text + "\n")
	}
	b.WriteString(predictedTitle + ": " + partSummary(&r.OLM.Part) + "\n")
	r.OLM.Part.writeText(b)
}

// runningMarkdown writes a report in two parts within budget bytes: each part's head at the
// most detailed level that fits, then the objects of what Git applies after its head, and the
// predicted objects after the other's, the applied ones first when the budget runs short.
func (r *Report) runningMarkdown(title string, budget int) string {
	for level := range headLevels {
		applied, olm := r.appliedMarkdownHead(title, level), r.olmMarkdownHead(level)
		if len(applied)+len(olm) > budget {
			continue
		}
		room := budget - len(applied) - len(olm)
		reserve := 0
		if n := len(r.OLM.Changes); n > 0 {
			reserve = len(omittedNote(n))
		}
		first := detailsOf(r.Applied.Changes, room-reserve)
		return applied + first + olm + detailsOf(r.OLM.Changes, room-len(first))
	}
	return clip(r.runningSummaryOnly(title), budget)
}

// appliedMarkdownHead renders the title, the gates and the head of what Git applies.
func (r *Report) appliedMarkdownHead(title string, level int) string {
	var b strings.Builder
	b.WriteString("## " + title + "\n\n")
	if gates := r.Gates(); len(gates) > 0 {
		b.WriteString("**Gates:** " + codeList(gates) + "\n\n")
	}
	b.WriteString("### " + appliedTitle + "\n\n**Summary:** " + partSummary(r.Applied) + "\n\n")
	if r.Applied.Changed() {
		r.Applied.writeMarkdownHead(&b, "####", level)
	}
	return b.String()
}

// olmMarkdownHead renders what OLM will do in words, then the head of the predicted objects.
func (r *Report) olmMarkdownHead(level int) string {
	var b strings.Builder
	b.WriteString("\n### " + r.OLM.title() + "\n\n")
	r.OLM.writeOperatorsMarkdown(&b)
	b.WriteString("**" + predictedTitle + ":** " + partSummary(&r.OLM.Part) + "\n\n")
	if r.OLM.Changed() {
		r.OLM.Part.writeMarkdownHead(&b, "####", level)
	}
	return b.String()
}

// writeOperatorsMarkdown lists what OLM will do, with the legend when a sentence needs it.
func (p *OLMPart) writeOperatorsMarkdown(b *strings.Builder) {
	if len(p.Operators) == 0 {
		b.WriteString(p.noChange() + "\n\n")
		return
	}
	admits, held := false, false
	for _, c := range p.Operators {
		fmt.Fprintf(b, "- `%s`: %s\n", c.Namespace, mdText(c.Text))
		admits = admits || len(c.Admits) > 0
		held = held || c.Held != "" || c.Released != ""
	}
	b.WriteString("\n")
	var legend []string
	if admits {
		legend = append(legend, admitsLegend)
	}
	if held {
		legend = append(legend, heldLegend)
	}
	if len(legend) > 0 {
		b.WriteString(strings.Join(legend, "; ") + ".\n\n")
	}
}

// runningSummaryOnly is the shortest Markdown report in two parts: each part's counts and what
// OLM will do.
func (r *Report) runningSummaryOnly(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n**%s:** %s\n\n**%s:**\n\n", title, appliedTitle, partSummary(r.Applied), r.OLM.title())
	r.OLM.writeOperatorsMarkdown(&b)
	fmt.Fprintf(&b, "**%s:** %s\n\n%s", predictedTitle, partSummary(&r.OLM.Part), listOmitted)
	return b.String()
}

// jsonRunningReport is the JSON form of a report in two parts.
type jsonRunningReport struct {
	Summary  jsonSummary `json:"summary"`
	Gates    []Gate      `json:"gates"`
	Findings []Finding   `json:"findings"`
	Applied  jsonPart    `json:"applied"`
	OLM      jsonOLMPart `json:"olm"`
}

// jsonPart is the JSON form of a part.
type jsonPart struct {
	Summary  jsonSummary `json:"summary"`
	Upgrades []Upgrade   `json:"upgrades"`
	Other    *Details    `json:"other,omitempty"`
	Changes  []*Change   `json:"changes"`
}

// jsonOLMPart is the JSON form of what OLM will do.
type jsonOLMPart struct {
	Controller string      `json:"controller"`
	Operators  []OLMChange `json:"operators"`
	jsonPart
}

// partJSON returns the JSON form of a part.
func partJSON(p *Part) jsonPart {
	return jsonPart{Summary: summaryOf(p), Upgrades: jsonUpgrades(p.Upgrades), Other: p.Other, Changes: nonNil(p.Changes)}
}

// runningJSON returns the JSON form of a report in two parts.
func (r *Report) runningJSON() jsonRunningReport {
	return jsonRunningReport{
		Summary:  summaryOf(&r.Part),
		Gates:    nonNil(r.Gates()),
		Findings: nonNil(r.Findings),
		Applied:  partJSON(r.Applied),
		OLM:      jsonOLMPart{Controller: cmp.Or(r.OLM.Controller, ControllerOLM), Operators: nonNil(r.OLM.Operators), jsonPart: partJSON(&r.OLM.Part)},
	}
}
