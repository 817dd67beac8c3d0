package deployment_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/internal/testchain"
	"github.com/apichain/apichain/servers/chain"
)

// TestDeploymentRunsScalesAndRollsOut: `kubectl create deployment web --image=nginx
// --replicas=3` ends in three Running pods through a ReplicaSet; scaling changes the pods;
// a new image rolls out through a second ReplicaSet (revision 2) while the first goes to zero;
// the Recreate strategy replaces every pod; deleting the Deployment in the foreground takes its
// ReplicaSets and pods with it, before it goes.
func TestDeploymentRunsScalesAndRollsOut(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{controllers.Deployment, controllers.ReplicaSet, controllers.NodeLifecycle, controllers.Scheduler, controllers.SimulatedKubelet, controllers.GarbageCollector}
		o.Nodes = 2
	})
	cs, _ := testchain.Clients(t, c)
	ctx := context.Background()
	requireGroup(t, cs, "apps/v1")
	deployments := cs.AppsV1().Deployments("default")

	// What kubectl create deployment web --image=nginx --replicas=3 sends.
	created, err := deployments.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := waitComplete(t, cs, "web", 3)
	if d.Annotations["deployment.kubernetes.io/revision"] != "1" {
		t.Errorf("deployment annotations %v", d.Annotations)
	}
	checkConditions(t, d, "NewReplicaSetAvailable")

	rs := replicaSets(t, cs, "web")
	if len(rs) != 1 {
		t.Fatalf("%d ReplicaSets, want 1", len(rs))
	}
	first := rs[0]
	hash := first.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	if first.Name != "web-"+hash || hash == "" || first.Spec.Selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] != hash {
		t.Errorf("ReplicaSet %s, labels %v, selector %v", first.Name, first.Labels, first.Spec.Selector)
	}
	if got := first.Annotations; got["deployment.kubernetes.io/revision"] != "1" || got["deployment.kubernetes.io/desired-replicas"] != "3" || got["deployment.kubernetes.io/max-replicas"] != "4" {
		t.Errorf("ReplicaSet annotations %v", got)
	}
	checkController(t, first.OwnerReferences, "Deployment", "web", created.UID)
	checkPods(t, cs, first, 3, "nginx")

	// Scale up, then down.
	for _, n := range []int32{5, 2} {
		scale, err := deployments.GetScale(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		scale.Spec.Replicas = n
		if _, err := deployments.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitComplete(t, cs, "web", n)
		checkPods(t, cs, first, n, "nginx")
	}

	// A new image: a new ReplicaSet takes over, the old one goes to zero and stays (history).
	if _, err := deployments.Patch(ctx, "web", types.StrategicMergePatchType,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	d = waitComplete(t, cs, "web", 2)
	if d.Annotations["deployment.kubernetes.io/revision"] != "2" {
		t.Errorf("revision after the rollout: %v", d.Annotations)
	}
	rs = replicaSets(t, cs, "web")
	if len(rs) != 2 {
		t.Fatalf("%d ReplicaSets after the rollout, want 2", len(rs))
	}
	for _, r := range rs {
		switch r.UID {
		case first.UID:
			if *r.Spec.Replicas != 0 || r.Annotations["deployment.kubernetes.io/revision"] != "1" {
				t.Errorf("old ReplicaSet: replicas %d, annotations %v", *r.Spec.Replicas, r.Annotations)
			}
		default:
			if *r.Spec.Replicas != 2 || r.Annotations["deployment.kubernetes.io/revision"] != "2" {
				t.Errorf("new ReplicaSet: replicas %d, annotations %v", *r.Spec.Replicas, r.Annotations)
			}
			checkPods(t, cs, r, 2, "nginx:1.27")
		}
	}

	// Recreate: every old pod goes, then the new ones come.
	if _, err := deployments.Patch(ctx, "web", types.StrategicMergePatchType,
		[]byte(`{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null},"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	d = waitComplete(t, cs, "web", 2)
	if d.Annotations["deployment.kubernetes.io/revision"] != "3" {
		t.Errorf("revision after the Recreate rollout: %v", d.Annotations)
	}
	for _, r := range replicaSets(t, cs, "web") {
		if r.Annotations["deployment.kubernetes.io/revision"] == "3" {
			checkPods(t, cs, r, 2, "nginx:1.28")
		} else if *r.Spec.Replicas != 0 {
			t.Errorf("old ReplicaSet %s has %d replicas", r.Name, *r.Spec.Replicas)
		}
	}

	if err := deployments.Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := deployments.Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatal("the deployment was never deleted")
	}
	if rs := replicaSets(t, cs, "web"); len(rs) != 0 {
		t.Errorf("%d ReplicaSets left after their Deployment", len(rs))
	}
	if pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"}); err != nil || len(pods.Items) != 0 {
		t.Errorf("pods left after their Deployment: %v %d", err, len(pods.Items))
	}
}

// waitComplete waits until the deployment has rolled out n available replicas, and returns it.
func waitComplete(t *testing.T, cs kubernetes.Interface, name string, n int32) *appsv1.Deployment {
	t.Helper()
	var d *appsv1.Deployment
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		d, err = cs.AppsV1().Deployments("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := d.Status
		return st.ObservedGeneration == d.Generation && *d.Spec.Replicas == n && st.Replicas == n && st.UpdatedReplicas == n &&
			st.ReadyReplicas == n && st.AvailableReplicas == n && st.UnavailableReplicas == 0 &&
			ptr.Deref(st.TerminatingReplicas, 0) == 0 && progressReason(d) == "NewReplicaSetAvailable", nil
	})
	if err != nil {
		t.Fatalf("deployment %s never rolled out %d replicas: %+v", name, n, d.Status)
	}
	return d
}

func progressReason(d *appsv1.Deployment) string {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionTrue {
			return c.Reason
		}
	}
	return ""
}

// checkConditions checks a rolled-out deployment's conditions, as kube reports them.
func checkConditions(t *testing.T, d *appsv1.Deployment, progressing string) {
	t.Helper()
	want := map[appsv1.DeploymentConditionType]string{
		appsv1.DeploymentAvailable:   "True/MinimumReplicasAvailable/Deployment has minimum availability.",
		appsv1.DeploymentProgressing: fmt.Sprintf("True/%s/ReplicaSet %q has successfully progressed.", progressing, replicaSetName(d)),
	}
	if len(d.Status.Conditions) != len(want) {
		t.Errorf("conditions %+v", d.Status.Conditions)
	}
	for _, c := range d.Status.Conditions {
		if got := fmt.Sprintf("%s/%s/%s", c.Status, c.Reason, c.Message); got != want[c.Type] {
			t.Errorf("condition %s: %s, want %s", c.Type, got, want[c.Type])
		}
	}
}

func replicaSetName(d *appsv1.Deployment) string {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing {
			if _, rest, ok := strings.Cut(c.Message, `ReplicaSet "`); ok {
				name, _, _ := strings.Cut(rest, `"`)
				return name
			}
		}
	}
	return ""
}

func replicaSets(t *testing.T, cs kubernetes.Interface, deployment string) []appsv1.ReplicaSet {
	t.Helper()
	list, err := cs.AppsV1().ReplicaSets("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + deployment})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// checkPods waits until rs has exactly n pods, Running, ready, with image, named
// <replicaset>-<5 characters> and controlled by rs.
func checkPods(t *testing.T, cs kubernetes.Interface, rs appsv1.ReplicaSet, n int32, image string) {
	t.Helper()
	var pods []corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{
			LabelSelector: appsv1.DefaultDeploymentUniqueLabelKey + "=" + rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]})
		if err != nil {
			return false, err
		}
		pods = list.Items
		if int32(len(pods)) != n {
			return false, nil
		}
		for _, p := range pods {
			if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil || p.Spec.Containers[0].Image != image {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("pods of %s: want %d Running with %s, have %d", rs.Name, n, image, len(pods))
	}
	for _, p := range pods {
		suffix, ok := strings.CutPrefix(p.Name, rs.Name+"-")
		if !ok || len(suffix) != 5 || p.Spec.NodeName == "" {
			t.Errorf("pod %s (node %q) of ReplicaSet %s", p.Name, p.Spec.NodeName, rs.Name)
		}
		checkController(t, p.OwnerReferences, "ReplicaSet", rs.Name, rs.UID)
	}
}

func checkController(t *testing.T, refs []metav1.OwnerReference, kind, name string, uid types.UID) {
	t.Helper()
	if len(refs) != 1 {
		t.Fatalf("ownerReferences %+v", refs)
	}
	r := refs[0]
	if r.APIVersion != "apps/v1" || r.Kind != kind || r.Name != name || r.UID != uid || !ptr.Deref(r.Controller, false) || !ptr.Deref(r.BlockOwnerDeletion, false) {
		t.Errorf("ownerReference %+v, want the controller %s %s", r, kind, name)
	}
}

// requireGroup skips the test while the chain does not serve gv.
func requireGroup(t *testing.T, cs kubernetes.Interface, gv string) {
	t.Helper()
	if _, err := cs.Discovery().ServerResourcesForGroupVersion(gv); apierrors.IsNotFound(err) {
		t.Skipf("the chain does not serve %s yet", gv)
	} else if err != nil {
		t.Fatal(err)
	}
}
