package solver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-air/gini"
	"github.com/go-air/gini/logic"
	"github.com/go-air/gini/z"
)

// Sat results of gini.
const (
	sat   = 1
	unsat = -1
)

// DuplicateIdentifier is the error of a problem that names a variable twice.
type DuplicateIdentifier Identifier

// Error returns OLM's text.
func (e DuplicateIdentifier) Error() string {
	return fmt.Sprintf("duplicate identifier %q in input", Identifier(e))
}

// problem is a problem encoded for gini.
type problem struct {
	vars    []Variable
	lits    map[Identifier]z.Lit
	c       *logic.C
	g       *gini.Gini
	outputs []z.Lit
	applied map[z.Lit]AppliedConstraint
	anchors []Identifier
}

// Solve returns the variables to install, in input order, or a NotSatisfiable error naming the
// constraints at fault.
func Solve(ctx context.Context, vars []Variable) ([]Variable, error) {
	p, err := encode(vars)
	if err != nil {
		return nil, err
	}
	if p.solve(nil) != sat {
		return nil, p.notSatisfiable()
	}
	guesses, ok := p.fastSearch()
	if !ok {
		var err error
		if guesses, err = p.search(ctx); err != nil {
			return nil, err
		}
	}
	return p.minimise(guesses)
}

// encode builds the circuit: one literal per variable, one output literal per constraint.
func encode(vars []Variable) (*problem, error) {
	p := &problem{vars: vars, lits: map[Identifier]z.Lit{}, c: logic.NewC(), applied: map[z.Lit]AppliedConstraint{}}
	for _, v := range vars {
		id := v.Identifier()
		if _, dup := p.lits[id]; dup {
			return nil, DuplicateIdentifier(id)
		}
		p.lits[id] = p.c.Lit()
	}
	var errs []string
	for _, v := range vars {
		for _, con := range v.Constraints() {
			for _, ref := range references(con) {
				if _, ok := p.lits[ref]; !ok {
					errs = append(errs, fmt.Sprintf("variable %q referenced but not provided", ref))
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%d errors encountered: %s", len(errs), strings.Join(errs, ", "))
	}
	for _, v := range vars {
		anchor := false
		for _, con := range v.Constraints() {
			out := con.apply(p.c, p.lits, v.Identifier())
			p.outputs = append(p.outputs, out)
			p.applied[out] = AppliedConstraint{Variable: v, Constraint: con}
			anchor = anchor || con.anchor()
		}
		if anchor {
			p.anchors = append(p.anchors, v.Identifier())
		}
	}
	p.g = gini.New()
	p.c.ToCnf(p.g)
	return p, nil
}

func references(c Constraint) []Identifier {
	if p, ok := c.(pretty); ok {
		c = p.Constraint
	}
	switch c := c.(type) {
	case dependency:
		return c
	case conflict:
		return []Identifier{Identifier(c)}
	case atMost:
		return c.ids
	}
	return nil
}

// solve solves under every constraint output plus extra assumptions.
func (p *problem) solve(extra []z.Lit) int {
	p.g.Assume(p.outputs...)
	p.g.Assume(extra...)
	return p.g.Solve()
}

// notSatisfiable maps gini's failed assumptions back to constraints, sorted by text.
func (p *problem) notSatisfiable() error {
	var out NotSatisfiable
	seen := map[string]bool{}
	for _, m := range p.g.Why(nil) {
		a, ok := p.applied[m]
		if !ok {
			continue
		}
		if s := a.String(); !seen[s] {
			seen[s] = true
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b AppliedConstraint) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// fastSearch is search with unit propagation (gini's Test) instead of a full solve per guess, as
// OLM's search does. It gives up (ok false) when the guesses it kept turn out unsatisfiable,
// which would need backtracking; search then decides.
func (p *problem) fastSearch() (guesses []z.Lit, ok bool) {
	scopes := 0
	defer func() {
		for ; scopes > 0; scopes-- {
			p.g.Untest()
		}
	}()
	p.g.Assume(p.outputs...)
	if r, _ := p.g.Test(nil); r == unsat {
		return nil, false
	}
	scopes++
	p.choices(func(lit z.Lit) bool {
		p.g.Assume(lit)
		if r, _ := p.g.Test(nil); r == unsat {
			p.g.Untest()
			return false
		}
		scopes++
		guesses = append(guesses, lit)
		return true
	})
	return guesses, p.g.Solve() == sat
}

// choices walks the choices breadth-first from the anchors, offering each choice's candidates
// in order to try until it accepts one; a choice already met by an accepted candidate is
// skipped.
func (p *problem) choices(try func(z.Lit) bool) {
	byID := make(map[Identifier]Variable, len(p.vars))
	for _, v := range p.vars {
		byID[v.Identifier()] = v
	}
	chosen := map[Identifier]bool{}
	var queue [][]Identifier
	for _, a := range p.anchors {
		queue = append(queue, []Identifier{a})
	}
	for len(queue) > 0 {
		choice := queue[0]
		queue = queue[1:]
		if slices.ContainsFunc(choice, func(id Identifier) bool { return chosen[id] }) {
			continue
		}
		for _, cand := range choice {
			if !try(p.lits[cand]) {
				continue
			}
			chosen[cand] = true
			for _, con := range byID[cand].Constraints() {
				if order := con.order(); len(order) > 0 {
					queue = append(queue, order)
				}
			}
			break
		}
	}
}

// search takes choices breadth-first from the anchors; for each, the first candidate that keeps
// the problem satisfiable is guessed, and its Dependency lists become new choices.
func (p *problem) search(ctx context.Context) ([]z.Lit, error) {
	var guesses []z.Lit
	p.choices(func(lit z.Lit) bool {
		if ctx.Err() != nil || p.solve(append(slices.Clone(guesses), lit)) != sat {
			return false
		}
		guesses = append(guesses, lit)
		return true
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cancelled before a solution could be found: %w", err)
	}
	return guesses, nil
}

// minimise finds, with the guesses fixed and every variable false in the search's model kept
// false, a model with as few other variables true as possible; it returns the true variables in
// input order.
func (p *problem) minimise(guesses []z.Lit) ([]Variable, error) {
	if p.solve(guesses) != sat {
		return nil, errors.New("unexpected internal error")
	}
	guessed := map[z.Lit]bool{}
	for _, m := range guesses {
		guessed[m] = true
	}
	assumptions := slices.Clone(guesses)
	var extras []z.Lit
	for _, v := range p.vars {
		m := p.lits[v.Identifier()]
		switch {
		case guessed[m]:
		case p.g.Value(m):
			extras = append(extras, m)
		default:
			assumptions = append(assumptions, m.Not())
		}
	}
	if len(extras) > 0 {
		cs := p.c.CardSort(extras)
		var roots []z.Lit
		for w := 0; w <= len(extras); w++ {
			roots = append(roots, cs.Leq(w))
		}
		p.c.ToCnfFrom(p.g, roots...)
		found := false
		for w := 0; w <= len(extras); w++ {
			if p.solve(append(slices.Clone(assumptions), cs.Leq(w))) == sat {
				found = true
				break
			}
		}
		if !found {
			return nil, errors.New("unexpected internal error")
		}
	} else if p.solve(assumptions) != sat {
		return nil, errors.New("unexpected internal error")
	}
	var out []Variable
	for _, v := range p.vars {
		if p.g.Value(p.lits[v.Identifier()]) {
			out = append(out, v)
		}
	}
	return out, nil
}
