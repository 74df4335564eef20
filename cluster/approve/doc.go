// Package approve approves OLM InstallPlans by the approval contract of their namespace
// (resolver/contract), for clusters where OLM keeps running (OpenShift): with Manual approval,
// OLM resolves every Subscription of a namespace together and waits for someone to approve the
// InstallPlan it generated; this package is that someone, and approves only what the render
// locked.
//
// # Decisions
//
// Decide looks at one InstallPlan and the contract of its namespace (a ConfigMap named
// olm-render-approval, labelled olm-render.dev/approval-contract: "true"). A plan waiting for
// approval (spec.approval Manual, spec.approved false, status.phase RequiresApproval) is
// approved only when every CSV of spec.clusterServiceVersionNames is in the contract: an
// InstallPlan is all-or-nothing, so one CSV outside the contract holds the whole plan. A
// namespace without a contract, or with one that does not parse, has nothing approved. Only
// the newest generation of a namespace's waiting plans is considered: OLM resolves a namespace
// as a whole, and an older plan is one it has given up on.
//
// # Health
//
// Health says whether a namespace reached its contract: Healthy when every Subscription of the
// contract installed its locked CSV and that CSV Succeeded; Degraded when a locked CSV Failed,
// a Subscription's resolution failed, a CSV outside the contract is installed, or the plan that
// would move a Subscription toward its lock is held; otherwise Progressing. A plan held because
// it would go past the lock, while every Subscription is at its lock, is the ceiling working and
// leaves the namespace Healthy. The approver writes the health on the contract ConfigMap
// (contract.HealthAnnotation, contract.HealthMessageAnnotation), where Argo CD and Flux read it.
// A namespace without a contract where the approver is needed (a Manual Subscription, a plan
// waiting for approval) is Missing, in the Report only.
//
// # Gating
//
// Ceiling tells a plan held because it goes past the locks (each CSV it installs is the one OLM
// offers a Subscription of the contract at its lock) from one held for anything else: a CSV of
// another operator, a namespace without a contract, a plan that moves one Subscription toward
// its lock and another past it. Report.Gates fails a gate (approve --once's exit status 2) on
// a plan held for anything else, or on a namespace not Healthy: a namespace at its locks whose
// only held plans go past them passes, as it should on every cluster whose locks are below the
// catalog's heads.
//
// # Running
//
// Once lists everything, acts once and returns a Report; a Controller watches InstallPlans,
// Subscriptions, CSVs and contract ConfigMaps with informers and reconciles a namespace on any
// change. Both approve with a merge patch of spec.approved carrying the plan's resourceVersion,
// so that a plan changed meanwhile is read and decided again, and post an Event on every plan
// they approve (InstallPlanApproved) or hold (InstallPlanHeld, naming the CSVs outside the
// contract). The package writes nothing to stdout and never exits.
package approve
