package lock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// ResolveFunc resolves set with the given installed bundles ("namespace/subscription" → CSV
// name); Subscriptions in pinned keep their installed bundle exactly, the others may take one
// upgrade step, as OLM's resolver does from installed state.
type ResolveFunc func(ctx context.Context, set *inputs.Set, installed map[string]string, pinned map[string]bool) (*resolver.Result, error)

// UpgradeRequest asks for the next upgrade step(s) of some Subscriptions.
type UpgradeRequest struct {
	Set  *inputs.Set
	Lock *Lock
	// Subscriptions names the Subscriptions to move, as "namespace/name", or "name" when it is
	// unique. A Manual Subscription moves only when named.
	Subscriptions []string
	// All moves every Automatic Subscription (and every dependency).
	All bool
	// ManualToo makes All move Manual Subscriptions too: where OLM keeps running, every
	// declared Subscription is applied Manual and the pull request moving the lock is the
	// approval, so a Manual one in the inputs is no reason to hold it.
	ManualToo bool
	// ToHead repeats the step until nothing moves, recording every intermediate step.
	ToHead  bool
	Resolve ResolveFunc
}

// Held is a Subscription that did not move, and why.
type Held struct {
	Subscription string // namespace/name
	Reason       string
}

// String returns "namespace/name: reason".
func (h Held) String() string { return h.Subscription + ": " + h.Reason }

// UpgradeResult is what Upgrade did.
type UpgradeResult struct {
	// Lock is the lock after the last step.
	Lock *Lock
	// Result is the resolution of the last step.
	Result *resolver.Result
	// Steps lists the changes of each step, in order; empty when nothing moved.
	Steps [][]Change
	// Held lists the Subscriptions that were asked to move (or would have, with All) and could
	// not, sorted.
	Held []Held
}

// maxSteps bounds --to-head against a cyclic graph.
const maxSteps = 1000

// Upgrade takes the next upgrade step OLM would take for the requested Subscriptions, or every
// step to the channel head with ToHead.
func Upgrade(ctx context.Context, req UpgradeRequest) (*UpgradeResult, error) {
	targets, held, err := upgradeTargets(req)
	if err != nil {
		return nil, err
	}
	out := &UpgradeResult{Lock: req.Lock, Held: held}
	for step := 0; step < maxSteps; step++ {
		installed := out.Lock.Installed()
		pinned := map[string]bool{}
		for key := range installed {
			if !targets[key] {
				pinned[key] = true
			}
		}
		res, err := req.Resolve(ctx, withDependencies(req.Set, out.Lock), installed, pinned)
		if err != nil {
			return nil, err
		}
		next, err := Of(req.Set, res)
		if err != nil {
			return nil, err
		}
		changes := Diff(out.Lock, next)
		out.Result = res
		if len(changes) == 0 {
			break
		}
		out.Steps = append(out.Steps, changes)
		out.Lock = next
		if !req.ToHead {
			break
		}
		// A dependency pulled in by a step is a target of the next one when everything moves.
		if req.All {
			for _, ns := range next.Namespaces {
				for _, e := range ns.Subscriptions {
					if e.Generated {
						targets[ns.Namespace+"/"+e.Subscription] = true
					}
				}
			}
		}
	}
	return out, nil
}

// upgradeTargets decides which locked Subscriptions may move.
func upgradeTargets(req UpgradeRequest) (map[string]bool, []Held, error) {
	if req.All == (len(req.Subscriptions) > 0) {
		return nil, nil, errors.New("name the Subscriptions to upgrade, or use --all (not both)")
	}
	declared := map[string]*inputs.Subscription{}
	byName := map[string][]string{}
	for _, s := range req.Set.Subscriptions {
		key := s.Namespace + "/" + s.Name
		declared[key] = s
		byName[s.Name] = append(byName[s.Name], key)
	}
	targets := map[string]bool{}
	var held []Held
	if req.All {
		for key, s := range declared {
			if s.Spec != nil && s.Spec.InstallPlanApproval == v1alpha1.ApprovalManual && !req.ManualToo {
				held = append(held, Held{key, "installPlanApproval is Manual: name it to approve its upgrade"})
				continue
			}
			targets[key] = true
		}
		for _, ns := range req.Lock.Namespaces {
			for _, e := range ns.Subscriptions {
				if e.Generated {
					targets[ns.Namespace+"/"+e.Subscription] = true
				}
			}
		}
	} else {
		var errs []error
		for _, name := range req.Subscriptions {
			key := name
			if !strings.Contains(name, "/") {
				switch keys := byName[name]; len(keys) {
				case 0:
					key = ""
				case 1:
					key = keys[0]
				default:
					slices.Sort(keys)
					errs = append(errs, fmt.Errorf("subscription %q is in several namespaces (%s): name it as namespace/name", name, strings.Join(keys, ", ")))
					continue
				}
			}
			if declared[key] == nil && !req.Lock.isGenerated(key) {
				errs = append(errs, fmt.Errorf("subscription %q is not declared in the inputs", name))
				continue
			}
			targets[key] = true
		}
		if err := errors.Join(errs...); err != nil {
			return nil, nil, err
		}
	}
	for key := range targets {
		ns, name, _ := strings.Cut(key, "/")
		e := req.Lock.Entry(ns, name)
		if e == nil {
			continue
		}
		if reason := notUpgradeable(req.Set, ns, e.Bundle); reason != "" {
			delete(targets, key)
			held = append(held, Held{key, reason})
		}
	}
	slices.SortFunc(held, func(a, b Held) int { return strings.Compare(a.Subscription, b.Subscription) })
	return targets, held, nil
}

func (l *Lock) isGenerated(key string) bool {
	ns, name, _ := strings.Cut(key, "/")
	e := l.Entry(ns, name)
	return e != nil && e.Generated
}

// notUpgradeable returns why an OperatorCondition declared for the installed CSV blocks its
// upgrade, or "". As OLM reads it, spec.overrides take precedence over spec.conditions and
// status.conditions.
func notUpgradeable(set *inputs.Set, namespace, csv string) string {
	for _, oc := range set.OperatorConditions {
		if oc.Namespace != namespace || oc.Name != csv {
			continue
		}
		for _, conds := range [][]metav1.Condition{oc.Spec.Overrides, oc.Spec.Conditions, oc.Status.Conditions} {
			for _, c := range conds {
				if c.Type != "Upgradeable" {
					continue
				}
				if c.Status != metav1.ConditionFalse {
					return ""
				}
				msg := c.Message
				if msg == "" {
					msg = c.Reason
				}
				return fmt.Sprintf("OperatorCondition %s/%s is Upgradeable=False: %s", namespace, csv, msg)
			}
		}
	}
	return ""
}
