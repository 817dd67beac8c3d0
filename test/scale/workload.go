package scale

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/test/anchor"
)

const (
	// namespace holds the workload's pods; deployNamespace the Deployment's.
	namespace       = "scale"
	deployNamespace = "scale-deploy"
	// benchLabel marks the workload's nodes and pods, so that its informers see only them (not
	// the chain's host node, not the Deployment's pods).
	benchLabel = "scale.apichain.io/bench"
	// kwokAnnotation is what kwok selects the nodes it runs by, as kwokctl starts it; the
	// chain's simulated kubelets run such nodes too.
	kwokAnnotation = "kwok.x-k8s.io/node"
	image          = "registry.k8s.io/pause:3.10"
)

// Workload is what the benchmark does to a server, the same on either side.
type Workload struct {
	// Nodes and Pods are how many of each the client creates; the pods go to the nodes
	// round-robin through spec.nodeName (no scheduler involved), Parallel creates at a time.
	Nodes, Pods, Parallel int
	// Idle is how long the server is left alone once every pod runs, for its idle CPU.
	Idle time.Duration
	// Kubeconfig, if set, is given to kubectl to time `kubectl top node` and `kubectl top pod
	// -A` (the server needs the metrics API).
	Kubeconfig string
	// Replicas, if set, is a Deployment of that many replicas timed until rolled out (the
	// server needs a deployment controller and a scheduler).
	Replicas int
	// DeleteNamespace times the deletion of the namespace holding the pods, last (the server
	// needs a namespace controller).
	DeleteNamespace bool
	// ServiceAccounts waits for the namespaces' default ServiceAccount before creating pods in
	// them, as a server with ServiceAccount admission and its controller requires.
	ServiceAccounts bool
	// Processes lists the server's processes as they are now, for their CPU and memory.
	Processes func() []int
	// Logf shows progress.
	Logf func(format string, args ...any)
	// Profiles, if set, saves the server's CPU profile over the nodes-Ready and pods-Running
	// steps and its heap profile once the pods run. Profiling costs the server CPU: the
	// figures of a profiled run are not comparable with others.
	Profiles *Profiles
}

// Figures are what one run measured. A step not run, or not reached, leaves its zero.
type Figures struct {
	// NodesReady is from the first node's create to the last one's Ready condition;
	// PodsRunning from the first pod's create to the last one's phase Running.
	NodesReady, PodsRunning time.Duration
	// CPUSeconds is the server's CPU time from the first node's create until every pod runs.
	CPUSeconds float64
	// IdleCPU is the server's CPU over Idle afterwards, in percent of one core.
	IdleCPU float64
	// RSSMiB is the server's resident memory after Idle, every process summed.
	RSSMiB float64
	// TopNode and TopPod are how long `kubectl top node` and `kubectl top pod -A` took, the
	// first time they answered for every node and pod.
	TopNode, TopPod time.Duration
	// Rollout is from the Deployment's create to its rollout being complete.
	Rollout time.Duration
	// NamespaceDeleted is from the DELETE of the pods' namespace until it is gone.
	NamespaceDeleted time.Duration
}

// Run puts w on the server cfg reaches, filling f as it goes: on an error, what was measured
// before it is there.
func Run(ctx context.Context, cfg *rest.Config, w Workload, f *Figures) error {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = -1 // no client-side rate limit: the server's speed is measured
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}

	// The client's view of the nodes and pods, from one watch each: the moments the last
	// node turns Ready and the last pod Running, without polling the server.
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = benchLabel
	}))
	ready := newTally(func(o any) bool {
		n, ok := o.(*corev1.Node)
		return ok && nodeReady(n)
	})
	running := newTally(func(o any) bool {
		p, ok := o.(*corev1.Pod)
		return ok && p.Namespace == namespace && p.Status.Phase == corev1.PodRunning
	})
	if _, err := factory.Core().V1().Nodes().Informer().AddEventHandler(ready.handler()); err != nil {
		return err
	}
	if _, err := factory.Core().V1().Pods().Informer().AddEventHandler(running.handler()); err != nil {
		return err
	}
	stop := make(chan struct{})
	factory.Start(stop)
	defer func() {
		close(stop)
		factory.Shutdown() // waits for the informers, which end once stop is closed
	}()
	factory.WaitForCacheSync(stop)

	if err := createNamespace(ctx, cs, namespace, w.ServiceAccounts); err != nil {
		return err
	}
	cpu0 := cpuSeconds(w.Processes())

	// Nodes, as kwok's users create them: annotated for kwok, with a capacity.
	perNode := 110 // the kubelet's default
	if w.Nodes > 0 {
		perNode = max(perNode, w.Pods/w.Nodes+10)
	}
	// The CPU profile under way, if any; ended with its step, or on the way out on an error.
	var endCPU func() error
	profileCPU := func(step string) {
		if w.Profiles != nil {
			endCPU = w.Profiles.CPU(ctx, step)
		}
	}
	stopCPU := func() error {
		if endCPU == nil {
			return nil
		}
		err := endCPU()
		endCPU = nil
		return err
	}
	defer func() { _ = stopCPU() }()

	w.Logf("creating %d nodes, %d at a time", w.Nodes, w.Parallel)
	profileCPU("nodes-ready")
	start := time.Now()
	if _, _, _, err := anchor.Parallel(w.Nodes, w.Parallel, func(i int) error {
		_, err := cs.CoreV1().Nodes().Create(ctx, node(i, perNode), metav1.CreateOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("creating nodes: %w", err)
	}
	if err := ready.wait(ctx, w.Nodes); err != nil {
		return fmt.Errorf("nodes Ready: %w", err)
	}
	f.NodesReady = time.Since(start)
	w.Logf("%d nodes Ready in %.2f s", w.Nodes, f.NodesReady.Seconds())
	if err := stopCPU(); err != nil {
		return err
	}

	if w.Pods > 0 && w.Nodes > 0 {
		w.Logf("creating %d pods, %d at a time", w.Pods, w.Parallel)
		profileCPU("pods-running")
		start = time.Now()
		if _, _, _, err := anchor.Parallel(w.Pods, w.Parallel, func(i int) error {
			_, err := cs.CoreV1().Pods(namespace).Create(ctx, pod(i, w.Nodes), metav1.CreateOptions{})
			return err
		}); err != nil {
			return fmt.Errorf("creating pods: %w", err)
		}
		if err := running.wait(ctx, w.Pods); err != nil {
			return fmt.Errorf("pods Running: %w", err)
		}
		f.PodsRunning = time.Since(start)
		w.Logf("%d pods Running in %.2f s", w.Pods, f.PodsRunning.Seconds())
		if err := stopCPU(); err != nil {
			return err
		}
	}
	f.CPUSeconds = cpuSeconds(w.Processes()) - cpu0
	if w.Profiles != nil {
		// Before the idle window, so that its CPU (a forced collection) is not counted there.
		if err := w.Profiles.Heap(ctx, "pods-running"); err != nil {
			return err
		}
		w.Logf("profiles saved in %s", w.Profiles.Dir)
	}

	if w.Idle > 0 {
		w.Logf("idle for %v", w.Idle)
		cpu := cpuSeconds(w.Processes())
		idleStart := time.Now()
		select {
		case <-time.After(w.Idle): // the window measured, not a wait for something
		case <-ctx.Done():
			return ctx.Err()
		}
		f.IdleCPU = 100 * (cpuSeconds(w.Processes()) - cpu) / time.Since(idleStart).Seconds()
	}
	f.RSSMiB = rssMiB(w.Processes())

	if w.Kubeconfig != "" {
		if f.TopNode, err = top(ctx, w.Kubeconfig, w.Nodes, "node"); err != nil {
			return err
		}
		w.Logf("kubectl top node answered for %d nodes in %.2f s", w.Nodes, f.TopNode.Seconds())
		if w.Pods > 0 {
			if f.TopPod, err = top(ctx, w.Kubeconfig, w.Pods, "pod", "-A"); err != nil {
				return err
			}
			w.Logf("kubectl top pod -A answered for %d pods in %.2f s", w.Pods, f.TopPod.Seconds())
		}
	}

	if w.Replicas > 0 {
		if f.Rollout, err = rollout(ctx, cs, w.Replicas, w.ServiceAccounts); err != nil {
			return err
		}
		w.Logf("a Deployment of %d replicas rolled out in %.2f s", w.Replicas, f.Rollout.Seconds())
	}

	if w.DeleteNamespace {
		start = time.Now()
		if err := cs.CoreV1().Namespaces().Delete(ctx, namespace, metav1.DeleteOptions{}); err != nil {
			return err
		}
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, phaseTimeout(w.Pods), true, func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		}); err != nil {
			return fmt.Errorf("namespace %s with %d pods not gone: %w", namespace, w.Pods, err)
		}
		f.NamespaceDeleted = time.Since(start)
		w.Logf("namespace of %d pods deleted in %.2f s", w.Pods, f.NamespaceDeleted.Seconds())
	}
	return nil
}

// phaseTimeout bounds one step over n objects: generous, so that it ends a stuck run rather
// than a slow one.
func phaseTimeout(n int) time.Duration {
	return 2*time.Minute + time.Duration(n)*20*time.Millisecond
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func nodeName(i int) string { return "scale-node-" + strconv.Itoa(i) }

func node(i, pods int) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   *resource.NewQuantity(int64(pods), resource.DecimalSI),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        nodeName(i),
			Annotations: map[string]string{kwokAnnotation: "fake"},
			Labels:      map[string]string{benchLabel: "true", "type": "kwok"},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

func pod(i, nodes int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-" + strconv.Itoa(i), Labels: map[string]string{benchLabel: "true"}},
		Spec: corev1.PodSpec{
			NodeName:   nodeName(i % nodes),
			Containers: []corev1.Container{{Name: "app", Image: image}},
		},
	}
}

// createNamespace creates ns and, where the server has ServiceAccount admission, waits for its
// default ServiceAccount, without which a pod is refused.
func createNamespace(ctx context.Context, cs kubernetes.Interface, ns string, serviceAccount bool) error {
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	if !serviceAccount {
		return nil
	}
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
}

// top runs `kubectl top <what>` until it answers for want objects with figures, and returns how
// long that answer took. The metrics server needs a scrape or two after the pods start.
func top(ctx context.Context, kubeconfig string, want int, what ...string) (time.Duration, error) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		return 0, err
	}
	var took time.Duration
	var last string
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		var out, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kubeconfig, "top"}, append(what, "--no-headers")...)...)
		cmd.Stdout, cmd.Stderr = &out, &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			last = strings.TrimSpace(stderr.String())
			return false, nil
		}
		took = time.Since(start)
		n := 0
		for _, l := range strings.Split(out.String(), "\n") {
			if l != "" && !strings.Contains(l, "<unknown>") {
				n++
			}
		}
		last = fmt.Sprintf("%d lines with figures", n)
		return n >= want, nil
	})
	if err != nil {
		return 0, fmt.Errorf("kubectl top %s never answered for %d (last: %s): %w", strings.Join(what, " "), want, last, err)
	}
	return took, nil
}

// rollout creates a Deployment of replicas pods, which the server's scheduler places, and
// returns how long until it is rolled out: every replica updated and available.
func rollout(ctx context.Context, cs kubernetes.Interface, replicas int, serviceAccount bool) (time.Duration, error) {
	if err := createNamespace(ctx, cs, deployNamespace, serviceAccount); err != nil {
		return 0, err
	}
	labels := map[string]string{"app": "scale"}
	n := int32(replicas)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "scale"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &n,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
			},
		},
	}
	start := time.Now()
	created, err := cs.AppsV1().Deployments(deployNamespace).Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		return 0, err
	}
	var last appsv1.DeploymentStatus
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, phaseTimeout(replicas), true, func(ctx context.Context) (bool, error) {
		d, err := cs.AppsV1().Deployments(deployNamespace).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = d.Status
		s := d.Status
		return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == n && s.AvailableReplicas == n && s.Replicas == n, nil
	})
	if err != nil {
		return 0, fmt.Errorf("Deployment of %d not rolled out (status %+v): %w", replicas, last, err)
	}
	return time.Since(start), nil
}

// tally counts the objects an informer holds that pass ok, as its events arrive.
type tally struct {
	ok func(any) bool

	mu     sync.Mutex
	passed map[string]bool
	n      int
}

func newTally(ok func(any) bool) *tally { return &tally{ok: ok, passed: map[string]bool{}} }

func (t *tally) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { t.set(o, t.ok(o)) },
		UpdateFunc: func(_, o any) { t.set(o, t.ok(o)) },
		DeleteFunc: func(o any) { t.set(o, false) },
	}
}

func (t *tally) set(o any, passed bool) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(o)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.passed[key] != passed {
		if passed {
			t.n++
		} else {
			t.n--
		}
	}
	if passed {
		t.passed[key] = true
	} else {
		delete(t.passed, key)
	}
}

func (t *tally) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// wait returns once want objects pass. It looks every 10 ms: the tally is the client's own,
// in memory, so looking costs the server nothing.
func (t *tally) wait(ctx context.Context, want int) error {
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, phaseTimeout(want), true, func(context.Context) (bool, error) {
		return t.count() >= want, nil
	})
	if err != nil {
		return fmt.Errorf("%d of %d: %w", t.count(), want, err)
	}
	return nil
}
