// Package nodelifecycle is the part of kube-controller-manager's node lifecycle controller that
// keeps a node's NoSchedule taints in step with its conditions (port of kubernetes
// pkg/controller/nodelifecycle/node_lifecycle_controller.go, doNoScheduleTaintingPass): a node
// that is not Ready is tainted node.kubernetes.io/not-ready (or unreachable), one under memory,
// disk or PID pressure likewise, a cordoned one unschedulable; when the condition clears, so does
// the taint. Every new node starts tainted not-ready (the TaintNodesByCondition admission
// plugin), so without this controller nothing would ever be scheduled.
//
// Not ported: the NoExecute taints and pod eviction of unreachable nodes, and the node monitor
// that marks silent nodes Unknown (the simulated kubelets do not go silent).
package nodelifecycle

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// conditionTaints maps node conditions to the taint kube-controller-manager puts for them.
var conditionTaints = map[corev1.NodeConditionType]map[corev1.ConditionStatus]string{
	corev1.NodeReady:              {corev1.ConditionFalse: corev1.TaintNodeNotReady, corev1.ConditionUnknown: corev1.TaintNodeUnreachable},
	corev1.NodeMemoryPressure:     {corev1.ConditionTrue: corev1.TaintNodeMemoryPressure},
	corev1.NodeDiskPressure:       {corev1.ConditionTrue: corev1.TaintNodeDiskPressure},
	corev1.NodeNetworkUnavailable: {corev1.ConditionTrue: corev1.TaintNodeNetworkUnavailable},
	corev1.NodePIDPressure:        {corev1.ConditionTrue: corev1.TaintNodePIDPressure},
}

// managed are the NoSchedule taint keys this controller owns.
var managed = []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, corev1.TaintNodeMemoryPressure,
	corev1.TaintNodeDiskPressure, corev1.TaintNodeNetworkUnavailable, corev1.TaintNodePIDPressure, corev1.TaintNodeUnschedulable}

// Controller keeps node taints in step with node conditions.
type Controller struct {
	client kubernetes.Interface
	nodes  corelisters.NodeLister
	synced cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
}

// New watches nodes through informer.
func New(client kubernetes.Interface, informer coreinformers.NodeInformer) (*Controller, error) {
	c := &Controller{
		client: client,
		nodes:  informer.Lister(),
		synced: informer.Informer().HasSynced,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "node_lifecycle_controller"}),
	}
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	})
	return c, err
}

// Run processes nodes until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrashWithContext(ctx)
	defer c.queue.ShutDown()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.synced) {
		return
	}
	for range workers {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for c.processNext(ctx) {
			}
		}, time.Second)
	}
	<-ctx.Done()
}

func (c *Controller) processNext(ctx context.Context) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	if err := c.sync(ctx, name); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "syncing node taints", "node", name)
		c.queue.AddRateLimited(name)
		return true
	}
	c.queue.Forget(name)
	return true
}

// wantedTaints are the NoSchedule taints the node's conditions and spec call for.
func wantedTaints(node *corev1.Node) []corev1.Taint {
	var taints []corev1.Taint
	for _, cond := range node.Status.Conditions {
		if key, ok := conditionTaints[cond.Type][cond.Status]; ok {
			taints = append(taints, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule})
		}
	}
	if node.Spec.Unschedulable {
		taints = append(taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	return taints
}

// desired returns the node's taints with the managed NoSchedule ones replaced by want (keeping
// the TimeAdded of those already there), and whether that changes anything.
func desired(current, want []corev1.Taint) ([]corev1.Taint, bool) {
	var out, had []corev1.Taint
	for _, t := range current {
		if t.Effect == corev1.TaintEffectNoSchedule && slices.Contains(managed, t.Key) {
			had = append(had, t)
		} else {
			out = append(out, t)
		}
	}
	changed := len(had) != len(want)
	for _, w := range want {
		if i := slices.IndexFunc(had, func(t corev1.Taint) bool { return t.Key == w.Key }); i >= 0 {
			w = had[i]
		} else {
			changed = true
			now := metav1.Now()
			w.TimeAdded = &now
		}
		out = append(out, w)
	}
	return out, changed
}

func (c *Controller) sync(ctx context.Context, name string) error {
	node, err := c.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, changed := desired(node.Spec.Taints, wantedTaints(node)); !changed {
		return nil
	}
	// Read-modify-write with retry on conflict, as upstream's SwapNodeControllerTaint.
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		fresh, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		taints, changed := desired(fresh.Spec.Taints, wantedTaints(fresh))
		if !changed {
			return nil
		}
		fresh.Spec.Taints = taints
		if _, err := c.client.CoreV1().Nodes().Update(ctx, fresh, metav1.UpdateOptions{FieldManager: "node-lifecycle-controller"}); err != nil {
			return fmt.Errorf("updating taints: %w", err)
		}
		klog.FromContext(ctx).V(2).Info("updated node taints", "node", name, "taints", taints)
		return nil
	})
}
