// Package solver is the boolean satisfiability solver of OLM v0's resolver, on
// github.com/go-air/gini: variables with Mandatory, Prohibited, Dependency, Conflict and AtMost
// constraints; a preference search in which earlier candidates of a Dependency win; a model
// minimised over the variables the search did not choose; and, when nothing satisfies the
// constraints, the constraints at fault with OLM's texts.
//
// It follows OLM's pkg/controller/registry/resolver/solver: the constraints become one circuit
// (logic.C) whose output literals are all assumed, with the Mandatory variables as anchors. The
// search takes choices breadth-first from the anchors, trying each Dependency's candidates in
// order; a candidate is kept only while the whole problem stays satisfiable, which yields the
// same first-candidate-first, lexicographically preferred assignment as OLM's backtracking
// search.
package solver
