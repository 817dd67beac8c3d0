package deployment_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestDeployments runs Deployments on a chain with the controllers a Deployment needs: its own,
// the ReplicaSet controller, the scheduler and two simulated nodes whose kubelets run the pods,
// and the garbage collector. Each subtest works in a namespace of its own.
func TestDeployments(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{controllers.Deployment, controllers.ReplicaSet, controllers.NodeLifecycle, controllers.Scheduler, controllers.SimulatedKubelet, controllers.NodeIPAM, controllers.GarbageCollector}
		o.Nodes = 2
	})
	cs, _ := testchain.Clients(t, c)
	ns := func(t *testing.T, name string) *env { return newEnv(t, cs, c.KubeconfigPath, name) }

	t.Run("ScaleRollOutRecreateDelete", func(t *testing.T) { scaleRollOutRecreateDelete(t, ns(t, "basics")) })
	t.Run("RollingUpdateStaysWithinLimits", func(t *testing.T) { rollingUpdateStaysWithinLimits(t, ns(t, "rolling")) })
	t.Run("RecreateStopsOldPodsFirst", func(t *testing.T) { recreateStopsOldPodsFirst(t, ns(t, "recreate")) })
	t.Run("KubectlHistoryUndoPauseResume", func(t *testing.T) { kubectlHistoryUndoPauseResume(t, ns(t, "undo")) })
	t.Run("ProgressDeadlineExceeded", func(t *testing.T) { progressDeadlineExceeded(t, ns(t, "stuck")) })
	t.Run("ReplicaFailure", func(t *testing.T) { replicaFailure(t, ns(t, "refused")) })
}

// scaleRollOutRecreateDelete: `kubectl create deployment web --image=nginx --replicas=3` ends
// in three Running pods through a ReplicaSet; scaling changes the pods; a new image rolls out
// through a second ReplicaSet (revision 2) while the first goes to zero; the Recreate strategy
// replaces every pod; deleting the Deployment in the foreground takes its ReplicaSets and pods
// with it, before it goes.
func scaleRollOutRecreateDelete(t *testing.T, e *env) {
	ctx := context.Background()
	deployments := e.cs.AppsV1().Deployments(e.ns)
	created := e.create(deployment("web", "nginx", 3))
	d := e.waitComplete("web", 3)
	if d.Annotations["deployment.kubernetes.io/revision"] != "1" {
		t.Errorf("deployment annotations %v", d.Annotations)
	}
	rs := e.replicaSets("web")
	if len(rs) != 1 {
		t.Fatalf("%d ReplicaSets, want 1", len(rs))
	}
	first := rs[0]
	want := map[appsv1.DeploymentConditionType]string{
		appsv1.DeploymentAvailable:   "True/MinimumReplicasAvailable/Deployment has minimum availability.",
		appsv1.DeploymentProgressing: fmt.Sprintf("True/NewReplicaSetAvailable/ReplicaSet %q has successfully progressed.", first.Name),
	}
	if len(d.Status.Conditions) != len(want) || d.Status.Conditions[0].Type != appsv1.DeploymentAvailable {
		t.Errorf("conditions %+v, want Available then Progressing", d.Status.Conditions)
	}
	for typ, w := range want {
		if got := condition(d, typ); got != w {
			t.Errorf("condition %s: %s, want %s", typ, got, w)
		}
	}
	hash := first.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	if first.Name != "web-"+hash || hash == "" || first.Spec.Selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] != hash ||
		first.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != hash {
		t.Errorf("ReplicaSet %s, labels %v, selector %v", first.Name, first.Labels, first.Spec.Selector)
	}
	if got := first.Annotations; got["deployment.kubernetes.io/revision"] != "1" || got["deployment.kubernetes.io/desired-replicas"] != "3" || got["deployment.kubernetes.io/max-replicas"] != "4" {
		t.Errorf("ReplicaSet annotations %v", got)
	}
	checkController(t, first.OwnerReferences, "Deployment", "web", created.UID)
	e.checkPods(first, 3, "nginx")

	// Scale up, then down, through the scale subresource.
	for _, n := range []int32{5, 2} {
		scale, err := deployments.GetScale(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		scale.Spec.Replicas = n
		if _, err := deployments.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		e.waitComplete("web", n)
		e.checkPods(first, n, "nginx")
	}

	// A new image: a new ReplicaSet takes over, the old one goes to zero and stays (history).
	e.patch("web", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}`)
	d = e.waitComplete("web", 2)
	if d.Annotations["deployment.kubernetes.io/revision"] != "2" {
		t.Errorf("revision after the rollout: %v", d.Annotations)
	}
	if rs := e.replicaSets("web"); len(rs) != 2 {
		t.Fatalf("%d ReplicaSets after the rollout, want 2", len(rs))
	}
	if old := e.byRevision("web", "1"); old.UID != first.UID || *old.Spec.Replicas != 0 {
		t.Errorf("old ReplicaSet %s: replicas %d", old.Name, *old.Spec.Replicas)
	}
	e.checkPods(e.byRevision("web", "2"), 2, "nginx:1.27")

	// Recreate: every old pod goes, then the new ones come.
	e.patch("web", `{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null},"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`)
	d = e.waitComplete("web", 2)
	if d.Annotations["deployment.kubernetes.io/revision"] != "3" || condition(d, appsv1.DeploymentAvailable) != "True/MinimumReplicasAvailable/Deployment has minimum availability." {
		t.Errorf("after the Recreate rollout: annotations %v, conditions %+v", d.Annotations, d.Status.Conditions)
	}
	for _, r := range e.replicaSets("web") {
		if r.Annotations["deployment.kubernetes.io/revision"] == "3" {
			e.checkPods(r, 2, "nginx:1.28")
		} else if *r.Spec.Replicas != 0 {
			t.Errorf("old ReplicaSet %s has %d replicas", r.Name, *r.Spec.Replicas)
		}
	}

	// revisionHistoryLimit 1: only the newest old ReplicaSet stays.
	e.patch("web", `{"spec":{"revisionHistoryLimit":1}}`)
	e.poll("old ReplicaSets pruned to one", func(ctx context.Context) (bool, error) {
		return len(e.replicaSets("web")) == 2, nil
	})
	if old := e.byRevision("web", "2"); *old.Spec.Replicas != 0 {
		t.Errorf("the ReplicaSet kept is %s", old.Name)
	}

	if err := deployments.Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
		t.Fatal(err)
	}
	e.poll("the deployment deleted", func(ctx context.Context) (bool, error) {
		_, err := deployments.Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if rs := e.replicaSets("web"); len(rs) != 0 {
		t.Errorf("%d ReplicaSets left after their Deployment", len(rs))
	}
	if pods, err := e.cs.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"}); err != nil || len(pods.Items) != 0 {
		t.Errorf("pods left after their Deployment: %v %d", err, len(pods.Items))
	}
}

// rollingUpdateStaysWithinLimits watches every change of the ReplicaSets while a new image rolls
// out with maxSurge 1 and maxUnavailable 1 over 6 replicas: at no point do they ask for more than
// 7 pods, or keep fewer than 5 available; both run pods at once on the way; the old one ends at
// zero.
func rollingUpdateStaysWithinLimits(t *testing.T, e *env) {
	d := deployment("web", "nginx:1.26", 6)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
		MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}}
	e.create(d)
	e.waitComplete("web", 6)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	list, err := e.cs.AppsV1().ReplicaSets(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := e.cs.AppsV1().ReplicaSets(e.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	sets := map[types.UID]*appsv1.ReplicaSet{}
	for i := range list.Items {
		sets[list.Items[i].UID] = &list.Items[i]
	}
	e.patch("web", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}`)

	overlapped := false
	for ev := range w.ResultChan() {
		rs, ok := ev.Object.(*appsv1.ReplicaSet)
		if !ok {
			t.Fatalf("watch: %v", ev.Object)
		}
		if ev.Type == watch.Deleted {
			delete(sets, rs.UID)
		} else {
			sets[rs.UID] = rs
		}
		var asked, available, running int32
		var newRS, oldRS *appsv1.ReplicaSet
		for _, s := range sets {
			asked += *s.Spec.Replicas
			available += min(*s.Spec.Replicas, s.Status.AvailableReplicas)
			if *s.Spec.Replicas > 0 {
				running++
			}
			if s.Spec.Template.Spec.Containers[0].Image == "nginx:1.27" {
				newRS = s
			} else {
				oldRS = s
			}
		}
		if asked > 7 || available < 5 {
			t.Fatalf("the ReplicaSets ask for %d pods (at most 7) and keep %d available (at least 5)", asked, available)
		}
		overlapped = overlapped || running == 2
		if newRS != nil && oldRS != nil && *newRS.Spec.Replicas == 6 && newRS.Status.AvailableReplicas == 6 &&
			*oldRS.Spec.Replicas == 0 && oldRS.Status.Replicas == 0 {
			break
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("the rollout did not end: %v", ctx.Err())
	}
	if !overlapped {
		t.Error("the old and new ReplicaSets never ran pods at the same time: that was no rolling update")
	}
	e.waitComplete("web", 6)
	e.checkPods(e.byRevision("web", "2"), 6, "nginx:1.27")
}

// recreateStopsOldPodsFirst watches the pods while a Recreate rollout replaces them: no pod of
// the new template is created while one of the old template is left.
func recreateStopsOldPodsFirst(t *testing.T, e *env) {
	d := deployment("web", "nginx:1.26", 3)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	e.create(d)
	e.waitComplete("web", 3)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	list, err := e.cs.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := e.cs.CoreV1().Pods(e.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	old := map[types.UID]bool{}
	for _, p := range list.Items {
		old[p.UID] = true
	}
	e.patch("web", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}`)
	newPods := map[types.UID]bool{}
	for ev := range w.ResultChan() {
		p, ok := ev.Object.(*corev1.Pod)
		if !ok {
			t.Fatalf("watch: %v", ev.Object)
		}
		switch {
		case ev.Type == watch.Deleted:
			delete(old, p.UID)
		case ev.Type == watch.Added && p.Spec.Containers[0].Image == "nginx:1.27":
			if len(old) > 0 {
				t.Fatalf("new pod %s created while %d old ones are left", p.Name, len(old))
			}
			newPods[p.UID] = true
		}
		if len(newPods) == 3 {
			break
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("the rollout did not end: %v", ctx.Err())
	}
	e.waitComplete("web", 3)
}

// kubectlHistoryUndoPauseResume drives a Deployment as its user would, with kubectl rollout.
func kubectlHistoryUndoPauseResume(t *testing.T, e *env) {
	e.mustKubectl("deployment.apps/web created", "create", "deployment", "web", "--image=nginx:1.26", "--replicas=2")
	e.mustKubectl(`deployment "web" successfully rolled out`, "rollout", "status", "deployment/web", "--timeout=2m")
	e.mustKubectl("image updated", "set", "image", "deployment/web", "nginx=nginx:1.27")
	e.mustKubectl("annotated", "annotate", "deployment/web", "kubernetes.io/change-cause=nginx to 1.27")
	e.mustKubectl(`deployment "web" successfully rolled out`, "rollout", "status", "deployment/web", "--timeout=2m")
	history := e.mustKubectl("REVISION", "rollout", "history", "deployment/web")
	if !regexp.MustCompile(`(?m)^1\s+<none>\s*$`).MatchString(history) || !regexp.MustCompile(`(?m)^2\s+nginx to 1.27\s*$`).MatchString(history) {
		t.Errorf("rollout history:\n%s", history)
	}

	// Undo: the first template comes back, in its own ReplicaSet, as revision 3.
	first := e.byRevision("web", "1")
	e.mustKubectl("rolled back", "rollout", "undo", "deployment/web")
	e.mustKubectl(`deployment "web" successfully rolled out`, "rollout", "status", "deployment/web", "--timeout=2m")
	back := e.byRevision("web", "3")
	if back.UID != first.UID || back.Annotations["deployment.kubernetes.io/revision-history"] != "1" {
		t.Errorf("revision 3 is %s (history %q), want %s, once revision 1", back.Name, back.Annotations["deployment.kubernetes.io/revision-history"], first.Name)
	}
	e.checkPods(back, 2, "nginx:1.26")
	history = e.mustKubectl("REVISION", "rollout", "history", "deployment/web")
	if regexp.MustCompile(`(?m)^1\s`).MatchString(history) || !regexp.MustCompile(`(?m)^2\s`).MatchString(history) || !regexp.MustCompile(`(?m)^3\s`).MatchString(history) {
		t.Errorf("rollout history after the undo, want revisions 2 and 3:\n%s", history)
	}

	// Paused: a new image starts nothing, a new scale does reach the pods.
	e.mustKubectl("paused", "rollout", "pause", "deployment/web")
	e.mustKubectl("image updated", "set", "image", "deployment/web", "nginx=nginx:1.28")
	e.mustKubectl("scaled", "scale", "deployment/web", "--replicas=3")
	e.poll("the paused deployment scaled", func(ctx context.Context) (bool, error) {
		d, err := e.cs.AppsV1().Deployments(e.ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == 3 &&
			condition(d, appsv1.DeploymentProgressing) == "Unknown/DeploymentPaused/Deployment is paused", err
	})
	e.checkPods(back, 3, "nginx:1.26")
	if n := len(e.replicaSets("web")); n != 2 {
		t.Errorf("%d ReplicaSets while paused, want 2: the new image must wait", n)
	}
	e.mustKubectl("resumed", "rollout", "resume", "deployment/web")
	e.mustKubectl(`deployment "web" successfully rolled out`, "rollout", "status", "deployment/web", "--timeout=2m")
	e.checkPods(e.byRevision("web", "4"), 3, "nginx:1.28")
}

// progressDeadlineExceeded: a template whose pods never become ready stalls the rollout (the old
// pods stay: maxUnavailable 0); after progressDeadlineSeconds the Deployment says so, and
// kubectl rollout status fails.
func progressDeadlineExceeded(t *testing.T, e *env) {
	d := deployment("web", "nginx:1.26", 2)
	d.Spec.ProgressDeadlineSeconds = ptr.To[int32](3)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
		MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}}
	e.create(d)
	e.waitComplete("web", 2)
	// A readiness gate nobody sets: the pods run, but never become ready.
	e.patch("web", `{"spec":{"template":{"spec":{"readinessGates":[{"conditionType":"example.com/never"}]}}}}`)
	var got *appsv1.Deployment
	e.poll("the progress deadline exceeded", func(ctx context.Context) (bool, error) {
		var err error
		got, err = e.cs.AppsV1().Deployments(e.ns).Get(ctx, "web", metav1.GetOptions{})
		// Timed out, with the one new pod counted (the deadline may pass once before, on a busy
		// machine, and the count is progress again).
		return err == nil && strings.HasPrefix(condition(got, appsv1.DeploymentProgressing), "False/ProgressDeadlineExceeded/") &&
			got.Status.UpdatedReplicas == 1, err
	})
	stuck := e.byRevision("web", "2")
	if want := fmt.Sprintf("False/ProgressDeadlineExceeded/ReplicaSet %q has timed out progressing.", stuck.Name); condition(got, appsv1.DeploymentProgressing) != want {
		t.Errorf("Progressing %s, want %s", condition(got, appsv1.DeploymentProgressing), want)
	}
	if st := got.Status; st.AvailableReplicas != 2 || st.UpdatedReplicas != 1 || st.Replicas != 3 ||
		condition(got, appsv1.DeploymentAvailable) != "True/MinimumReplicasAvailable/Deployment has minimum availability." {
		t.Errorf("status of the stalled rollout: %+v", st)
	}
	if old := e.byRevision("web", "1"); *old.Spec.Replicas != 2 {
		t.Errorf("the old ReplicaSet went to %d replicas with no new pod available", *old.Spec.Replicas)
	}
	out, err := e.kubectl("rollout", "status", "deployment/web", "--timeout=1m")
	if err == nil || !strings.Contains(out, `deployment "web" exceeded its progress deadline`) {
		t.Errorf("kubectl rollout status: %v\n%s", err, out)
	}
}

// replicaFailure: when its ReplicaSet cannot create pods (the Priority admission plugin refuses
// a class that does not exist), the Deployment says why.
func replicaFailure(t *testing.T, e *env) {
	d := deployment("web", "nginx", 1)
	d.Spec.Template.Spec.PriorityClassName = "missing"
	e.create(d)
	e.poll("the ReplicaFailure condition", func(ctx context.Context) (bool, error) {
		d, err := e.cs.AppsV1().Deployments(e.ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && strings.HasPrefix(condition(d, appsv1.DeploymentReplicaFailure), "True/FailedCreate/") &&
			strings.Contains(condition(d, appsv1.DeploymentReplicaFailure), "no PriorityClass with name missing was found"), err
	})
}
