package daemonset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestDaemonSets runs DaemonSets on a chain with three nodes (the host and two simulated), the
// DaemonSet controller, the scheduler, the kubelets and the garbage collector; each subtest in a
// namespace of its own.
func TestDaemonSets(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{controllers.DaemonSet, controllers.NodeLifecycle, controllers.Scheduler,
			controllers.SimulatedKubelet, controllers.NodeIPAM, controllers.GarbageCollector}
		o.Nodes = 2
	})
	cs, _ := testchain.Clients(t, c)
	testchain.Eventually(t, "three nodes", func(ctx context.Context) (bool, error) {
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		return err == nil && len(nodes.Items) == 3, err
	})
	run := func(name string, f func(t *testing.T, e *env)) {
		t.Run(name, func(t *testing.T) {
			ns := strings.ToLower(name)
			if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			f(t, &env{t: t, cs: cs, c: c, ns: ns})
		})
	}
	run("OnePodPerNode", onePodPerNode)
	run("SelectorAndTaints", selectorAndTaints)
	run("RollingUpdateWithKubectl", rollingUpdateWithKubectl)
	run("Surge", surge)
	run("OnDelete", onDelete)
}

// env is one subtest's namespace in the package's chain.
type env struct {
	t  *testing.T
	cs kubernetes.Interface
	c  *chain.Chain
	ns string
}

func daemonSet(name, image string) *appsv1.DaemonSet {
	labels := map[string]string{"app": name}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: image}}},
			},
		},
	}
}

func (e *env) create(ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	e.t.Helper()
	created, err := e.cs.AppsV1().DaemonSets(e.ns).Create(context.Background(), ds, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return created
}

func (e *env) patch(name, patch string) {
	e.t.Helper()
	if _, err := e.cs.AppsV1().DaemonSets(e.ns).Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) patchNode(name, patch string) {
	e.t.Helper()
	if _, err := e.cs.CoreV1().Nodes().Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// waitStatus waits until the DaemonSet's status, observed for its generation, satisfies ok.
func (e *env) waitStatus(name, what string, ok func(st appsv1.DaemonSetStatus) bool) *appsv1.DaemonSet {
	e.t.Helper()
	var ds *appsv1.DaemonSet
	testchain.Eventually(e.t, name+": "+what, func(ctx context.Context) (bool, error) {
		var err error
		ds, err = e.cs.AppsV1().DaemonSets(e.ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && ds.Status.ObservedGeneration == ds.Generation && ok(ds.Status), err
	})
	return ds
}

// waitRolledOut waits until every one of n nodes runs an available, updated pod.
func (e *env) waitRolledOut(name string, n int32) *appsv1.DaemonSet {
	e.t.Helper()
	return e.waitStatus(name, fmt.Sprintf("%d nodes rolled out", n), func(st appsv1.DaemonSetStatus) bool {
		return st.DesiredNumberScheduled == n && st.CurrentNumberScheduled == n && st.NumberReady == n && st.NumberAvailable == n &&
			st.UpdatedNumberScheduled == n && st.NumberUnavailable == 0 && st.NumberMisscheduled == 0
	})
}

func (e *env) pods(selector string) []corev1.Pod {
	e.t.Helper()
	list, err := e.cs.CoreV1().Pods(e.ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		e.t.Fatal(err)
	}
	slices.SortFunc(list.Items, func(a, b corev1.Pod) int { return strings.Compare(a.Spec.NodeName, b.Spec.NodeName) })
	return list.Items
}

func (e *env) nodeNames() []string {
	e.t.Helper()
	nodes, err := e.cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var names []string
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}

func (e *env) kubectl(want string, args ...string) {
	e.t.Helper()
	out, err := testchain.Kubectl(e.t, e.c, append([]string{"-n", e.ns}, args...)...)
	if err != nil || !strings.Contains(out, want) {
		e.t.Fatalf("kubectl %s: %v\n%s\nwant %q", strings.Join(args, " "), err, out, want)
	}
}

// onePodPerNode: a pod on each node, pinned there by node affinity, with the daemon
// tolerations and the revision's hash; a new node gets one, a deleted node loses it.
func onePodPerNode(t *testing.T, e *env) {
	ctx := context.Background()
	ds := e.create(daemonSet("agent", "fluentd:1"))
	e.waitRolledOut("agent", 3)
	revs, err := e.cs.AppsV1().ControllerRevisions(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(revs.Items) != 1 || !metav1.IsControlledBy(&revs.Items[0], ds) || revs.Items[0].Revision != 1 {
		t.Fatalf("revisions %+v, %v; want one, of the DaemonSet", revs, err)
	}
	hash := revs.Items[0].Labels[appsv1.ControllerRevisionHashLabelKey]
	if revs.Items[0].Name != "agent-"+hash {
		t.Errorf("revision %s, hash %q", revs.Items[0].Name, hash)
	}
	pods := e.pods("app=agent")
	var on []string
	for _, p := range pods {
		on = append(on, p.Spec.NodeName)
		terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if len(terms) != 1 || fmt.Sprint(terms[0].MatchFields) != fmt.Sprintf("[{metadata.name In [%s]}]", p.Spec.NodeName) {
			t.Errorf("pod %s on %s: node affinity %+v", p.Name, p.Spec.NodeName, terms)
		}
		if p.Labels[appsv1.ControllerRevisionHashLabelKey] != hash || p.Labels["pod-template-generation"] != "1" || !strings.HasPrefix(p.Name, "agent-") {
			t.Errorf("pod %s labels %v", p.Name, p.Labels)
		}
		tolerated := sets.New[string]()
		for _, tol := range p.Spec.Tolerations {
			tolerated.Insert(tol.Key + ":" + string(tol.Effect))
		}
		if want := sets.New("node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/disk-pressure:NoSchedule",
			"node.kubernetes.io/memory-pressure:NoSchedule", "node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"); !tolerated.Equal(want) {
			t.Errorf("pod %s tolerates %v, want %v", p.Name, sets.List(tolerated), sets.List(want))
		}
	}
	if !slices.Equal(on, e.nodeNames()) {
		t.Errorf("pods on %v, want one on each of %v", on, e.nodeNames())
	}

	// A new node (Ready, with no kubelet to run the pod): its pod is made and bound to it.
	node, err := e.cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "late-node"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Gone at the end even if this test fails, or the next ones would wait for a fourth node.
	t.Cleanup(func() { _ = e.cs.CoreV1().Nodes().Delete(context.Background(), "late-node", metav1.DeleteOptions{}) })
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	node.Status.Allocatable = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")}
	// A patch, not an update: the node-ipam and node-lifecycle controllers write the new node
	// too, and an update from the created copy would meet a conflict.
	status, err := json.Marshal(map[string]any{"status": node.Status})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.cs.CoreV1().Nodes().Patch(ctx, "late-node", types.StrategicMergePatchType, status, metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	testchain.Eventually(t, "a pod bound to the new node", func(ctx context.Context) (bool, error) {
		return slices.ContainsFunc(e.pods("app=agent"), func(p corev1.Pod) bool { return p.Spec.NodeName == "late-node" }), nil
	})
	e.waitStatus("agent", "four nodes", func(st appsv1.DaemonSetStatus) bool {
		return st.DesiredNumberScheduled == 4 && st.CurrentNumberScheduled == 4
	})
	if err := e.cs.CoreV1().Nodes().Delete(ctx, "late-node", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Deleted: with no kubelet there to finish it, it stays Terminating.
	testchain.Eventually(t, "the pod of the deleted node deleted", func(ctx context.Context) (bool, error) {
		return !slices.ContainsFunc(e.pods("app=agent"), func(p corev1.Pod) bool { return p.Spec.NodeName == "late-node" && p.DeletionTimestamp == nil }), nil
	})
	e.waitRolledOut("agent", 3)
}

// selectorAndTaints: a nodeSelector picks the node; a NoSchedule taint keeps new pods off it
// but lets the running one stay (misscheduled); a NoExecute taint, or a label gone, removes it.
func selectorAndTaints(t *testing.T, e *env) {
	node := "sim-node-1"
	ds := daemonSet("picky", "node-exporter:1")
	ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	e.create(ds)
	e.waitStatus("picky", "no node", func(st appsv1.DaemonSetStatus) bool { return st.DesiredNumberScheduled == 0 })
	t.Cleanup(func() { e.patchNode(node, `{"metadata":{"labels":{"disk":null}},"spec":{"taints":null}}`) })

	e.patchNode(node, `{"metadata":{"labels":{"disk":"ssd"}}}`)
	e.waitRolledOut("picky", 1)
	pods := e.pods("app=picky")
	if len(pods) != 1 || pods[0].Spec.NodeName != node {
		t.Fatalf("pods %v, want one on %s", pods, node)
	}

	e.patchNode(node, `{"spec":{"taints":[{"key":"dedicated","value":"infra","effect":"NoSchedule"}]}}`)
	e.waitStatus("picky", "misscheduled", func(st appsv1.DaemonSetStatus) bool {
		return st.DesiredNumberScheduled == 0 && st.NumberMisscheduled == 1
	})
	if now := e.pods("app=picky"); len(now) != 1 || now[0].UID != pods[0].UID || now[0].DeletionTimestamp != nil {
		t.Errorf("the pod on a node tainted NoSchedule since should stay: %v", now)
	}

	e.patchNode(node, `{"spec":{"taints":[{"key":"dedicated","value":"infra","effect":"NoExecute"}]}}`)
	testchain.Eventually(t, "the pod evicted by NoExecute", func(ctx context.Context) (bool, error) {
		return len(e.pods("app=picky")) == 0, nil
	})

	e.patchNode(node, `{"spec":{"taints":null}}`)
	e.waitRolledOut("picky", 1)
	e.patchNode(node, `{"metadata":{"labels":{"disk":null}}}`)
	testchain.Eventually(t, "the pod gone with the label", func(ctx context.Context) (bool, error) {
		return len(e.pods("app=picky")) == 0, nil
	})
}

// watchAvailable follows the DaemonSet's pods and reports the fewest nodes that had a ready pod
// at any moment, once it is stopped. It starts from what the nodes have now.
func (e *env) watchAvailable(selector string) (stop func() int) {
	e.t.Helper()
	list, err := e.cs.CoreV1().Pods(e.ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		e.t.Fatal(err)
	}
	w, err := e.cs.CoreV1().Pods(e.ns).Watch(context.Background(), metav1.ListOptions{LabelSelector: selector, ResourceVersion: list.ResourceVersion})
	if err != nil {
		e.t.Fatal(err)
	}
	ready := map[string]string{} // pod → node, for ready pods not being deleted
	see := func(p *corev1.Pod, gone bool) {
		delete(ready, p.Name)
		if !gone && p.DeletionTimestamp == nil && slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool {
			return c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
		}) {
			ready[p.Name] = p.Spec.NodeName
		}
	}
	nodes := func() int { return sets.New(slices.Collect(maps.Values(ready))...).Len() }
	for i := range list.Items {
		see(&list.Items[i], false)
	}
	fewest := nodes()
	done := make(chan int)
	go func() {
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok {
				see(p, ev.Type == watch.Deleted)
				fewest = min(fewest, nodes())
			}
		}
		done <- fewest
	}()
	return func() int {
		w.Stop()
		return <-done
	}
}

func images(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Spec.Containers[0].Image)
	}
	return out
}

// rollingUpdateWithKubectl: kubectl set image rolls the pods one node at a time (never two
// nodes without an available pod); kubectl rollout status, history and undo work.
func rollingUpdateWithKubectl(t *testing.T, e *env) {
	e.create(daemonSet("logs", "busybox:1.36"))
	e.kubectl(`daemon set "logs" successfully rolled out`, "rollout", "status", "daemonset/logs", "--timeout=2m")
	e.waitRolledOut("logs", 3)

	fewest := e.watchAvailable("app=logs")
	e.kubectl("daemonset.apps/logs image updated", "set", "image", "daemonset/logs", "agent=busybox:1.37")
	e.kubectl(`daemon set "logs" successfully rolled out`, "rollout", "status", "daemonset/logs", "--timeout=2m")
	e.waitRolledOut("logs", 3)
	if n := fewest(); n < 2 {
		t.Errorf("at one point only %d nodes had an available pod; maxUnavailable 1 allows 2", n)
	}
	if got := images(e.pods("app=logs")); !slices.Equal(got, []string{"busybox:1.37", "busybox:1.37", "busybox:1.37"}) {
		t.Errorf("images %v", got)
	}
	e.kubectl("REVISION  CHANGE-CAUSE\n1         <none>\n2         <none>", "rollout", "history", "daemonset/logs")

	e.kubectl("daemonset.apps/logs rolled back", "rollout", "undo", "daemonset/logs")
	e.kubectl(`daemon set "logs" successfully rolled out`, "rollout", "status", "daemonset/logs", "--timeout=2m")
	e.waitRolledOut("logs", 3)
	if got := images(e.pods("app=logs")); !slices.Equal(got, []string{"busybox:1.36", "busybox:1.36", "busybox:1.36"}) {
		t.Errorf("images after the undo %v", got)
	}
	e.kubectl("REVISION  CHANGE-CAUSE\n2         <none>\n3         <none>", "rollout", "history", "daemonset/logs")
}

// surge: with maxSurge 1 and maxUnavailable 0, every node keeps an available pod throughout:
// the new one starts beside the old, which goes once the new one is available.
func surge(t *testing.T, e *env) {
	ds := daemonSet("proxy", "envoy:1.30")
	ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
	e.create(ds)
	e.waitRolledOut("proxy", 3)
	fewest := e.watchAvailable("app=proxy")
	e.patch("proxy", `{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"envoy:1.31"}]}}}}`)
	e.waitRolledOut("proxy", 3)
	testchain.Eventually(t, "the old pods gone", func(ctx context.Context) (bool, error) {
		return len(e.pods("app=proxy")) == 3, nil
	})
	if n := fewest(); n < 3 {
		t.Errorf("at one point only %d nodes had an available pod; maxUnavailable 0 allows none missing", n)
	}
	if got := images(e.pods("app=proxy")); !slices.Equal(got, []string{"envoy:1.31", "envoy:1.31", "envoy:1.31"}) {
		t.Errorf("images %v", got)
	}
}

// onDelete: a new template changes no pod until one is deleted; that one comes back updated.
func onDelete(t *testing.T, e *env) {
	ds := daemonSet("manual", "haproxy:2")
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	e.create(ds)
	e.waitRolledOut("manual", 3)
	before := e.pods("app=manual")
	e.patch("manual", `{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"haproxy:3"}]}}}}`)
	// The status comes after the sync's pod writes: had it deleted a pod, it would show.
	e.waitStatus("manual", "no pod updated", func(st appsv1.DaemonSetStatus) bool { return st.UpdatedNumberScheduled == 0 })
	if got := e.pods("app=manual"); len(got) != 3 || slices.ContainsFunc(got, func(p corev1.Pod) bool { return p.DeletionTimestamp != nil }) {
		t.Fatalf("OnDelete touched pods: %v", got)
	}
	victim := before[0]
	if err := e.cs.CoreV1().Pods(e.ns).Delete(context.Background(), victim.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	e.waitStatus("manual", "one pod updated", func(st appsv1.DaemonSetStatus) bool {
		return st.UpdatedNumberScheduled == 1 && st.NumberAvailable == 3
	})
	got := e.pods("app=manual")
	want := []string{"haproxy:2", "haproxy:2", "haproxy:2"}
	want[slices.IndexFunc(got, func(p corev1.Pod) bool { return p.Spec.NodeName == victim.Spec.NodeName })] = "haproxy:3"
	if !slices.Equal(images(got), want) {
		t.Errorf("images %v on %v, want only %s's updated", images(got), e.nodeNames(), victim.Spec.NodeName)
	}
}
