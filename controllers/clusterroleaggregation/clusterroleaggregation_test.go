package clusterroleaggregation_test

import (
	"context"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestAggregatedClusterRoles: the bootstrap roles admin, edit and view are filled from the
// roles labelled for them, so that a user bound to view may read ConfigMaps (`kubectl auth
// can-i get configmaps` says yes) and not Secrets; a user-defined aggregated ClusterRole gets
// the rules of the roles its selector matches, and follows them when they change.
func TestAggregatedClusterRoles(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = []string{controllers.ClusterRoleAggregation} })
	cs, _ := testchain.Clients(t, c)
	ctx := context.Background()
	requireRBAC(t, cs)

	// A user bound to view, in the whole cluster and in one namespace.
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "alice-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "alice"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings("team").Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bob-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "bob"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	configmaps := authorizationv1.ResourceAttributes{Verb: "get", Resource: "configmaps"}
	poll(t, "alice may get configmaps", func(ctx context.Context) (bool, error) {
		return canI(t, c.Admin, "alice", "default", configmaps), nil
	})
	poll(t, "bob may get configmaps in team", func(ctx context.Context) (bool, error) {
		return canI(t, c.Admin, "bob", "team", configmaps), nil
	})
	if canI(t, c.Admin, "bob", "default", configmaps) {
		t.Error("bob may get configmaps outside the namespace of his RoleBinding")
	}
	if canI(t, c.Admin, "alice", "default", authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets"}) {
		t.Error("view lets alice read secrets")
	}
	if canI(t, c.Admin, "alice", "default", authorizationv1.ResourceAttributes{Verb: "delete", Resource: "configmaps"}) {
		t.Error("view lets alice delete configmaps")
	}
	// edit and admin are filled too: admin holds what edit holds, edit what view holds.
	for _, name := range []string{"edit", "admin"} {
		poll(t, name+" aggregated", func(ctx context.Context) (bool, error) {
			r, err := cs.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{})
			return err == nil && r.AggregationRule != nil && len(r.Rules) > 0, err
		})
	}

	// A role labelled for view extends it: alice may now list the widgets of example.com.
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets-view", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get", "list", "watch"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "alice may list widgets", func(ctx context.Context) (bool, error) {
		return canI(t, c.Admin, "alice", "default", authorizationv1.ResourceAttributes{Verb: "list", Group: "example.com", Resource: "widgets"}), nil
	})

	// A user-defined aggregated ClusterRole.
	monitoring := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "monitoring"},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{"rbac.example.com/aggregate-to-monitoring": "true"}}}},
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, monitoring, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	endpoints := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"endpoints", "services"}, Verbs: []string{"get", "list", "watch"}}
	pods := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}
	for name, rule := range map[string]rbacv1.PolicyRule{"monitoring-endpoints": endpoints, "monitoring-pods": pods} {
		if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"rbac.example.com/aggregate-to-monitoring": "true"}},
			Rules:      []rbacv1.PolicyRule{rule},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// One selector: the rules in the order of the roles' names, as kube-controller-manager's.
	waitRules(t, cs, "monitoring", []rbacv1.PolicyRule{endpoints, pods})

	// A role that stops matching takes its rules out.
	if _, err := cs.RbacV1().ClusterRoles().Patch(ctx, "monitoring-pods", "application/merge-patch+json",
		[]byte(`{"metadata":{"labels":{"rbac.example.com/aggregate-to-monitoring":null}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRules(t, cs, "monitoring", []rbacv1.PolicyRule{endpoints})
	// The rules are the controller's, by server-side apply.
	r, err := cs.RbacV1().ClusterRoles().Get(ctx, "monitoring", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	managed := false
	for _, m := range r.ManagedFields {
		managed = managed || (m.Manager == "clusterrole-aggregation-controller" && m.Operation == metav1.ManagedFieldsOperationApply)
	}
	if !managed {
		t.Errorf("rules not applied by clusterrole-aggregation-controller: %+v", r.ManagedFields)
	}
}

// TestAggregatedRulesOrder: the rules of an aggregated ClusterRole come selector by selector,
// in the order of its aggregationRule, and within one selector from the matching roles in the
// order of their names; a rule already there (from an earlier role or selector) is not repeated.
// A role matched by both selectors counts where the first one matches it.
func TestAggregatedRulesOrder(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = []string{controllers.ClusterRoleAggregation} })
	cs, _ := testchain.Clients(t, c)
	ctx := context.Background()
	requireRBAC(t, cs)

	rule := func(resource string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{resource}, Verbs: []string{"get"}}
	}
	const first, second = "rbac.example.com/aggregate-first", "rbac.example.com/aggregate-second"
	sources := []struct {
		name   string
		labels map[string]string
		rules  []rbacv1.PolicyRule
	}{
		// Names sort the other way round from the selectors: a-second would come first if
		// the roles were sorted by name across selectors.
		{"a-second", map[string]string{second: "true"}, []rbacv1.PolicyRule{rule("apples"), rule("shared")}},
		{"b-both", map[string]string{first: "true", second: "true"}, []rbacv1.PolicyRule{rule("bananas"), rule("shared")}},
		{"z-first", map[string]string{first: "true"}, []rbacv1.PolicyRule{rule("zucchini")}},
	}
	for _, src := range sources {
		if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: src.name, Labels: src.labels}, Rules: src.rules,
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "ordered"},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{first: "true"}},
			{MatchLabels: map[string]string{second: "true"}},
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// First selector: b-both, z-first; second: a-second (its "shared" is there already), then
	// b-both again, which adds nothing.
	waitRules(t, cs, "ordered", []rbacv1.PolicyRule{rule("bananas"), rule("shared"), rule("zucchini"), rule("apples")})
}

func waitRules(t *testing.T, cs kubernetes.Interface, name string, want []rbacv1.PolicyRule) {
	t.Helper()
	var got []rbacv1.PolicyRule
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		r, err := cs.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = r.Rules
		return apiequality.Semantic.DeepEqual(got, want), nil
	})
	if err != nil {
		t.Fatalf("rules of %s: %+v, want %+v", name, got, want)
	}
}

// canI is `kubectl auth can-i` as user: a SelfSubjectAccessReview made as that user.
func canI(t *testing.T, admin *rest.Config, user, namespace string, attrs authorizationv1.ResourceAttributes) bool {
	t.Helper()
	cfg := rest.CopyConfig(admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	attrs.Namespace = namespace
	review, err := kubernetes.NewForConfigOrDie(cfg).AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(),
		&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("can-i as %s: %v", user, err)
	}
	return review.Status.Allowed
}

// requireRBAC skips the test while the chain does not serve rbac.authorization.k8s.io/v1.
func requireRBAC(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	if _, err := cs.Discovery().ServerResourcesForGroupVersion(rbacv1.SchemeGroupVersion.String()); apierrors.IsNotFound(err) {
		t.Skip("the chain does not serve rbac.authorization.k8s.io/v1 yet: nothing to aggregate")
	} else if err != nil {
		t.Fatal(err)
	}
}

func poll(t *testing.T, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
