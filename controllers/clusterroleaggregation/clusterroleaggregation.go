// Package clusterroleaggregation fills the rules of aggregated ClusterRoles.
//
// A ClusterRole with an aggregationRule gets its rules from the ClusterRoles its label
// selectors match: the bootstrap roles admin, edit and view are made that way, from the roles
// labelled rbac.authorization.k8s.io/aggregate-to-{admin,edit,view}, so that installing a CRD's
// "view" role extends view. kube-controller-manager's clusterrole-aggregation controller keeps
// every aggregated role's rules equal to those of the roles it matches, gathered selector by
// selector in the order of the aggregationRule, and within one selector from the matching roles
// in the order of their names; a rule already gathered is not repeated, and the role never
// aggregates itself. It writes them by server-side apply as "clusterrole-aggregation-controller",
// and looks at every aggregated role again whenever any ClusterRole changes.
//
// Ours does the same, in the same order.
//
// Left out: kube's fallback to a plain update for API servers without server-side apply.
package clusterroleaggregation

import (
	"context"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	rbacapply "k8s.io/client-go/applyconfigurations/rbac/v1"
	rbacinformers "k8s.io/client-go/informers/rbac/v1"
	rbacclient "k8s.io/client-go/kubernetes/typed/rbac/v1"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// FieldManager is the manager of the rules it writes, kube-controller-manager's.
const FieldManager = "clusterrole-aggregation-controller"

// Controller aggregates ClusterRoles. Build it with New, start it with Run.
type Controller struct {
	client rbacclient.ClusterRolesGetter
	roles  rbaclisters.ClusterRoleLister
	synced cache.InformerSynced
	queue  loop.Queue // names of aggregated ClusterRoles
}

// New returns a controller that watches ClusterRoles through informer and writes with client.
func New(client rbacclient.ClusterRolesGetter, informer rbacinformers.ClusterRoleInformer) (*Controller, error) {
	c := &Controller{
		client: client,
		roles:  informer.Lister(),
		synced: informer.Informer().HasSynced,
		queue:  loop.NewQueue("clusterrole_aggregation"),
	}
	// Any role's change may change what any aggregated role matches: look at all of them.
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.addAggregated() },
		UpdateFunc: func(any, any) { c.addAggregated() },
		DeleteFunc: func(any) { c.addAggregated() },
	})
	return c, err
}

func (c *Controller) addAggregated() {
	roles, err := c.roles.List(labels.Everything())
	if err != nil {
		return
	}
	for _, r := range roles {
		if r.AggregationRule != nil {
			c.queue.Add(r.Name)
		}
	}
}

// Run aggregates with workers goroutines until ctx is done, and returns once they have finished.
func (c *Controller) Run(ctx context.Context, workers int) {
	loop.Run(ctx, c.queue, workers, c.sync, c.synced)
}

// sync sets the rules of ClusterRole name to those of the roles it aggregates.
func (c *Controller) sync(ctx context.Context, name string) error {
	role, err := c.roles.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if role.AggregationRule == nil {
		return nil
	}
	rules, err := c.aggregate(role)
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(role.Rules, rules) {
		return nil
	}

	apply := rbacapply.ClusterRole(name)
	for _, r := range rules {
		apply.WithRules(rbacapply.PolicyRule().WithVerbs(r.Verbs...).WithAPIGroups(r.APIGroups...).
			WithResources(r.Resources...).WithResourceNames(r.ResourceNames...).WithNonResourceURLs(r.NonResourceURLs...))
	}
	if _, err := c.client.ClusterRoles().Apply(ctx, apply, metav1.ApplyOptions{FieldManager: FieldManager, Force: true}); err != nil {
		return fmt.Errorf("applying the rules of ClusterRole %s: %w", name, err)
	}
	return nil
}

// aggregate gathers the rules of the ClusterRoles other than role that its selectors match:
// selector by selector, in the order of its aggregationRule, and within one selector role by
// role in the order of their names; each rule once, where it first comes.
func (c *Controller) aggregate(role *rbacv1.ClusterRole) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	for _, s := range role.AggregationRule.ClusterRoleSelectors {
		selector, err := metav1.LabelSelectorAsSelector(&s)
		if err != nil {
			return nil, fmt.Errorf("selector of ClusterRole %s: %w", role.Name, err)
		}
		sources, err := c.roles.List(selector)
		if err != nil {
			return nil, err
		}
		slices.SortFunc(sources, func(a, b *rbacv1.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
		for _, src := range sources {
			if src.Name == role.Name {
				continue
			}
			for _, rule := range src.Rules {
				if !slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(r, rule) }) {
					rules = append(rules, rule)
				}
			}
		}
	}
	return rules, nil
}
