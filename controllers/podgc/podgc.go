// Package podgc deletes the pods that nobody else ever will: kube-controller-manager's
// pod-garbage-collector-controller (--controllers name podgc), for the chain.
//
// A pod goes away when its kubelet has stopped its containers and deletes it. Some pods have no
// kubelet to do that, and kube's pod garbage collector force-deletes them (grace period 0),
// looking every 20 s for:
//   - orphans: pods bound to a node that does not exist, once the node has been missing for a
//     quarantine (40 s: a node may be registering) and a live read confirms it is gone;
//   - terminating pods on a node that is out of service (not Ready, with the
//     node.kubernetes.io/out-of-service taint an administrator puts on a node that is down);
//   - terminating pods that were never scheduled;
//   - finished pods (Succeeded or Failed) beyond --terminated-pod-gc-threshold (12500),
//     evicted ones first, then the oldest.
//
// A pod that has not finished is marked Failed first, an orphan with a DisruptionTarget
// condition (reason DeletionByPodGC), so that whoever owns it sees why it went.
//
// Ours does the same, driven by events rather than a 20 s loop: its queue holds the keys of the
// pods to look at (queued when they change, or when their node goes or goes out of service) and
// one key that stands for the count of finished pods. Its quarantine is 5 s, as the nodes of a
// local cluster register at once: a namespace holding a pod bound to a node that does not exist
// is gone seconds after `kubectl delete namespace`, not never. Left out: metrics, and
// unscheduled terminating pods (the chain, as kube-apiserver, deletes an unscheduled pod at
// once; a finalizer can keep one, but force deletion does not remove finalizers).
package podgc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/controllers/internal/loop"
)

const (
	// Quarantine is how long a node must have been missing before its pods are deleted.
	Quarantine = 5 * time.Second
	// TerminatedPodThreshold is kube-controller-manager's --terminated-pod-gc-threshold default.
	TerminatedPodThreshold = 12500

	// finishedKey is the queue's key for "count the finished pods"; pod keys have a slash.
	finishedKey = "finished-pods"
	// byNode indexes pods by spec.nodeName.
	byNode = "podgc.nodeName"
)

// Config is what New needs beside the informers.
type Config struct {
	Client kubernetes.Interface
	// Quarantine and Threshold: see the constants of the same names; Threshold 0 keeps every
	// finished pod, as kube's threshold 0 does.
	Quarantine time.Duration
	Threshold  int
}

// Controller deletes orphaned, stuck and surplus finished pods. Build it with New, start it
// with Run.
type Controller struct {
	Config
	pods   corelisters.PodLister
	onNode cache.Indexer
	nodes  corelisters.NodeLister
	synced []cache.InformerSynced
	queue  loop.Queue

	mu sync.Mutex
	// missing is when each node that pods are bound to was first found missing.
	missing map[string]time.Time
}

// New returns the controller, watching pods and nodes through the shared informers given.
func New(c Config, pods coreinformers.PodInformer, nodes coreinformers.NodeInformer) (*Controller, error) {
	gc := &Controller{
		Config: c,
		pods:   pods.Lister(), onNode: pods.Informer().GetIndexer(), nodes: nodes.Lister(),
		synced:  []cache.InformerSynced{pods.Informer().HasSynced, nodes.Informer().HasSynced},
		queue:   loop.NewQueue("pod_garbage_collector"),
		missing: map[string]time.Time{},
	}
	err := pods.Informer().AddIndexers(cache.Indexers{byNode: func(obj any) ([]string, error) {
		if pod, ok := obj.(*corev1.Pod); ok && pod.Spec.NodeName != "" {
			return []string{pod.Spec.NodeName}, nil
		}
		return nil, nil
	}})
	if err != nil {
		return nil, fmt.Errorf("indexing pods by node: %w", err)
	}
	podChanged := func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok && finished(pod) {
			gc.queue.Add(finishedKey)
		}
		loop.Enqueue(gc.queue, obj)
	}
	if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    podChanged,
		UpdateFunc: func(_, obj any) { podChanged(obj) },
	}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	// A node that goes, or goes out of service, leaves its pods to us.
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { gc.found(obj.(*corev1.Node).Name) },
		UpdateFunc: func(_, obj any) {
			if node := obj.(*corev1.Node); outOfService(node) {
				gc.enqueuePodsOn(node.Name)
			}
		},
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			if node, ok := obj.(*corev1.Node); ok {
				gc.enqueuePodsOn(node.Name)
			}
		},
	}); err != nil {
		return nil, fmt.Errorf("watching nodes: %w", err)
	}
	return gc, nil
}

// Run deletes pods with workers goroutines until ctx is done.
func (gc *Controller) Run(ctx context.Context, workers int) {
	loop.Run(ctx, gc.queue, workers, gc.sync, gc.synced...)
}

func (gc *Controller) enqueuePodsOn(node string) {
	pods, _ := gc.onNode.ByIndex(byNode, node)
	for _, pod := range pods {
		loop.Enqueue(gc.queue, pod)
	}
}

func (gc *Controller) sync(ctx context.Context, key string) error {
	if key == finishedKey {
		return gc.syncFinished(ctx)
	}
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := gc.pods.Pods(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if pod.Spec.NodeName == "" {
		return nil // the chain deletes an unscheduled pod at once: no kubelet has to finish it
	}
	node, err := gc.nodes.Get(pod.Spec.NodeName)
	if err == nil {
		gc.found(node.Name)
		if pod.DeletionTimestamp != nil && outOfService(node) {
			return gc.forceDelete(ctx, pod, nil)
		}
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return err
	}
	if wait := gc.quarantined(pod.Spec.NodeName, time.Now()); wait > 0 {
		gc.queue.AddAfter(key, wait)
		return nil
	}
	// The cache may be behind: ask the chain before deleting anything.
	switch _, err := gc.Client.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{}); {
	case err == nil:
		gc.found(pod.Spec.NodeName)
		return nil
	case !apierrors.IsNotFound(err):
		return err
	}
	return gc.forceDelete(ctx, pod, &corev1.PodCondition{
		Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists",
	})
}

// quarantined notes node as missing at now, if it was not already, and says how long its
// quarantine still lasts.
func (gc *Controller) quarantined(node string, now time.Time) time.Duration {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	since, ok := gc.missing[node]
	if !ok {
		since, gc.missing[node] = now, now
	}
	return since.Add(gc.Quarantine).Sub(now)
}

// found forgets that node was missing: if it goes again, its quarantine starts again.
func (gc *Controller) found(node string) {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	delete(gc.missing, node)
}

// syncFinished deletes the finished pods beyond the threshold: evicted ones first, then the
// oldest.
func (gc *Controller) syncFinished(ctx context.Context) error {
	if gc.Threshold <= 0 {
		return nil
	}
	all, err := gc.pods.List(labels.Everything())
	if err != nil {
		return err
	}
	done := slices.DeleteFunc(all, func(p *corev1.Pod) bool { return !finished(p) })
	if len(done) <= gc.Threshold {
		return nil
	}
	slices.SortFunc(done, func(a, b *corev1.Pod) int {
		if ea, eb := evicted(a), evicted(b); ea && !eb {
			return -1
		} else if eb && !ea {
			return 1
		}
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	var errs []error
	for _, pod := range done[:len(done)-gc.Threshold] {
		if err := gc.forceDelete(ctx, pod, nil); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("deleting finished pods beyond %d: %v", gc.Threshold, errs)
	}
	return nil
}

// forceDelete marks pod Failed, with condition if given, unless it has finished, then deletes
// it with grace period 0: at once, whatever its kubelet would have done. The uid precondition
// spares a pod of the same name made meanwhile.
func (gc *Controller) forceDelete(ctx context.Context, pod *corev1.Pod, condition *corev1.PodCondition) error {
	if !finished(pod) {
		// A patch, as kube-controller-manager's pod GC sends: its role (system:controller:
		// pod-garbage-collector) may patch pods/status, not update it. Conditions merge by type.
		status := map[string]any{"phase": corev1.PodFailed}
		if condition != nil {
			condition.LastTransitionTime = metav1.Now()
			status["conditions"] = []corev1.PodCondition{*condition}
		}
		patch, err := json.Marshal(map[string]any{"status": status})
		if err != nil {
			return err
		}
		_, err = gc.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("marking pod %s/%s failed: %w", pod.Namespace, pod.Name, err)
		}
	}
	err := gc.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64), Preconditions: &metav1.Preconditions{UID: &pod.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone already, or another pod of that name
	}
	if err != nil {
		return fmt.Errorf("deleting pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	klog.FromContext(ctx).Info("Force-deleted pod", "pod", klog.KObj(pod), "node", pod.Spec.NodeName, "phase", pod.Status.Phase)
	return nil
}

func finished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

func evicted(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed && pod.Status.Reason == "Evicted"
}

// outOfService: not Ready, and tainted node.kubernetes.io/out-of-service by an administrator
// who says the node is down for good (non-graceful node shutdown).
func outOfService(node *corev1.Node) bool {
	ready := slices.ContainsFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool {
		return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	})
	tainted := slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeOutOfService })
	return !ready && tainted
}
