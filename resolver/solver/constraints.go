package solver

import (
	"fmt"
	"strings"

	"github.com/go-air/gini/logic"
	"github.com/go-air/gini/z"
)

// Identifier names a variable.
type Identifier string

// String returns the identifier.
func (id Identifier) String() string { return string(id) }

// Variable is something the solver may install, with its constraints.
type Variable interface {
	Identifier() Identifier
	Constraints() []Constraint
}

// Constraint restricts the variable it belongs to (its subject).
type Constraint interface {
	// String describes the constraint applied to subject, in OLM's words.
	String(subject Identifier) string
	apply(c *logic.C, lits map[Identifier]z.Lit, subject Identifier) z.Lit
	order() []Identifier
	anchor() bool
}

type mandatory struct{}

// Mandatory requires the subject to be installed.
func Mandatory() Constraint { return mandatory{} }

func (mandatory) String(s Identifier) string { return fmt.Sprintf("%s is mandatory", s) }
func (mandatory) apply(_ *logic.C, lits map[Identifier]z.Lit, s Identifier) z.Lit {
	return lits[s]
}
func (mandatory) order() []Identifier { return nil }
func (mandatory) anchor() bool        { return true }

type prohibited struct{}

// Prohibited forbids the subject.
func Prohibited() Constraint { return prohibited{} }

func (prohibited) String(s Identifier) string { return fmt.Sprintf("%s is prohibited", s) }
func (prohibited) apply(_ *logic.C, lits map[Identifier]z.Lit, s Identifier) z.Lit {
	return lits[s].Not()
}
func (prohibited) order() []Identifier { return nil }
func (prohibited) anchor() bool        { return false }

type dependency []Identifier

// Dependency requires, when the subject is installed, at least one of ids; earlier ids are
// preferred.
func Dependency(ids ...Identifier) Constraint { return dependency(ids) }

func (d dependency) String(s Identifier) string {
	if len(d) == 0 {
		return fmt.Sprintf("%s has a dependency without any candidates to satisfy it", s)
	}
	names := make([]string, len(d))
	for i, id := range d {
		names[i] = string(id)
	}
	return fmt.Sprintf("%s requires at least one of %s", s, strings.Join(names, ", "))
}
func (d dependency) apply(c *logic.C, lits map[Identifier]z.Lit, s Identifier) z.Lit {
	m := lits[s].Not()
	for _, id := range d {
		m = c.Or(m, lits[id])
	}
	return m
}
func (d dependency) order() []Identifier { return d }
func (dependency) anchor() bool          { return false }

type conflict Identifier

// Conflict forbids installing both the subject and id.
func Conflict(id Identifier) Constraint { return conflict(id) }

func (c conflict) String(s Identifier) string {
	return fmt.Sprintf("%s conflicts with %s", s, Identifier(c))
}
func (c conflict) apply(circuit *logic.C, lits map[Identifier]z.Lit, s Identifier) z.Lit {
	return circuit.Or(lits[s].Not(), lits[Identifier(c)].Not())
}
func (conflict) order() []Identifier { return nil }
func (conflict) anchor() bool        { return false }

type atMost struct {
	n   int
	ids []Identifier
}

// AtMost allows at most n of ids to be installed.
func AtMost(n int, ids ...Identifier) Constraint { return atMost{n: n, ids: ids} }

func (a atMost) String(s Identifier) string {
	names := make([]string, len(a.ids))
	for i, id := range a.ids {
		names[i] = string(id)
	}
	return fmt.Sprintf("%s permits at most %d of %s", s, a.n, strings.Join(names, ", "))
}
func (a atMost) apply(c *logic.C, lits map[Identifier]z.Lit, _ Identifier) z.Lit {
	ms := make([]z.Lit, len(a.ids))
	for i, id := range a.ids {
		ms[i] = lits[id]
	}
	return c.CardSort(ms).Leq(a.n)
}
func (atMost) order() []Identifier { return nil }
func (atMost) anchor() bool        { return false }

// AppliedConstraint is a constraint and the variable it belongs to.
type AppliedConstraint struct {
	Variable   Variable
	Constraint Constraint
}

// String describes the constraint applied to its variable.
func (a AppliedConstraint) String() string {
	return a.Constraint.String(a.Variable.Identifier())
}

// NotSatisfiable is the error of an unsatisfiable problem: the constraints at fault, sorted by
// their text.
type NotSatisfiable []AppliedConstraint

// Error returns "constraints not satisfiable: a, b, ..." as OLM does.
func (e NotSatisfiable) Error() string {
	const msg = "constraints not satisfiable"
	if len(e) == 0 {
		return msg
	}
	s := make([]string, len(e))
	for i, a := range e {
		s[i] = a.String()
	}
	return msg + ": " + strings.Join(s, ", ")
}

type pretty struct {
	Constraint
	msg string
}

// Pretty gives a constraint a fixed description, as OLM's resolver does for the constraints it
// builds ("subscription x exists", "bundle y requires an operator ...").
func Pretty(c Constraint, msg string) Constraint { return pretty{Constraint: c, msg: msg} }

func (p pretty) String(Identifier) string { return p.msg }

// Unwrap returns the constraint without its description.
func (p pretty) Unwrap() Constraint { return p.Constraint }
