package flowcontrol_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// names are the stored FlowSchemas and priority levels by UID, which is what the response
// headers carry.
type names struct {
	flowSchemas, priorityLevels map[types.UID]string
}

// waitDigested waits until c stores the whole bootstrap configuration and the head's
// configuration controller has read it: every FlowSchema carries the Dangling condition the
// controller writes once it has seen the schema and its priority level. Requests classified
// after that see the whole configuration (before it, the controller knows only the two
// mandatory levels it imagines). It returns the objects' names by UID.
func waitDigested(t *testing.T, c *chain.Chain) names {
	t.Helper()
	cs, _ := testchain.Clients(t, c)
	var n names
	testchain.Eventually(t, "the bootstrap configuration, stored and read by the configuration controller", func(ctx context.Context) (bool, error) {
		fss, err := cs.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		pls, err := cs.FlowcontrolV1().PriorityLevelConfigurations().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		n = names{flowSchemas: map[types.UID]string{}, priorityLevels: map[types.UID]string{}}
		found := map[string]bool{}
		for _, fs := range fss.Items {
			n.flowSchemas[fs.UID] = fs.Name
			for _, cond := range fs.Status.Conditions {
				if cond.Type == flowcontrolv1.FlowSchemaConditionDangling && cond.Status == flowcontrolv1.ConditionFalse {
					found["fs/"+fs.Name] = true
				}
			}
		}
		for _, pl := range pls.Items {
			n.priorityLevels[pl.UID] = pl.Name
			found["pl/"+pl.Name] = true
		}
		for _, fs := range slices.Concat(bootstrap.MandatoryFlowSchemas, bootstrap.SuggestedFlowSchemas) {
			if !found["fs/"+fs.Name] {
				return false, nil
			}
		}
		for _, pl := range slices.Concat(bootstrap.MandatoryPriorityLevelConfigurations, bootstrap.SuggestedPriorityLevelConfigurations) {
			if !found["pl/"+pl.Name] {
				return false, nil
			}
		}
		return true, nil
	})
	return n
}

// classify sends GET path with cfg's credentials and returns the FlowSchema and the priority
// level the head's APF filter chose for it (named from the response headers) and the status
// code: a request is classified before it is authorized, so a 403 carries them too.
func classify(t *testing.T, cfg *rest.Config, path string, n names) (flowSchema, priorityLevel string, code int) {
	t.Helper()
	resp, _ := testchain.Request(t, cfg, http.MethodGet, path, nil, nil)
	fsUID := resp.Header.Get("X-Kubernetes-PF-FlowSchema-UID")
	plUID := resp.Header.Get("X-Kubernetes-PF-PriorityLevel-UID")
	if fsUID == "" || plUID == "" {
		t.Fatalf("GET %s: %d without the APF headers: %v", path, resp.StatusCode, resp.Header)
	}
	flowSchema, priorityLevel = n.flowSchemas[types.UID(fsUID)], n.priorityLevels[types.UID(plUID)]
	if flowSchema == "" || priorityLevel == "" {
		t.Fatalf("GET %s: the headers name no stored object: FlowSchema %s, priority level %s", path, fsUID, plUID)
	}
	return flowSchema, priorityLevel, resp.StatusCode
}

// grant creates a ClusterRole with rules and binds it to subject, both removed when the test
// ends. RBAC reads them through informers: callers wait for the grant to take effect.
func grant(t *testing.T, cs kubernetes.Interface, name string, subject rbacv1.Subject, rules ...rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{subject}}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{}) })
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{}) })
}
