package flowcontrol_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestControllersClassifiedAsInACluster: the chain's controllers do not send their requests as
// the loopback client (system:masters, exempt), but as the components of a cluster would, so
// that the head's APF filter puts them where kube-apiserver puts kube-controller-manager's
// controllers (--use-service-account-credentials), kube-scheduler and the kubelets. A Deployment
// rolled out on a chain of its own, with only the bootstrap RBAC, shows both: the rollout works,
// and the requests it takes are dispatched under the FlowSchemas of those identities
// (apiserver_flowcontrol_dispatched_requests_total, read from /metrics before and after).
//
// The counter is the process's, shared with the package's other chains; those run no
// controllers, and the tests that send requests under these FlowSchemas themselves
// (TestClassification) do not run at the same time (this test is not parallel).
func TestControllersClassifiedAsInACluster(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{controllers.Deployment, controllers.ReplicaSet, controllers.ServiceAccount,
			controllers.NodeLifecycle, controllers.NodeIPAM, controllers.Scheduler, controllers.SimulatedKubelet}
		o.Nodes = 1
	})
	waitDigested(t, c)
	cs, _ := testchain.Clients(t, c)
	ctx := context.Background()

	// Who should be counted where, as kube-apiserver's bootstrap FlowSchemas say.
	type flow struct{ flowSchema, priorityLevel, who string }
	flows := []flow{
		{"kube-system-service-accounts", "workload-high", "the controllers, as their service accounts in kube-system"},
		{"kube-scheduler", "workload-high", "the scheduler, as system:kube-scheduler"},
		{"system-nodes", "system", "the kubelets (their pods), as system:node:<name>"},
	}
	before := dispatched(t, c)

	ns := testchain.Namespace(t, c)
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](2),
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}},
	}}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testchain.Eventually(t, "the Deployment rolled out: 2 pods scheduled and Running", func(ctx context.Context) (bool, error) {
		got, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil || got.Status.AvailableReplicas != 2 {
			return false, err
		}
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		running := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		return running == 2, nil
	})

	after := dispatched(t, c)
	for _, f := range flows {
		key := f.flowSchema + "/" + f.priorityLevel
		if after[key] <= before[key] {
			t.Errorf("%s: no request dispatched under FlowSchema %s, priority level %s during the rollout (%v before, %v after)",
				f.who, f.flowSchema, f.priorityLevel, before[key], after[key])
		}
	}

	// The controller manager made its controllers' service accounts, as
	// kube-controller-manager does, and asked for their tokens (system:kube-controller-manager
	// may, by the bootstrap policy).
	for _, name := range []string{"deployment-controller", "replicaset-controller", "service-account-controller", "node-controller"} {
		if _, err := cs.CoreV1().ServiceAccounts(metav1.NamespaceSystem).Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("service account kube-system/%s: %v", name, err)
		}
	}
}

// dispatched reads apiserver_flowcontrol_dispatched_requests_total from c's /metrics, by
// "<flow_schema>/<priority_level>".
func dispatched(t *testing.T, c *chain.Chain) map[string]float64 {
	t.Helper()
	families := testchain.Metrics(t, c)
	counts := map[string]float64{}
	f := families["apiserver_flowcontrol_dispatched_requests_total"]
	if f == nil {
		return counts
	}
	for _, m := range f.Metric {
		var fs, pl string
		for _, l := range m.Label {
			switch l.GetName() {
			case "flow_schema":
				fs = l.GetValue()
			case "priority_level":
				pl = l.GetValue()
			}
		}
		counts[fs+"/"+pl] += m.GetCounter().GetValue()
	}
	return counts
}
