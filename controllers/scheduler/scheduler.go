// Package scheduler places pending pods on nodes: a minimal kube-scheduler.
//
// kube-scheduler sits beside kube-apiserver, watches pods and nodes, and writes only through the
// API. Each pending pod that asks for it (spec.schedulerName "default-scheduler", or none) goes
// through a scheduling cycle: filter the nodes it may go to, score those that fit, bind it to
// the best (pods/binding) and report a Scheduled event. A pod that fits nowhere gets a
// FailedScheduling event and the condition PodScheduled=False, and is tried again when a change
// to the cluster may let it fit.
//
// Ours does the same, one pod at a time, with a subset of kube-scheduler's default filters (see
// filter) and one score: the fewest pods on the node, by name among equals. Pods it has bound
// but the cache does not show bound yet count on their node, so that a burst of pods spreads. A
// pod that fits nowhere is tried again when a node is added or changes in what scheduling reads
// (taints, labels, allocatable, readiness, cordoning), or a bound pod goes away; a pod with
// scheduling gates waits with PodScheduled=False, reason SchedulingGated.
//
// Left out: scoring beyond the pod count, preemption, volumes, host ports, pod affinity and
// topology spread, and scheduling profiles and plugins.
package scheduler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/apichain/apichain/controllers/internal/loop"
	"github.com/apichain/apichain/internal/sharedinformers"
)

// Name is the scheduler's name: pods with this spec.schedulerName (or none) are its to place,
// and its events are reported by it.
const Name = corev1.DefaultSchedulerName

// fieldManager is the name its writes carry in managedFields, kube-scheduler's.
const fieldManager = "kube-scheduler"

// Scheduler places pending pods on nodes. Build it with New, start it with Run.
type Scheduler struct {
	client   kubernetes.Interface
	pods     cache.Indexer
	nodes    corelisters.NodeLister
	synced   []cache.InformerSynced
	queue    loop.Queue           // pod keys
	recorder record.EventRecorder // set by Run

	mu sync.Mutex
	// assumed are pods bound but not yet seen bound in the cache: they count on their node
	// (kube-scheduler's assumed pods), so that a burst of pods spreads.
	assumed map[types.UID]assumedPod
	// unschedulable are the pods that fit nowhere last time: tried again when that may change.
	unschedulable sets.Set[string]
}

type assumedPod struct {
	node        string
	cpu, memory int64
}

// New returns a scheduler that reads pods and nodes from the shared informers given (the pods
// indexed by node, sharedinformers.ByNode) and writes through client. It starts nothing.
func New(client kubernetes.Interface, pods coreinformers.PodInformer, nodes coreinformers.NodeInformer) (*Scheduler, error) {
	s := &Scheduler{
		client:  client,
		pods:    pods.Informer().GetIndexer(),
		nodes:   nodes.Lister(),
		synced:  []cache.InformerSynced{pods.Informer().HasSynced, nodes.Informer().HasSynced},
		queue:   loop.NewQueue("scheduler"),
		assumed: map[types.UID]assumedPod{}, unschedulable: sets.New[string](),
	}
	if err := sharedinformers.ByNode(pods.Informer()); err != nil {
		return nil, fmt.Errorf("indexing pods by node: %w", err)
	}
	if _, err := pods.Informer().AddEventHandler(s.podHandler()); err != nil {
		return nil, err
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { s.retryUnschedulable() },
		UpdateFunc: func(old, obj any) {
			if schedulingChanged(old.(*corev1.Node), obj.(*corev1.Node)) {
				s.retryUnschedulable()
			}
		},
	}); err != nil {
		return nil, err
	}
	return s, nil
}

// Run schedules pods until ctx is done, and returns once the pod in hand is done with. Run
// once per Scheduler.
func (s *Scheduler) Run(ctx context.Context) {
	s.recorder = loop.Recorder(ctx, s.client, Name)
	// One worker: one pod at a time, as kube-scheduler's scheduling cycle.
	loop.Run(ctx, s.queue, 1, s.scheduleOne, s.synced...)
}

func (s *Scheduler) podHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod := obj.(*corev1.Pod); pod.Spec.NodeName == "" {
				s.enqueue(pod)
			} else {
				s.forget(pod.UID)
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			old, pod := oldObj.(*corev1.Pod), obj.(*corev1.Pod)
			switch {
			case pod.Spec.NodeName != "":
				s.forget(pod.UID)
			case pod.Generation != old.Generation:
				// Its spec changed (tolerations, scheduling gates...): look again. Status
				// changes, our own included, change nothing here.
				s.enqueue(pod)
			}
		},
		DeleteFunc: func(obj any) {
			pod, ok := obj.(*corev1.Pod)
			if d, isTombstone := obj.(cache.DeletedFinalStateUnknown); isTombstone {
				pod, ok = d.Obj.(*corev1.Pod)
			}
			if !ok {
				return
			}
			s.forget(pod.UID)
			if pod.Spec.NodeName != "" {
				s.retryUnschedulable() // its place is free
			}
		},
	}
}

func (s *Scheduler) enqueue(pod *corev1.Pod) {
	loop.Enqueue(s.queue, pod)
}

func (s *Scheduler) forget(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.assumed, uid)
}

// retryUnschedulable queues again the pods that fit nowhere, now that something changed.
func (s *Scheduler) retryUnschedulable() {
	s.mu.Lock()
	keys := s.unschedulable.UnsortedList()
	s.unschedulable.Clear()
	s.mu.Unlock()
	for _, k := range keys {
		s.queue.Add(k)
	}
}

// schedulingChanged reports whether a node update can change where pods fit: heartbeats alone
// cannot.
func schedulingChanged(old, node *corev1.Node) bool {
	ready := func(n *corev1.Node) corev1.ConditionStatus {
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status
			}
		}
		return ""
	}
	return old.Spec.Unschedulable != node.Spec.Unschedulable ||
		!apiequality.Semantic.DeepEqual(old.Spec.Taints, node.Spec.Taints) ||
		!apiequality.Semantic.DeepEqual(old.Labels, node.Labels) ||
		!apiequality.Semantic.DeepEqual(old.Status.Allocatable, node.Status.Allocatable) ||
		ready(old) != ready(node)
}

// scheduleOne places one pod, or says why it cannot.
func (s *Scheduler) scheduleOne(ctx context.Context, key string) error {
	obj, exists, err := s.pods.GetByKey(key)
	if err != nil || !exists {
		return err
	}
	pod := obj.(*corev1.Pod)
	if pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil || finished(pod) ||
		(pod.Spec.SchedulerName != "" && pod.Spec.SchedulerName != Name) {
		return nil
	}
	if len(pod.Spec.SchedulingGates) > 0 {
		return s.setScheduledFalse(ctx, pod, corev1.PodReasonSchedulingGated, "Scheduling is blocked due to non-empty scheduling gates")
	}

	node, reason := s.pick(pod)
	if node == "" {
		s.mu.Lock()
		s.unschedulable.Insert(key)
		s.mu.Unlock()
		s.recorder.Event(pod, corev1.EventTypeWarning, "FailedScheduling", reason)
		return s.setScheduledFalse(ctx, pod, corev1.PodReasonUnschedulable, reason)
	}

	cpu, memory := requests(pod)
	s.mu.Lock()
	s.assumed[pod.UID] = assumedPod{node: node, cpu: cpu, memory: memory}
	s.mu.Unlock()
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}
	if err := s.client.CoreV1().Pods(pod.Namespace).Bind(ctx, binding, metav1.CreateOptions{FieldManager: fieldManager}); err != nil {
		s.forget(pod.UID)
		if apierrors.IsNotFound(err) {
			return nil // deleted meanwhile
		}
		return fmt.Errorf("binding %s to %s: %w", key, node, err)
	}
	s.recorder.Eventf(pod, corev1.EventTypeNormal, "Scheduled", "Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, node)
	return nil
}

// pick returns the fitting node with the fewest pods (by name among equals), or why none fits.
func (s *Scheduler) pick(pod *corev1.Pod) (node, reason string) {
	nodes, err := s.nodes.List(labels.Everything())
	if err != nil {
		return "", err.Error()
	}
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	loads := s.loads()
	reasons := map[string]int{}
	best := -1
	for _, n := range nodes {
		load := loads[n.Name]
		if why := filter(pod, n, load); len(why) > 0 {
			for _, r := range why {
				reasons[r]++
			}
			continue
		}
		if best < 0 || load.pods < loads[node].pods {
			node, best = n.Name, load.pods
		}
	}
	if node == "" {
		return "", fitError(len(nodes), reasons)
	}
	return node, ""
}

// loads is what every node holds: the pods the cache shows on it (finished ones hold
// nothing), and those assumed there.
func (s *Scheduler) loads() map[string]nodeLoad {
	loads := map[string]nodeLoad{}
	for _, node := range s.pods.ListIndexFuncValues(sharedinformers.PodsByNode) {
		objs, _ := s.pods.ByIndex(sharedinformers.PodsByNode, node)
		var l nodeLoad
		for _, obj := range objs {
			pod := obj.(*corev1.Pod)
			if finished(pod) {
				continue
			}
			cpu, memory := requests(pod)
			l = nodeLoad{pods: l.pods + 1, cpu: l.cpu + cpu, memory: l.memory + memory}
		}
		loads[node] = l
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.assumed {
		l := loads[a.node]
		loads[a.node] = nodeLoad{pods: l.pods + 1, cpu: l.cpu + a.cpu, memory: l.memory + a.memory}
	}
	return loads
}

// finished pods neither hold nor wait for a place on a node.
func finished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// setScheduledFalse records on the pod why it waits (kube-scheduler's updatePod on failure),
// unless it already says so.
func (s *Scheduler) setScheduledFalse(ctx context.Context, pod *corev1.Pod, reason, message string) error {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == reason && c.Message == message {
			return nil
		}
	}
	updated := pod.DeepCopy()
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: message,
		ObservedGeneration: pod.Generation, LastTransitionTime: metav1.Now()}
	i := slices.IndexFunc(updated.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.PodScheduled })
	switch {
	case i < 0:
		updated.Status.Conditions = append(updated.Status.Conditions, cond)
	default:
		if updated.Status.Conditions[i].Status == cond.Status {
			cond.LastTransitionTime = updated.Status.Conditions[i].LastTransitionTime
		}
		updated.Status.Conditions[i] = cond
	}
	_, err := s.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: fieldManager})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
